/**
 * What a `uwf` start loads (DESIGN §14): commands that read the store load none of the Node
 * built-ins that cost a start milliseconds (node:crypto and the stream modules it brings,
 * child_process, net, readline, fs/promises), and `thread exec` loads only what spawning its
 * adapter needs. A structural check, not a timing: these come back with one careless
 * top-level import or `process.stdout` touched. Runs the built binaries: run `pnpm build` first.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_SCHEMA_HASHES } from "@united-workforce/protocol";
import {
  builtinsLoadedBy,
  COSTLY_BUILTINS,
  REPO_ROOT,
  runUwf,
  type TempHome,
  tempHome,
  UWF_BIN,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What spawning an adapter and reading its pipes needs.
const SPAWNING = new Set(["child_process", "net", "stream"]);

let temp: TempHome;
let node: string;
let thread: string;
let agent: string;
let scenario: string;

beforeAll(async () => {
  const bundle = join(REPO_ROOT, "packages/cli/dist/bundle/main.cjs");
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`pnpm build\` first`);
  temp = tempHome();
  const env = { home: temp.home };
  node = (await runUwf(["cas", "put-text", "hello"], env)).stdout.trim();
  await runUwf(["workflow", "add", join(REPO_ROOT, "examples/hello.yaml")], env);
  scenario = writeScenario(temp.home, [
    { role: "greeter", output: { $status: "done", greeting: "hi" } },
  ]);
  agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
  thread = (await runUwf(["thread", "start", "hello", "-p", "hi"], env)).stdout.trim();
  const exec = await runUwf(["thread", "exec", thread, "--agent", agent], env);
  expect(exec.code, exec.stderr).toBe(0);
});
afterAll(() => temp.cleanup());

/** `args` with `<node>` and `<thread>` replaced by the ones made above. */
function named(args: string[]): string[] {
  return args.map((arg) => (arg === "<node>" ? node : arg === "<thread>" ? thread : arg));
}

/** Run uwf with `args` (twice: the first run may write the code cache); the built-ins it loaded. */
function loadedBy(args: string[], output: "pipe" | "devnull" = "pipe"): string[] {
  let builtins: string[] = [];
  for (let run = 0; run < 2; run++) {
    const child = builtinsLoadedBy(UWF_BIN, args, temp.home, { output });
    expect(child.code, `${args.join(" ")}: ${child.stderr}`).toBe(0);
    builtins = child.builtins;
  }
  return builtins;
}

describe("a uwf start", () => {
  it.each([
    [["--version"]],
    [["--help"]],
    [["cas", "get", "<node>"]],
    [["thread", "show", "<thread>"]],
    [["thread", "list"]],
    [["step", "list", "<thread>"]],
    [["workflow", "validate", join(REPO_ROOT, "examples/solve-issue.yaml")]],
  ])("uwf %j loads no costly built-in, its output piped", (args: string[]) => {
    expect(loadedBy(named(args)).filter((name) => COSTLY_BUILTINS.includes(name))).toEqual([]);
  });

  // /dev/null is a character device, as a terminal is, but has no width to ask its stream for.
  it.each([[["cas", "get", "<node>"]], [["thread", "show", "<thread>"]], [["thread", "list"]]])(
    "uwf %j loads no costly built-in, its output on /dev/null",
    (args: string[]) => {
      expect(
        loadedBy(named(args), "devnull").filter((name) => COSTLY_BUILTINS.includes(name)),
      ).toEqual([]);
    },
  );

  it.each([
    ["in the Node process the bin started early", {}, "net", "child_process"],
    ["spawned, with UWF_WARM_START=0", { UWF_WARM_START: "0" }, "child_process", undefined],
  ])("thread exec loads only what running its adapter needs: %s", async (_, extra, needed, not) => {
    const env = { home: temp.home };
    // Outside a git working tree: a step in one starts git for its receipt (docs/receipts.md).
    const started = ["thread", "start", "hello", "-p", "again", "--cwd", temp.home];
    const fresh = (await runUwf(started, env)).stdout;
    const child = builtinsLoadedBy(
      UWF_BIN,
      ["thread", "exec", fresh.trim(), "--agent", agent],
      temp.home,
      { env: extra },
    );
    expect(child.code, child.stderr).toBe(0);
    const loaded = child.builtins;
    expect(loaded.filter((name) => COSTLY_BUILTINS.includes(name) && !SPAWNING.has(name))).toEqual(
      [],
    );
    // The warm process's pipes are read as sockets; nothing else needs child_process.
    expect(loaded).toContain(needed);
    if (not !== undefined) expect(loaded).not.toContain(not);
  });

  // Cheaper ones (≈ 0.2 ms each), reached on demand: `node:os` for a host name only when a
  // lease exists, `node:module` never (built-ins come through process.getBuiltinModule).
  it.each([[["cas", "get", "<node>"]], [["thread", "show", "<thread>"]], [["--help"]]])(
    "uwf %j loads neither node:os nor node:module",
    (args: string[]) => {
      expect(loadedBy(named(args)).filter((name) => name === "os" || name === "module")).toEqual(
        [],
      );
    },
  );

  it("an adapter's step loads neither node:os nor node:module", async () => {
    const env = { home: temp.home };
    const fresh = (await runUwf(["thread", "start", "hello", "-p", "once more"], env)).stdout;
    const step = ["--scenario", scenario, "--thread", fresh.trim(), "--role", "greeter"];
    const child = builtinsLoadedBy(UWF_MOCK_BIN, [...step, "--prompt", "x"], temp.home);
    expect(child.code, child.stderr).toBe(0);
    expect(child.builtins.filter((name) => name === "os" || name === "module")).toEqual([]);
  });

  it("a step compiles no validator of a built-in node schema: the bundles carry them", () => {
    // uwf and uwf-mock have each run a step in this home (and validated workflows): the
    // validators they compiled and cached are those of the workflows' own schemas only.
    const cached = readdirSync(join(temp.home, "cache", "validators"));
    const builtins = new Set(Object.values(BUILTIN_SCHEMA_HASHES));
    expect(cached.length).toBeGreaterThan(0);
    expect(cached.filter((name) => builtins.has(name.split(".")[0]!))).toEqual([]);
  });
});
