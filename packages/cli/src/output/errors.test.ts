import { UwfError } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import { renderError } from "./errors.js";

function errno(code: string, message: string, fields: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { code, ...fields });
}

describe("renderError", () => {
  it("shows a Node errno error that reached the CLI as an I/O error naming its file", () => {
    const full = errno("ENOSPC", "ENOSPC: no space left on device, write", {
      syscall: "write",
      path: "/home/u/.uwf/cas/AB/ABCDEFGHJKMNP.json",
    });
    const text = renderError(full, "text");
    expect(text.text).toBe(
      [
        "error: /home/u/.uwf/cas/AB/ABCDEFGHJKMNP.json: no space left on the device (ENOSPC)",
        "hint: Free some disk space and run the command again.",
        "",
      ].join("\n"),
    );
    expect(text.exitCode).toBe(1);
    expect(JSON.parse(renderError(full, "json").text)).toEqual({
      error: {
        code: "IO",
        exitCode: 1,
        message: "/home/u/.uwf/cas/AB/ABCDEFGHJKMNP.json: no space left on the device (ENOSPC)",
        hint: "Free some disk space and run the command again.",
        errno: "ENOSPC",
        path: "/home/u/.uwf/cas/AB/ABCDEFGHJKMNP.json",
      },
    });
  });

  it("keeps Node's words for an errno it has no plain words for", () => {
    const text = renderError(
      errno("EXDEV", "EXDEV: cross-device link not permitted, rename '/a' -> '/b'", {
        syscall: "rename",
        path: "/a",
        dest: "/b",
      }),
      "text",
    ).text;
    expect(text).toMatch(/^error: \/a: cross-device link not permitted \(EXDEV\)\n/);
    expect(text).not.toContain("bug");
  });

  it("explains a working directory that was deleted", () => {
    const gone = errno("ENOENT", "ENOENT: no such file or directory, uv_cwd", {
      syscall: "uv_cwd",
    });
    expect(renderError(gone, "text").text).toBe(
      [
        "error: the current directory no longer exists (it was deleted or moved away)",
        "hint: cd to an existing directory and run the command again.",
        "",
      ].join("\n"),
    );
  });

  it("still calls an unexpected error a bug", () => {
    expect(renderError(new TypeError("x is not a function"), "text").text).toContain(
      "This is a bug in uwf",
    );
    expect(renderError(new UwfError("USAGE", "bad"), "text").exitCode).toBe(2);
  });

  it("prints the error document in the format asked for, YAML included", async () => {
    const error = new UwfError("ID_AMBIGUOUS", 'prefix "7MSK" is ambiguous', {
      hint: "type more",
      details: { candidates: ["7MSKA", "7MSKB"] },
    });
    const yaml = renderError(error, "yaml");
    expect(yaml.exitCode).toBe(2);
    expect(yaml.text).toBe(
      [
        "error:",
        '  code: "ID_AMBIGUOUS"',
        '  message: "prefix \\"7MSK\\" is ambiguous"',
        '  hint: "type more"',
        "  exitCode: 2",
        '  candidates: ["7MSKA","7MSKB"]',
        "",
      ].join("\n"),
    );
    const { parse } = await import("yaml");
    expect(parse(yaml.text)).toEqual(JSON.parse(renderError(error, "json").text));
  });
});
