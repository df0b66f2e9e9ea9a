/**
 * What an adapter's start loads (DESIGN §14): `--help` and a whole uwf-mock step load none of
 * the Node built-ins that cost a start milliseconds (node:crypto and the stream modules it
 * brings, child_process, net, readline, fs/promises). A structural check, not a timing: these
 * come back with one careless top-level import or `process.stdin`/`process.stdout` touched.
 * Runs the built binaries: run `pnpm build` first.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  builtinsLoadedBy,
  COSTLY_BUILTINS,
  REPO_ROOT,
  seedThread,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

const ADAPTERS = [
  "agent-mock/bin/uwf-mock.cjs",
  "agent-claude-code/bin/uwf-claude-code.cjs",
  "agent-codex/bin/uwf-codex.cjs",
  "agent-acp/bin/uwf-acp.cjs",
  "agent-acp/bin/uwf-hermes.cjs",
  "agent-builtin/bin/uwf-builtin.cjs",
].map((bin) => join(REPO_ROOT, "packages", bin));

let temp: TempHome;

beforeAll(() => {
  for (const bin of ADAPTERS) {
    const bundle = join(bin, "../../dist/bundle/main.cjs");
    if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`pnpm build\` first`);
  }
});
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

/** Run `bin` with `args`; its exit code and the built-ins it loaded. */
const loadedBy = (bin: string, args: string[]) => builtinsLoadedBy(bin, args, temp.home);

describe("an adapter's start", () => {
  it.each(ADAPTERS)("%s --help loads no costly built-in", (bin) => {
    const { code, builtins } = loadedBy(bin, ["--help"]);
    expect(code).toBe(0);
    expect(builtins.filter((name) => COSTLY_BUILTINS.includes(name))).toEqual([]);
  });

  it("a whole uwf-mock step loads no costly built-in", async () => {
    const { thread } = await seedThread(temp.home, {
      workflow: {
        name: "one",
        roles: {
          solo: {
            frontmatter: {
              type: "object",
              properties: { $status: { const: "done" }, note: { type: "string" } },
              required: ["$status", "note"],
            },
          },
        },
        graph: {
          $START: { new: { role: "solo", prompt: "Go." }, resume: { role: "solo", prompt: "Go." } },
          solo: { done: { role: "$END", prompt: "Done." } },
        },
      },
      prompt: "Say hi",
      cwd: temp.home,
    });
    writeScenario(temp.home, [{ role: "solo", output: { $status: "done", note: "hi" } }]);
    const args = ["--scenario", "scenario.yaml", "--thread", thread, "--role", "solo"];
    // Twice: the first run compiles the validators and writes the caches; the second is the
    // usual step, which reads them.
    for (const run of [1, 2]) {
      const { code, builtins } = loadedBy(UWF_MOCK_BIN, [...args, "--prompt", `Go ${run}.`]);
      expect(code).toBe(0);
      expect(builtins.filter((name) => COSTLY_BUILTINS.includes(name))).toEqual([]);
    }
  });
});
