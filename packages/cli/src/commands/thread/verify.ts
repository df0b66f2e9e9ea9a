import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  ExitCode,
  type ThreadVerifyDocument,
  type ThreadVerifyReport,
} from "@united-workforce/protocol";
import { validatorCacheDir } from "@united-workforce/store";
import { ioError, UwfError } from "@united-workforce/util";
import { type CommandContext, defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["thread", "verify"],
  summary:
    "prove a thread's history: re-hash every node, check links, schemas and routes (exit 1 if any fails)",
  description:
    "Steps that ran in a git working tree recorded its tree before and after them: a step that began on another tree than the one the step before it left is noted (the tree changed between them), not failed. The recorded commits and trees are looked up in --repo, else in the thread's cwd when it is a git working tree: one that is missing, or is not a commit or tree, fails. --receipt checks a receipt (`uwf thread receipt`) against the history it claims, in this store or, offline, in an export bundle (--bundle).",
  args: [{ name: "thread", type: "thread", description: "thread id", required: false }],
  options: [
    { flags: "--all", type: "boolean", description: "verify every thread" },
    {
      flags: "--repo <dir>",
      type: "string",
      description:
        "the git repository to look the steps' recorded commits and trees up in (default: the thread's cwd, when it is one)",
    },
    {
      flags: "--receipt <file>",
      type: "string",
      description:
        "a receipt to check: derived again from the thread it names, it must be the same",
    },
    {
      flags: "--bundle <file>",
      type: "string",
      description:
        "with --receipt: read the thread from this export bundle (`uwf thread export`) instead of the store",
    },
  ],
  examples: [
    "uwf thread verify 01JD…",
    "uwf thread verify --all --format json",
    "uwf thread verify 01JD… --repo ~/src/app",
    "uwf thread verify --receipt receipt.json --bundle run.uwf-bundle",
  ],
  async run(ctx, [thread], options) {
    if (options.receipt !== undefined) return verifyReceiptFile(ctx, thread, options);
    if (options.bundle !== undefined) {
      throw new UwfError("USAGE", "--bundle reads the thread a receipt names: pass --receipt too", {
        hint: "uwf thread verify --receipt <receipt.json> --bundle <bundle>",
      });
    }
    if ((thread === undefined) === !options.all) {
      throw new UwfError("USAGE", "name one thread, or pass --all (not both)", {
        hint: "uwf thread verify <thread>, or uwf thread verify --all",
      });
    }
    const { verifyAllThreads, verifyThread } = await import("@united-workforce/engine");
    const store = await ctx.store();
    const git = gitLookUp(ctx, options.repo, "thread cwd");
    const threads: ThreadVerifyReport[] = [];
    if (thread !== undefined) threads.push(await verifyThread(store, thread, git));
    else {
      // A whole-store pass anyway: the filesystem's list index is rebuilt on the way.
      await store.threads.reindex();
      if (ctx.format === "text") {
        // A line a thread as it is verified: nothing kept per thread, however big the store.
        let ok = true;
        for await (const report of verifyAllThreads(store, git)) {
          ok &&= report.ok;
          ctx.output(`${renderOne(report)}\n`);
        }
        const exitCode = ok ? ExitCode.ok : ExitCode.error;
        return { document: { ok, threads: [] }, text: () => "", exitCode, printed: true };
      }
      for await (const report of verifyAllThreads(store, git)) threads.push(report);
    }
    const ok = threads.every((t) => t.ok);
    const exitCode = ok ? ExitCode.ok : ExitCode.error;
    const doc: ThreadVerifyDocument = { ok, threads };
    return result(doc, (d) => d.threads.map(renderOne).join("\n"), exitCode);
  },
});

/** Where recorded commits and trees are looked up: `--repo`, else `fallback`. */
function gitLookUp(
  ctx: Pick<CommandContext, "cwd" | "env">,
  repo: string | undefined,
  fallback: "thread cwd" | "nowhere",
) {
  const lookUp = repo === undefined ? fallback : { repo: resolve(ctx.cwd, repo) };
  return { lookUp, env: ctx.env };
}

/** `--receipt <file> [--bundle <file>]`: the receipt's thread verified, the receipt compared. */
async function verifyReceiptFile(
  ctx: CommandContext,
  thread: string | undefined,
  options: { receipt?: string; bundle?: string; repo?: string; all?: boolean },
) {
  if (options.all) {
    throw new UwfError("USAGE", "--receipt checks the one thread its receipt names, not --all", {
      hint: "uwf thread verify --receipt <receipt.json> [--bundle <bundle>]",
    });
  }
  const { openBundle, verifyReceipt } = await import("@united-workforce/engine");
  const file = resolve(ctx.cwd, options.receipt!);
  const receipt = readJson(file);
  const bundle = options.bundle === undefined ? null : resolve(ctx.cwd, options.bundle);
  // A bundle's threads ran on another machine: their cwd says nothing here.
  const git = gitLookUp(ctx, options.repo, bundle === null ? "thread cwd" : "nowhere");
  const source =
    bundle === null
      ? await ctx.store()
      : await openBundle(readBundle(bundle), validatorCacheDir(ctx.home));
  const { report, check } = await verifyReceipt(source, receipt, git);
  if (thread !== undefined && thread !== check.thread) {
    throw new UwfError("USAGE", `the receipt is thread ${check.thread}'s, not ${thread}'s`, {
      hint: "leave the thread out: --receipt verifies the thread its receipt names",
    });
  }
  const ok = report.ok && check.ok;
  const doc: ThreadVerifyDocument = {
    ok,
    threads: [report],
    receipt: { file, bundle, ...check },
  };
  return result(
    doc,
    (d) => [renderOne(report), renderReceipt(d.receipt!)].join("\n"),
    ok ? ExitCode.ok : ExitCode.error,
  );
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw ioError(error, file);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UwfError("RECEIPT_INVALID", `${file} is not JSON`, {
      hint: "a receipt is what `uwf thread receipt <thread>` writes",
    });
  }
}

function readBundle(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw ioError(error, file);
  }
}

function renderReceipt(receipt: NonNullable<ThreadVerifyDocument["receipt"]>): string {
  const from = receipt.bundle === null ? "this store" : receipt.bundle;
  if (receipt.ok) {
    return `receipt ${receipt.file}: ok (the same as derived from ${from} at step ${receipt.head})`;
  }
  return [
    `receipt ${receipt.file}: FAILED (not what ${from} gives at step ${receipt.head})`,
    ...receipt.differences.map((d) => `  ${d}`),
  ].join("\n");
}

function renderOne(doc: ThreadVerifyReport): string {
  const counted = `${doc.steps} step${doc.steps === 1 ? "" : "s"}, ${doc.nodes} nodes`;
  const checkedIn =
    doc.repo === undefined ? "" : `, recorded commits and trees found in ${doc.repo}`;
  const notes = (doc.notes ?? []).map((n) => `  note: step ${n.step} ${n.hash}: ${n.note}`);
  if (doc.ok) {
    return [`${doc.thread}: ok (${counted} re-hashed and checked${checkedIn})`, ...notes].join(
      "\n",
    );
  }
  const [first] = doc.problems;
  const lines = [
    `${doc.thread}: FAILED (${counted} checked; ${doc.problems.length} problem${doc.problems.length === 1 ? "" : "s"})`,
  ];
  for (const problem of doc.problems) {
    const where = problem.step === null ? "" : `step ${problem.step} `;
    const marker = problem === first ? "first bad node" : "also";
    lines.push(`  ${marker}: ${where}${problem.hash} (${problem.kind}) ${problem.reason}`);
  }
  return [...lines, ...notes].join("\n");
}
