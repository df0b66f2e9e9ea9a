import type {
  StepPayload,
  ThreadPointer,
  ThreadProblem,
  ThreadVerifyNote,
  ThreadVerifyReport,
} from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { type GitEnv, GitFailure, runGit } from "./git.js";

/**
 * Where `thread verify` looks recorded objects up: `--repo <dir>` (which must be a git working
 * tree), the thread's cwd when it is one, or nowhere (a bundle's cwd is another machine's).
 */
export interface GitCheckOptions {
  lookUp: { repo: string } | "thread cwd" | "nowhere";
  env: GitEnv;
}

/** One commit or tree a step recorded. */
interface Recorded {
  id: string;
  kind: "commit" | "tree";
  when: "before" | "after";
  step: number;
  hash: string;
}

/**
 * A verified thread's report with what its steps' git records say (docs/receipts.md): a
 * step whose working tree before is not the one the step before it left is a note (someone or
 * something changed the tree between them), not a failure; and every recorded commit and tree
 * is looked up in the repository (see `GitCheckOptions`): one
 * that is not there, or is not a commit or tree, is a `git` problem that names it. Only a
 * report that passed is read further: a chain that fails its hash check is not evidence.
 */
export async function withGitChecks(
  cas: Cas,
  pointer: ThreadPointer,
  report: ThreadVerifyReport,
  options: GitCheckOptions,
): Promise<ThreadVerifyReport> {
  if (!report.ok) return report;
  // Read again after the verification, which left the chain's nodes in the CAS's memory: no
  // read-ahead, no round trip for a thread of ordinary length.
  const steps: { hash: string; step: StepPayload }[] = [];
  for (let hash = pointer.head === pointer.start ? null : pointer.head; hash !== null; ) {
    const step = await cas.getPayload<StepPayload>(hash, "step");
    steps.push({ hash, step });
    hash = step.prev;
  }
  steps.reverse();
  const notes: ThreadVerifyNote[] = [];
  const recorded: Recorded[] = [];
  let lastTree: { tree: string; number: number } | null = null;
  for (const [index, { hash, step }] of steps.entries()) {
    const number = index + 1;
    const { git } = step;
    if (git === undefined) continue;
    if (lastTree !== null && git.before.tree !== lastTree.tree) {
      notes.push({
        hash,
        step: number,
        note: `the working tree changed after step ${lastTree.number}: it left tree ${lastTree.tree}, step ${number} began with ${git.before.tree}`,
      });
    }
    lastTree = { tree: git.after.tree, number };
    for (const when of ["before", "after"] as const) {
      const state = git[when];
      if (state.commit !== null) {
        recorded.push({ id: state.commit, kind: "commit", when, step: number, hash });
      }
      recorded.push({ id: state.tree, kind: "tree", when, step: number, hash });
    }
  }
  // No git is asked about a thread that recorded nothing (`verify --all` of many threads).
  const repo = recorded.length === 0 ? null : await repositoryFor(options, pointer.cwd);
  const problems: ThreadProblem[] = [...report.problems];
  if (repo !== null) problems.push(...(await lookUp(repo, options.env, recorded)));
  const checked: ThreadVerifyReport = { ...report, ok: problems.length === 0, problems };
  if (notes.length > 0) checked.notes = notes;
  if (repo !== null) checked.repo = repo;
  return checked;
}

/** The top folder of the repository to look objects up in, or null for none. */
async function repositoryFor(options: GitCheckOptions, cwd: string): Promise<string | null> {
  const { lookUp } = options;
  if (lookUp === "nowhere") return null;
  const dir = lookUp === "thread cwd" ? cwd : lookUp.repo;
  try {
    const said = await runGit(["rev-parse", "--show-toplevel"], { cwd: dir, env: options.env });
    return said.trim();
  } catch (error) {
    if (lookUp === "thread cwd") return null;
    const why = error instanceof GitFailure ? error.message : String(error);
    throw new UwfError("USAGE", `--repo ${dir} is not a git working tree: ${why}`, {
      hint: "pass the folder of the repository the thread ran in (its clone), e.g. --repo .",
    });
  }
}

/** The recorded objects the repository does not hold as what they were recorded as. */
async function lookUp(
  repo: string,
  env: GitEnv,
  recorded: readonly Recorded[],
): Promise<ThreadProblem[]> {
  const ids = [...new Set(recorded.map((r) => r.id))];
  let out: string;
  try {
    // One git for them all: `<id> <type> <size>`, or `<id> missing`, a line each, in order.
    out = await runGit(["cat-file", "--batch-check"], {
      cwd: repo,
      env,
      input: `${ids.join("\n")}\n`,
    });
  } catch (error) {
    if (!(error instanceof GitFailure)) throw error;
    throw new UwfError(
      "GIT_FAILED",
      `cannot look up the recorded commits and trees: ${error.message}`,
      {
        hint: "fix what git says, or leave the repository out (verify without --repo, from another folder)",
      },
    );
  }
  const found = new Map<string, string>();
  for (const line of out.split("\n")) {
    const [id, type] = line.split(" ");
    if (id && type) found.set(id, type);
  }
  const problems: ThreadProblem[] = [];
  for (const r of recorded) {
    const type = found.get(r.id) ?? "missing";
    if (type === r.kind) continue;
    const where = `the ${r.kind} step ${r.step} recorded ${r.when} it ran, ${r.id},`;
    problems.push({
      hash: r.hash,
      step: r.step,
      kind: "git",
      reason:
        type === "missing"
          ? `${where} is not in the repository ${repo}`
          : `${where} is a ${type} in the repository ${repo}, not a ${r.kind}`,
    });
  }
  return problems;
}
