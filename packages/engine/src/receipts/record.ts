import { type StepGit, type StepPayload, stepNodeKind } from "@united-workforce/protocol";
import { errorMessage } from "@united-workforce/util";
import type { RunContext } from "../steps/context.js";
import type { AgentStepOutcome } from "../steps/outcome.js";
import { GitFailure } from "./git.js";
import { diffStat, snapshotWorkingTree, type WorkingTree } from "./snapshot.js";

/** Where the receipt of a step is taken, and which step it is (for a warning). */
export interface ReceiptPlace {
  thread: string;
  role: string;
  cwd: string;
}

/**
 * A step's receipt, begun before the step runs: the working tree then. `finish` takes the
 * tree after, and stores the step again with both and the diff stat between them (the
 * `git` field of its StepNode), so the head moves to a step that says what it changed. A cwd
 * in no git working tree records nothing; a git that fails records nothing and says why in a
 * `step.receipt-failed` warning: a receipt never fails its step.
 */
export class StepReceipt {
  private constructor(
    private readonly run: Run,
    private readonly place: ReceiptPlace,
    private readonly before: WorkingTree | null,
  ) {}

  static async begin(run: Run, place: ReceiptPlace): Promise<StepReceipt> {
    const before = await attempt(run, place, () => snapshotWorkingTree(place.cwd, run.env));
    return new StepReceipt(run, place, before);
  }

  /** The outcome with its step stored again with its receipt, when it stored a step. */
  async finish(outcome: AgentStepOutcome): Promise<AgentStepOutcome> {
    const { before, run } = this;
    if (outcome.kind !== "stored" || before === null) return outcome;
    const git = await attempt(run, this.place, async (): Promise<StepGit | null> => {
      const after = await snapshotWorkingTree(this.place.cwd, run.env, before);
      if (after === null) return null;
      return {
        before: { commit: before.commit, tree: before.tree },
        after: { commit: after.commit, tree: after.tree },
        diffStat: await diffStat(before.root, run.env, before.tree, after.tree),
      };
    });
    if (git === null) return outcome;
    const payload: StepPayload = { ...outcome.verified.payload, git };
    const { cas } = run.store;
    const hash = await cas.put(cas.builtin(stepNodeKind(payload)), payload);
    return { ...outcome, verified: { ...outcome.verified, hash, payload } };
  }
}

type Run = Pick<RunContext, "store" | "events" | "env">;

/** What `take` gives, or null with a warning when git (or the scratch folder) fails. */
async function attempt<T>(
  run: Run,
  place: ReceiptPlace,
  take: () => Promise<T | null>,
): Promise<T | null> {
  try {
    return await take();
  } catch (error) {
    const reason = error instanceof GitFailure ? error.message : errorMessage(error);
    run.events.emit("step.receipt-failed", { ...place, reason });
    return null;
  }
}
