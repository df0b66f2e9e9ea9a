import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadScenario } from "./scenario.js";

let temp: TempHome;
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

const cacheDir = () => join(temp.home, "cache", "mock-scenarios");
const entries = (): string[] => {
  try {
    return readdirSync(cacheDir());
  } catch {
    return [];
  }
};

/** Give the one cache entry another value, keeping its text: what a read then returns shows
 *  whether the entry was used. */
function tamper(value: unknown): void {
  const [name] = entries();
  const file = join(cacheDir(), name!);
  const entry = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...entry, value }));
}

const other = { steps: [{ role: "cached", output: { $status: "done" } }] };

describe("the scenario parse cache", () => {
  it("serves an unchanged scenario from its entry and reads an edited one again", () => {
    const file = join(temp.home, "s.yaml");
    writeFileSync(file, "steps:\n  - role: writer\n    output: { $status: done, n: 1 }\n");
    const first = loadScenario(file, temp.home);
    expect(first.steps[0]).toEqual({ role: "writer", output: { $status: "done", n: 1 } });
    expect(entries()).toHaveLength(1);

    tamper(other);
    expect(loadScenario(file, temp.home)).toEqual(other);

    writeFileSync(file, "steps:\n  - role: writer\n    output: { $status: done, n: 2 }\n");
    expect(loadScenario(file, temp.home).steps[0]!.output).toEqual({ $status: "done", n: 2 });
  });

  it("is keyed by the file's path: the same text elsewhere is parsed on its own", () => {
    const text = "steps:\n  - role: writer\n    exit: 3\n";
    writeFileSync(join(temp.home, "a.yaml"), text);
    writeFileSync(join(temp.home, "b.yaml"), text);
    loadScenario(join(temp.home, "a.yaml"), temp.home);
    tamper(other);
    expect(loadScenario(join(temp.home, "b.yaml"), temp.home).steps[0]!.role).toBe("writer");
    expect(entries()).toHaveLength(2);
  });

  it("checks a cached value like a parsed one, and keeps no scenario with a problem", () => {
    const file = join(temp.home, "s.yaml");
    writeFileSync(file, "steps:\n  - role: writer\n    exit: 3\n");
    loadScenario(file, temp.home);
    tamper({ steps: [{ role: "writer", exit: 3, bogus: 1 }] });
    expect(() => loadScenario(file, temp.home)).toThrow('steps[0] has unknown key "bogus"');

    const bad = join(temp.home, "bad.yaml");
    writeFileSync(bad, "steps:\n  - role: writer\n    exit: 3\n    bogus: 1\n");
    expect(() => loadScenario(bad, temp.home)).toThrow('unknown key "bogus"');
    writeFileSync(join(temp.home, "broken.yaml"), "steps: [\n");
    expect(() => loadScenario(join(temp.home, "broken.yaml"), temp.home)).toThrow(
      "not valid YAML or JSON",
    );
    expect(entries()).toHaveLength(1);
  });

  it("keeps no value JSON would change, and nothing without a home", () => {
    const file = join(temp.home, "s.yaml");
    writeFileSync(file, "steps:\n  - role: writer\n    output: { $status: done, n: .nan }\n");
    expect(Number.isNaN((loadScenario(file, temp.home).steps[0]!.output as { n: number }).n)).toBe(
      true,
    );
    expect(entries()).toHaveLength(0);
    writeFileSync(file, "steps:\n  - role: writer\n    exit: 3\n");
    loadScenario(file);
    expect(entries()).toHaveLength(0);
  });

  it("ignores a damaged entry", () => {
    const file = join(temp.home, "s.yaml");
    writeFileSync(file, "steps:\n  - role: writer\n    exit: 3\n");
    loadScenario(file, temp.home);
    writeFileSync(join(cacheDir(), entries()[0]!), "{ not json");
    expect(loadScenario(file, temp.home).steps[0]!.role).toBe("writer");
  });
});
