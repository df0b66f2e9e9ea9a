import {
  IN_TOTO_STATEMENT_TYPE,
  isPlainObject,
  RECEIPT_PREDICATE_TYPE,
  type ReceiptStatement,
  type ReceiptStep,
  type ReceiptSubject,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { docsUrl, isoTime, UwfError } from "@united-workforce/util";
import { readRecordedSteps } from "../history/chain.js";

/** What a receipt is derived from: a thread's id and the head it names, and a CAS holding it. */
export interface ReceiptSource {
  thread: string;
  start: string;
  head: string;
  workflowHash: string;
}

/**
 * A thread's receipt at `head`: an in-toto Statement v1 whose subjects are every git commit and
 * tree its steps recorded (each once, oldest first) and whose predicate is each step as
 * evidence. It reads the chain alone (the steps, their outputs and details, the workflow), so
 * the store and an export bundle of the thread give the same statement. A thread none of whose
 * steps ran in a git working tree has nothing to attest: RECEIPT_EMPTY.
 */
export async function receiptStatement(cas: Cas, source: ReceiptSource): Promise<ReceiptStatement> {
  const workflow = await cas.getPayload<WorkflowPayload>(source.workflowHash, "workflow");
  const chain = await readRecordedSteps(cas, source.head === source.start ? null : source.head);
  const steps: ReceiptStep[] = [];
  for (const [index, { hash, step, output }] of chain.entries()) {
    if (step.start !== source.start) {
      throw new UwfError("THREAD_CORRUPT", `step ${hash} belongs to another thread`, {
        hint: `run \`uwf thread verify ${source.thread}\` to see what is wrong with its history`,
      });
    }
    const detail = await cas.getPayload<Record<string, unknown>>(step.detail);
    steps.push({
      number: index + 1,
      step: hash,
      role: step.role,
      status: typeof output.$status === "string" ? output.$status : "",
      agent: { name: step.agent, version: agentVersionOf(detail) },
      model: stringOrNull(detail.model),
      usage: step.usage,
      prompt: step.assembledPrompt,
      output: step.output,
      startedAt: isoTime(step.startedAtMs),
      completedAt: isoTime(step.completedAtMs),
      git: step.git ?? null,
    });
  }
  const subject = subjectsOf(steps);
  if (subject.length === 0) {
    throw new UwfError(
      "RECEIPT_EMPTY",
      `no step of thread ${source.thread} ran in a git working tree: a receipt has no commit or tree to name`,
      {
        hint: `uwf records a step's commit and tree when its cwd is inside a git working tree (${docsUrl("receipts.md")}); start the thread there, or with --worktree.`,
      },
    );
  }
  return {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject,
    predicateType: RECEIPT_PREDICATE_TYPE,
    predicate: {
      thread: source.thread,
      workflow: { name: workflow.name, hash: source.workflowHash },
      start: source.start,
      head: source.head,
      steps,
    },
  };
}

/** Every commit and tree the steps recorded, before and after, each once, oldest first. */
function subjectsOf(steps: readonly ReceiptStep[]): ReceiptSubject[] {
  const subjects: ReceiptSubject[] = [];
  const seen = new Set<string>();
  const add = (subject: ReceiptSubject, id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    subjects.push(subject);
  };
  for (const { git } of steps) {
    if (git === null) continue;
    for (const state of [git.before, git.after]) {
      if (state.commit !== null) {
        add({ name: "git-commit", digest: { gitCommit: state.commit } }, `c${state.commit}`);
      }
      add({ name: "git-tree", digest: { gitTree: state.tree } }, `t${state.tree}`);
    }
  }
  return subjects;
}

/**
 * The version of the agent a step's detail names, where its adapter recorded one: the CLI's
 * own (`claudeVersion` of uwf-claude-code, the ACP agent's `agentInfo` of uwf-acp), or an
 * `agentVersion` any adapter may write. Null when none did.
 */
function agentVersionOf(detail: Record<string, unknown>): string | null {
  const info = detail.agentInfo;
  return (
    stringOrNull(detail.agentVersion) ??
    stringOrNull(detail.claudeVersion) ??
    (isPlainObject(info) ? stringOrNull(info.version) : null)
  );
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
