import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configPath, loadConfig, readConfig, readStoreConfig } from "./config.js";
import { parsedConfigPath } from "./parsed-cache.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function home(): string {
  const dir = mkdtempSync(join(tmpdir(), "uwf-config-cache-"));
  made.push(dir);
  return dir;
}

const CONFIG = [
  "# my agents",
  "providers:",
  "  anthropic: { baseUrl: https://api.anthropic.com, apiKey: sk-secret }",
  "models:",
  "  sonnet: { provider: anthropic, name: claude-sonnet }",
  "agents:",
  "  claude: { command: uwf-claude-code, model: sonnet, timeoutSeconds: 600 }",
  "defaultAgent: claude",
  "store: fs",
  "",
].join("\n");

describe("the parsed config.yaml kept in cache/config.json", () => {
  it("gives the same config as parsing, and is what the next read uses", () => {
    const dir = home();
    writeFileSync(configPath(dir), CONFIG);
    const parsed = readConfig(dir);
    expect(parsed.defaultAgent).toBe("claude");
    const entryPath = parsedConfigPath(dir);
    // Written like config.yaml itself: it may hold keys.
    expect(statSync(entryPath).mode & 0o777).toBe(0o600);
    expect(readConfig(dir)).toEqual(parsed);
    expect(loadConfig(dir).config).toEqual(parsed);
    expect(readStoreConfig(dir)).toEqual({ store: "fs" });
    // The entry is what a read uses while the text is unchanged: an edited value shows through.
    const entry = JSON.parse(readFileSync(entryPath, "utf8"));
    entry.value.defaultAgent = "from-cache";
    writeFileSync(entryPath, JSON.stringify(entry));
    expect(readConfig(dir).defaultAgent).toBe("from-cache");
  });

  it("sees an edit at once, and each read gets its own copy", () => {
    const dir = home();
    writeFileSync(configPath(dir), CONFIG);
    const first = readConfig(dir);
    (first.agents as Record<string, unknown>).claude = "changed by a caller";
    expect(readConfig(dir).agents?.claude?.command).toBe("uwf-claude-code");
    writeFileSync(configPath(dir), CONFIG.replace("timeoutSeconds: 600", 'timeoutSeconds: "10"'));
    expect(() => readConfig(dir)).toThrow(/timeoutSeconds must be a number/);
    writeFileSync(configPath(dir), CONFIG.replace("timeoutSeconds: 600", "timeoutSeconds: 60"));
    expect(readConfig(dir).agents?.claude?.timeoutSeconds).toBe(60);
    expect(readConfig(dir).agents?.claude?.timeoutSeconds).toBe(60);
  });

  it("is removed with config.yaml, and ignored when damaged", () => {
    const dir = home();
    writeFileSync(configPath(dir), CONFIG);
    readConfig(dir);
    writeFileSync(parsedConfigPath(dir), "{ damaged");
    expect(readConfig(dir).defaultAgent).toBe("claude");
    expect(existsSync(parsedConfigPath(dir))).toBe(true);
    rmSync(configPath(dir));
    expect(readConfig(dir)).toEqual({});
    expect(existsSync(parsedConfigPath(dir))).toBe(false);
  });

  it("never holds a file that does not parse, nor values JSON would change", () => {
    const dir = home();
    writeFileSync(configPath(dir), "agents: [\n");
    expect(() => readConfig(dir)).toThrow(/is not valid YAML/);
    expect(existsSync(parsedConfigPath(dir))).toBe(false);
    writeFileSync(configPath(dir), "store: fs\nother: { ratio: .nan, zero: -0 }\n");
    const first = loadConfig(dir);
    const second = loadConfig(dir);
    expect(existsSync(parsedConfigPath(dir))).toBe(false);
    expect(second).toEqual(first);
    expect(Object.is((second.config.other as { zero: number }).zero, -0)).toBe(true);
  });
});
