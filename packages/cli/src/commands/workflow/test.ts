import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  ExitCode,
  type WorkflowTestDocument,
  type WorkflowTestThread,
} from "@united-workforce/protocol";
import { findExecutable, nodeOs, UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["workflow", "test"],
  // Ctrl-C stops the replay running (its adapter too) and removes the scratch store.
  interruptible: true,
  summary:
    "re-run recorded threads through a workflow with uwf-replay: same route, different route or a miss (exit 1 unless every route is the same)",
  description:
    "Each recorded thread (a thread of this store, or every thread of a bundle from `uwf thread export`) starts again with the same task, inputs and cwd under the workflow given, in a scratch store of its own (yours is not touched), and `uwf-replay` answers every agent step with the recorded step whose assembled prompt is the same: no model is called. A changed role text or history makes a miss, naming the role and the nearest recorded prompt; a changed edge makes a different route, naming the first step that differs and why. A human role or question is answered as the recording was (`thread answer`, `thread resume -p`); a script step (`run:`) whose command and prompt were recorded gives its recorded result, and runs for real (in the recorded cwd when it exists) when they changed. A fan-out's children are replayed through their parent and compared with the recorded children item by item, at any depth. Usable in CI as a regression test of workflow edits.",
  args: [
    { name: "workflow", description: "workflow file, hash, .workflows/ name or registered name" },
  ],
  options: [
    {
      flags: "--from <thread|bundle>",
      type: "string",
      repeatable: true,
      description: "a recorded thread id of this store, or a bundle file (every thread in it)",
      hint: "Name the recordings to test against: --from <thread id> or --from run.uwf-bundle",
    },
    {
      flags: "--replay <command>",
      type: "string",
      description: "the replay adapter to run",
      default: "uwf-replay",
    },
    {
      flags: "--keep",
      type: "boolean",
      description: "keep the scratch store and say where it is (to look at the replayed threads)",
    },
  ],
  examples: [
    "uwf workflow test examples/solve-issue.yaml --from 01JD…",
    "uwf workflow test solve-issue --from runs/fix-42.uwf-bundle --from runs/fix-43.uwf-bundle",
    "uwf workflow test .workflows/solve-issue.yaml --from recorded.uwf-bundle --format json",
  ],
  async run(ctx, [ref], options) {
    const from = (options.from as string[] | undefined) ?? [];
    if (from.length === 0) {
      throw new UwfError("USAGE", "no recordings to test against", {
        hint: "Pass --from <thread id> (a thread of this store) or --from <bundle file>, once or more.",
      });
    }
    const engine = await import("@united-workforce/engine");
    const storeLib = await import("@united-workforce/store");
    // Checked before any replay starts: each replay would otherwise fail at its first agent step.
    const replay = options.replay as string;
    const replayCommand = storeLib.splitCommand(replay)[0] ?? "";
    if (findExecutable(replayCommand, ctx.env.PATH ?? "", ctx.cwd) === null) {
      const missing = replayCommand.includes("/")
        ? "not found or not executable"
        : "not found in PATH";
      throw new UwfError("USAGE", `--replay "${replay}": "${replayCommand}" ${missing}`, {
        hint: "uwf-replay comes with the mock adapter: npm i -g @united-workforce/agent-mock (or pass --replay <path to uwf-replay>).",
      });
    }
    const store = await ctx.store();
    const sources: { origin: string; bundle: string }[] = [];
    for (const value of from) {
      const path = resolve(ctx.cwd, value);
      if (statSync(path, { throwIfNoEntry: false })?.isFile()) {
        sources.push({ origin: value, bundle: readFileSync(path, "utf8") });
        continue;
      }
      if (/[\\/]|\.[a-z-]+$/i.test(value)) {
        throw new UwfError("USAGE", `--from ${value}: no such file`, {
          hint: "Pass a bundle made by `uwf thread export`, or a thread id of this store.",
        });
      }
      // With its fan-out children, as `thread export` bundles it: the replay's children answer
      // from theirs.
      const family = await engine.withFanoutChildren(store, [value]);
      const lines: string[] = [];
      for await (const line of engine.exportBundle(store, family)) lines.push(line);
      sources.push({ origin: `thread ${value}`, bundle: `${lines.join("\n")}\n` });
    }
    const workflow = await engine.resolveWorkflow(ref!, {
      cwd: ctx.cwd,
      cas: store.cas,
      registry: store.registry,
      validatorCacheDir: storeLib.validatorCacheDir(ctx.home),
      deferWrite: true,
    });
    for (const warning of workflow.warnings) ctx.progress(`warning: ${warning}`);
    const scratchHome = makeScratchHome(ctx.home);
    const scratch = await storeLib.openStore({ home: scratchHome });
    let doc: WorkflowTestDocument;
    try {
      const workflowHash =
        workflow.unstored === null
          ? workflow.hash
          : await engine.materialiseWorkflow(scratch.cas, workflow.unstored);
      ctx.progress(
        `replaying ${sources.length} recording${sources.length === 1 ? "" : "s"} through ${workflow.payload.name} (${workflowHash})${options.keep ? ` in ${scratchHome}` : ""}`,
      );
      doc = await engine.testWorkflow({
        scratch,
        workflowCas: workflow.unstored === null ? store.cas : scratch.cas,
        workflowHash,
        sources,
        replayCommand: replay,
        cwd: ctx.cwd,
        env: ctx.env,
        events: ctx.events,
        signal: ctx.signal,
      });
    } finally {
      await scratch.close();
      if (!options.keep) {
        rmSync(scratchHome, { recursive: true, force: true });
      }
    }
    if (ctx.signal.aborted) {
      throw new UwfError("INTERRUPTED", "interrupted: the workflow test stopped before its end", {
        hint: "Run it again; nothing was written to your store.",
      });
    }
    return result(doc, render, doc.ok ? ExitCode.ok : ExitCode.error);
  },
});

