import type {
  StepGit,
  ThreadProblem,
  ThreadVerifyNote,
  ThreadVerifyReport,
} from "@united-workforce/protocol";
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

/** A step's git record as `thread verify` met it on its walk. */
export interface RecordedGit {
  hash: string;
  /** The step's number: 1 for the thread's first. */
  step: number;
  git: StepGit;
}

/**
 * A verified thread's report with what its steps' git records say (docs/receipts.md): a
 * step whose working tree before is not the one the step before it left is a note (someone or
 * something changed the tree between them), not a failure; and every recorded commit and tree
 * is looked up in the repository (see `GitCheckOptions`): one that is not there, or is not a
 * commit or tree, is a `git` problem that names it. Only a report that passed is read further:
 * a chain that fails its hash check is not evidence. `records`: the walk's, in any order.
 */
export async function withGitChecks(
  report: ThreadVerifyReport,
  cwd: string,
  records: readonly RecordedGit[],
  options: GitCheckOptions,
): Promise<ThreadVerifyReport> {
  if (!report.ok || records.length === 0) return report;
  const steps = [...records].sort((a, b) => a.step - b.step);
  const notes: ThreadVerifyNote[] = [];
  const recorded: Recorded[] = [];
  let last: RecordedGit | null = null;
  for (const { hash, step, git } of steps) {
    // Steps in between that recorded nothing (outside any working tree) break no chain.
    if (last !== null && git.before.tree !== last.git.after.tree) {
      notes.push({
        hash,
        step,
        note: `the working tree changed after step ${last.step}: it left tree ${last.git.after.tree}, step ${step} began with ${git.before.tree}`,
      });
    }
    last = { hash, step, git };
    for (const when of ["before", "after"] as const) {
      const state = git[when];
      if (state.commit !== null)
        recorded.push({ id: state.commit, kind: "commit", when, step, hash });
      recorded.push({ id: state.tree, kind: "tree", when, step, hash });
    }
  }
  const repo = await repositoryFor(options, cwd);
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
