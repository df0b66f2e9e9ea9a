import {
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configPath, readConfig } from "./config.js";
import {
  deleteConfigValue,
  getConfigValue,
  openConfigFile,
  saveConfigFile,
  setConfigValue,
} from "./file.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function home(): string {
  const dir = mkdtempSync(join(tmpdir(), "uwf-config-file-"));
  made.push(dir);
  return dir;
}

describe("editing config.yaml", () => {
  it("creates the file with mode 0600 and the mappings on the way", () => {
    const dir = home();
    const config = openConfigFile(dir);
    expect(config.exists).toBe(false);
    setConfigValue(config, ["providers", "local", "baseUrl"], "http://127.0.0.1:1/v1");
    setConfigValue(config, ["providers", "local", "apiKey"], "sk-secret");
    saveConfigFile(config);
    expect(statSync(configPath(dir)).mode & 0o777).toBe(0o600);
    expect(readConfig(dir)).toEqual({
      providers: { local: { baseUrl: "http://127.0.0.1:1/v1", apiKey: "sk-secret" } },
    });
  });

  it("changes only its key: other tools' keys, order and comments stay", () => {
    const dir = home();
    writeFileSync(
      configPath(dir),
      [
        "# my uwf settings",
        "web: { port: 8080 } # another tool's",
        "agents:",
        "  # the one I use",
        "  mock: { command: uwf-mock }",
        "defaultAgent: mock",
        "",
      ].join("\n"),
      { mode: 0o644 },
    );
    const config = openConfigFile(dir);
    setConfigValue(config, ["agents", "mock", "timeoutSeconds"], 60);
    const { warnings } = saveConfigFile(config);
    expect(warnings).toEqual(["unknown key web"]);
    const text = readFileSync(configPath(dir), "utf8");
    expect(text).toContain("# my uwf settings");
    expect(text).toContain("# the one I use");
    expect(text).toContain("# another tool's");
    expect(text.indexOf("web:")).toBeLessThan(text.indexOf("agents:"));
    expect(readConfig(dir).agents).toEqual({ mock: { command: "uwf-mock", timeoutSeconds: 60 } });
    expect(statSync(configPath(dir)).mode & 0o777).toBe(0o600);
  });

  it("writes through a symbolic link, keeping the link and mode 0600", () => {
    const dir = home();
    const dotfiles = home();
    const target = join(dotfiles, "config.yaml");
    writeFileSync(target, "# mine\nagents:\n  a: { command: x }\n", { mode: 0o644 });
    symlinkSync(target, configPath(dir));
    const config = openConfigFile(dir);
    setConfigValue(config, ["agents", "a", "timeoutSeconds"], 30);
    saveConfigFile(config);
    expect(lstatSync(configPath(dir)).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe(
      "# mine\nagents:\n  a: { command: x, timeoutSeconds: 30 }\n",
    );
    expect(statSync(target).mode & 0o777).toBe(0o600);

    // A link to a file not made yet: the file is made where the link points.
    rmSync(target);
    const fresh = openConfigFile(dir);
    setConfigValue(fresh, ["defaultAgent"], "b");
    saveConfigFile(fresh);
    expect(lstatSync(configPath(dir)).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("defaultAgent: b\n");
  });

  it("fills a top-level key left empty", () => {
    const dir = home();
    writeFileSync(configPath(dir), "agents:\n");
    const config = openConfigFile(dir);
    setConfigValue(config, ["agents", "a", "command"], "uwf-mock");
    saveConfigFile(config);
    expect(readConfig(dir)).toEqual({ agents: { a: { command: "uwf-mock" } } });
  });

  it("never writes a config it would refuse to read, and says what is wrong", () => {
    const dir = home();
    writeFileSync(configPath(dir), "defaultAgent: mock\n");
    const config = openConfigFile(dir);
    setConfigValue(config, ["agents", "a", "model"], "nope");
    expect(() => saveConfigFile(config)).toThrow(/agents\.a\.command is required/);
    expect(readFileSync(configPath(dir), "utf8")).toBe("defaultAgent: mock\n");
  });

  it("refuses to set under a value that is not a mapping", () => {
    const dir = home();
    writeFileSync(configPath(dir), "providers: [a]\n");
    const config = openConfigFile(dir);
    expect(() => setConfigValue(config, ["providers", "p", "baseUrl"], "http://x")).toThrow(
      /cannot set providers\.p\.baseUrl: providers in .* is not a mapping/,
    );
  });

  it("reads and removes single keys", () => {
    const dir = home();
    writeFileSync(configPath(dir), "agents:\n  a: { command: x, args: [--y] }\n");
    const config = openConfigFile(dir);
    expect(getConfigValue(config, ["agents", "a", "args"])).toEqual(["--y"]);
    expect(getConfigValue(config, ["agents", "b"])).toBeUndefined();
    expect(getConfigValue(config, ["agents", "a", "command", "x"])).toBeUndefined();
    expect(deleteConfigValue(config, ["agents", "a", "args"])).toBe(true);
    expect(deleteConfigValue(config, ["agents", "a", "args"])).toBe(false);
    saveConfigFile(config);
    expect(readConfig(dir)).toEqual({ agents: { a: { command: "x" } } });
  });

  it("names the file when it is not a YAML mapping", () => {
    const dir = home();
    writeFileSync(configPath(dir), "- a\n");
    expect(() => openConfigFile(dir)).toThrow(/config\.yaml must be a YAML mapping/);
    writeFileSync(configPath(dir), "a: [\n");
    expect(() => openConfigFile(dir)).toThrow(/config\.yaml is not valid YAML/);
  });
});