/**
 * A temporary uwf home for the scratch store. Its caches are the user's (links): both are keyed
 * by content (the bundle's build, the schema's hash), so each uwf-replay start reuses compiled
 * code and validators instead of making them again.
 */
function makeScratchHome(home: string): string {
  const scratch = mkdtempSync(join(nodeOs().tmpdir(), "uwf-workflow-test-"));
  mkdirSync(join(scratch, "cache"));
  for (const name of ["code", "validators"]) {
    try {
      const shared = join(home, "cache", name);
      mkdirSync(shared, { recursive: true });
      symlinkSync(shared, join(scratch, "cache", name), "dir");
    } catch {
      // No link (a read-only home, a filesystem without links): the replays only run slower.
    }
  }
  return scratch;
}

function render(doc: WorkflowTestDocument): string {
  const parentOf = new Map(doc.threads.map((t) => [t.thread, t.parent?.thread]));
  const depth = (t: WorkflowTestThread): number => {
    let n = 0;
    for (let p = t.parent?.thread; p !== undefined; p = parentOf.get(p)) n++;
    return n;
  };
  // A fan-out's children under their parent, indented by depth.
  const lines = doc.threads.map((t) =>
    renderThread(t)
      .split("\n")
      .map((line) => `${"  ".repeat(depth(t))}${line}`)
      .join("\n"),
  );
  const same = doc.threads.filter((t) => t.result === "same").length;
  lines.push(
    `${doc.ok ? "ok" : "FAILED"}: ${same} of ${doc.threads.length} thread${doc.threads.length === 1 ? "" : "s"} kept the same route under ${doc.workflow} (${doc.workflowHash})`,
  );
  return lines.join("\n");
}

function renderThread(t: WorkflowTestThread): string {
  const steps = `${t.recorded.length} step${t.recorded.length === 1 ? "" : "s"}`;
  const child = t.parent === undefined ? "" : `child ${t.parent.index} of ${t.parent.thread}, `;
  const head = `${t.parent === undefined ? "" : "↳ "}${t.thread} (${child}${t.origin}, ${steps}):`;
  if (t.result === "same") return `${head} same route (${routeText(t.replayed)})`;
  const label = { different: "different route", miss: "miss", stopped: "stopped" }[t.result];
  const lines = [`${head} ${label} at step ${t.step}: ${t.reason}`];
  lines.push(`  recorded: ${routeText(t.recorded)}`, `  replayed: ${routeText(t.replayed)}`);
  const nearest = t.miss?.nearest;
  if (t.miss && !nearest) lines.push(`  no recorded step of role \`${t.miss.role}\``);
  if (nearest) {
    const d = nearest.firstDifference;
    lines.push(
      `  nearest recorded prompt: step ${nearest.step} of ${nearest.origin} (${nearest.differentLines} line${nearest.differentLines === 1 ? "" : "s"} differ); first difference at line ${d.line}:`,
      `    recorded: ${JSON.stringify(d.recorded)}`,
      `    now:      ${JSON.stringify(d.now)}`,
    );
  }
  return lines.join("\n");
}

function routeText(steps: WorkflowTestThread["recorded"]): string {
  if (steps.length === 0) return "(no step)";
  return steps.map((s) => `${s.role} → ${s.status}`).join(", ");
}
