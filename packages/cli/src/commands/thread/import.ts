import { statSync } from "node:fs";
import { resolve, sep } from "node:path";
import type { ThreadImportDocument } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { inputChunks } from "../cas/read-input.js";
import { defineCommand, result } from "../command.js";

type Entry = ThreadImportDocument["threads"][number];

const MIB = 1024 * 1024;

export default defineCommand({
  path: ["thread", "import"],
  summary: "bring threads from a bundle into this store, verified before anything is written",
  description:
    "Every node of the bundle must hash to its name, every thread must pass `uwf thread verify` against the bundle alone, and each pointer must agree with its chain (workflow, last role, suspension, and a status: `completed` only when the head leads to $END, never `idle` when it does), and each fan-out child must be the thread its parent's fan-out makes for its item (the parent in the bundle, or already here); otherwise nothing is written. A thread already here stays as it is when it is at the same step or further on, and is fast-forwarded when the bundle's chain goes on from it (not while it runs); another history is refused, naming where the two part. Only the chain's state is taken: an imported thread runs in --cwd with this store's agents. The output lists what the bundle remembered and was not taken (its agent, cwd and git worktree are another machine's), and names the workflows whose roles run commands of their own, to read before `uwf thread exec`.",
  args: [{ name: "file", description: 'the bundle ("-": stdin)' }],
  options: [
    {
      flags: "--cwd <dir>",
      type: "string",
      description:
        "where the imported threads run from now on (default: the current directory; a fan-out child in a subfolder of its parent's cwd keeps that subfolder)",
    },
    {
      flags: "--max-line-mib <n>",
      type: "integer",
      min: 1,
      description:
        "the longest line (one node) read, in MiB (default: 64): a longer one stops the import before it is held",
    },
    {
      flags: "--max-mib <n>",
      type: "integer",
      min: 1,
      description:
        "the most of the bundle read, in MiB (default: 1024): the bundle is checked whole in memory before anything is written",
    },
  ],
  examples: ["uwf thread import run.uwf-bundle", "uwf thread import run.uwf-bundle --cwd /src/app"],
  async run(ctx, [file], options) {
    const cwdGiven = options.cwd !== undefined;
    const cwd = resolve(ctx.cwd, (options.cwd as string | undefined) ?? ".");
    if (!isDirectory(cwd)) {
      throw new UwfError("USAGE", `--cwd "${cwd}" is not an existing directory`, {
        hint: "Create the directory first or pass another one.",
      });
    }
    const { DEFAULT_BUNDLE_LIMITS, importBundle } = await import("@united-workforce/engine");
    const store = await ctx.store();
    const { maxLineMib, maxMib } = options as { maxLineMib?: number; maxMib?: number };
    const doc: ThreadImportDocument = await importBundle(store, inputChunks(ctx.cwd, file), {
      cwd,
      events: ctx.events,
      limits: {
        maxLineBytes: (maxLineMib ?? DEFAULT_BUNDLE_LIMITS.maxLineBytes / MIB) * MIB,
        maxTotalBytes: (maxMib ?? DEFAULT_BUNDLE_LIMITS.maxTotalBytes / MIB) * MIB,
      },
    });
    for (const t of doc.threads) {
      if (t.status === "imported" || t.status === "fast-forwarded") {
        ctx.events.emit("thread.import", {
          thread: t.thread,
          status: t.status,
          head: t.head,
          ...(t.from && { from: t.from }),
          ...(t.dropped && { dropped: Object.keys(t.dropped) }),
        });
      }
    }
    return result(doc, (d) =>
      [
        ...d.threads.flatMap((t) => [
          `${t.thread}: ${outcome(t)}`,
          ...droppedLines(t),
          ...placeLines(t, cwdGiven ? cwd : null),
        ]),
        ...d.scripts.map(
          (s) =>
            `note: workflow "${s.workflow}" (${s.hash}) runs commands of its own in role${s.roles.length === 1 ? "" : "s"} ${s.roles.join(", ")}: read them with \`uwf workflow show ${s.hash}\` before \`uwf thread exec\``,
        ),
        `${d.nodes} nodes in the bundle, ${d.nodesWritten} new here`,
      ].join("\n"),
    );
  },
});

function outcome(t: Entry): string {
  const steps = `${t.steps} step${t.steps === 1 ? "" : "s"}`;
  switch (t.status) {
    case "imported":
      return `imported (${steps}, head ${t.head}), runs in ${t.cwd}`;
    case "fast-forwarded":
      return `fast-forwarded by ${t.by} step${t.by === 1 ? "" : "s"} (head ${t.from} → ${t.head}, ${steps})`;
    case "ahead":
      return `this store's thread is ${t.by} step${t.by === 1 ? "" : "s"} ahead of the bundle; nothing to import (head ${t.head}, ${steps})`;
    default:
      return t.bundleStatus === undefined
        ? `already here, unchanged (${steps}, head ${t.head})`
        : `already here, unchanged (${steps}, head ${t.head}); it is ${t.bundleStatus} in the bundle, and this store's status is kept`;
  }
}

/** What of the bundle's pointer was not taken, one line each, under the thread's line. */
function droppedLines(t: Entry): string[] {
  const dropped = t.dropped ?? {};
  const lines: string[] = [];
  if (dropped.agent !== undefined) {
    lines.push(
      `  not taken: the agent it remembered, ${JSON.stringify(dropped.agent)} (exec uses this store's config, or --agent)`,
    );
  }
  if (dropped.cwd !== undefined) {
    lines.push(`  not taken: its cwd ${dropped.cwd} (it runs in ${t.cwd})`);
  }
  if (dropped.worktree !== undefined) {
    lines.push(`  not taken: its git worktree ${dropped.worktree} (the other machine's)`);
  }
  if (dropped.location !== undefined) {
    lines.push(
      `  not taken: its suspension's location ${dropped.location} (a retry runs in ${t.cwd})`,
    );
  }
  return lines;
}

/**
 * Where the thread runs, when it is not where the importer may think: a folder that does not
 * exist here (a fan-out child's subfolder), or a --cwd that a thread already here does not take.
 */
function placeLines(t: Entry, cwdGiven: string | null): string[] {
  if (t.status !== "imported") {
    const taken = cwdGiven === null || t.cwd === cwdGiven || t.cwd.startsWith(`${cwdGiven}${sep}`);
    return taken
      ? []
      : [`  --cwd not used: the thread was already here, and runs in ${t.cwd} as before`];
  }
  return isDirectory(t.cwd)
    ? []
    : [
        `  note: it runs in ${t.cwd}, which does not exist here: create it before \`uwf thread exec\``,
      ];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
