import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildBrowserScript } from "./dashboard-assets.mjs";

describe("the dashboard's browser build", () => {
  const dir = mkdtempSync(join(tmpdir(), "uwf-browser-build-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const entry = (name: string, code: string) => {
    const path = join(dir, name);
    writeFileSync(path, code);
    return path;
  };

  it("takes a workspace package's pure modules from its sources, into one browser script", async () => {
    const { text, inputs } = await buildBrowserScript(
      entry(
        "statuses.ts",
        'import { THREAD_STATUSES } from "@united-workforce/protocol";\nconsole.log(THREAD_STATUSES.join(" "));\n',
      ),
    );
    expect(inputs).toContain(
      fileURLToPath(new URL("../../packages/protocol/src/threads.ts", import.meta.url)),
    );
    const logged: string[] = [];
    new Function("console", text)({ log: (line: string) => logged.push(line) });
    expect(logged).toEqual(["idle running suspended completed cancelled corrupt"]);
  });

  it("refuses a Node built-in, naming the module that imports it", async () => {
    const importer = entry(
      "fs.ts",
      'import { readFileSync } from "node:fs";\nreadFileSync("x");\n',
    );
    await expect(buildBrowserScript(importer)).rejects.toThrow(
      `node:fs is Node's: the dashboard's browser script may import only pure modules (imported by ${importer})`,
    );
  });
});
