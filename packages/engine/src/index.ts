// The engine's public surface: the Runner (one entry per use case), then what the CLI and the
// web view read of threads, their history and workflows. README.md says what each part is for.
export { addHomeDotenv } from "./env/dotenv.js";
export { diffThreads } from "./forks/diff.js";
export { forkTree } from "./forks/tree.js";
export { ChainReadAhead, STEP_TYPES, withPrefetchedHeads } from "./history/batched-walk.js";
export {
  type BundleLimits,
  DEFAULT_BUNDLE_LIMITS,
  exportBundle,
  openBundle,
  withFanoutChildren,
} from "./history/bundle.js";
export { readStep, threadStarts, walkBack } from "./history/chain.js";
export {
  type GrepOptions,
  type GrepScope,
  grepMatcher,
  grepThreads,
} from "./history/grep.js";
export { type ImportReport, importBundle } from "./history/import/import-bundle.js";
export {
  planRebase,
  type RebasedChild,
  type RebasedThread,
  rebasesFanoutChildren,
  writeRebase,
} from "./history/rebase.js";
export { findReplay, nearestPrompt, openRecordings } from "./history/recordings.js";
export { rerouteThread } from "./history/reroute.js";
export { renderStart, renderStep, renderTask } from "./history/transcript.js";
export { verifyAllThreads, verifyThread } from "./history/verify-thread.js";
export { checkReceipt, type ReceiptCheck, verifyReceipt } from "./receipts/check-receipt.js";
export { receiptStatement } from "./receipts/statement.js";

export type { BackgroundStart } from "./runner/exec.js";
export type { LastRun } from "./runner/last-run.js";
export type { NextRequest } from "./runner/next.js";
export type { PendingStep } from "./runner/plans.js";
export { Runner, type RunnerOptions } from "./runner/runner.js";
export { terminalReason } from "./runner/stop-reasons.js";
export type { ExecSummary } from "./runner/summary.js";
export type { AnswerDocument, RunRequest, RunResult } from "./runner/types.js";
export {
  testWorkflow,
  type WorkflowTestOptions,
  type WorkflowTestSource,
} from "./runner/workflow-test/workflow-test.js";
export { DEFAULT_TIMEOUT_SECONDS } from "./steps/agent-step.js";
export type { FanoutChildReport, FanoutReport } from "./steps/fanout/child-standing.js";
export { type HumanAnswer, parseAnswerFile } from "./steps/human-step.js";
export { migrateStore, type StoreMigrateDocument } from "./store/migrate.js";
export { collectThreadInputs } from "./threads/inputs.js";
export { createThread, type NewThread } from "./threads/new-thread.js";
export {
  type Promotion,
  promoteFork,
  type RaceOfThread,
  racesOf,
  recordRace,
} from "./threads/race.js";
export { GUIDANCE_HEADING, recordedGuidance, steerThread } from "./threads/steer.js";
export { deriveStatus, type HolderState, liveHolder } from "./threads/thread-view.js";
export {
  familyTrace,
  type SpanAttributeValue,
  type TraceScope,
  type TraceSpan,
  threadTrace,
} from "./trace/thread-trace.js";
export {
  declaresGithubEvent,
  describeGithubEvent,
  eventNotDeclared,
  type GithubEvent,
  type GithubEventMatch,
  type GithubEventRefusal,
  githubEventName,
  loadTriggeredWorkflow,
  matchGithubEvent,
  startTriggeredThread,
  type TriggeredStart,
  type TriggeredWorkflow,
  triggeredThreadId,
} from "./triggers/github.js";
export { type UsageQuery, usageReport } from "./usage/report.js";
export type { RoleDefinition, WorkflowDefinition, WorkflowSource } from "./workflow/definition.js";
export { workflowInvalidError } from "./workflow/invalid.js";
export { type MaterialiseStore, materialiseWorkflow } from "./workflow/materialise.js";
export type { WorkflowProblem } from "./workflow/problem-positions.js";
export {
  type LoadedWorkflow,
  loadAndValidate,
  type ResolvedWorkflow,
  resolveWorkflow,
} from "./workflow/resolve.js";
export {
  type ExitOutput,
  type RoleExits,
  requireRoleExits,
} from "./workflow/role-exits.js";
export type { SchemaMap } from "./workflow/schema-shape.js";
export { shadowWarning, workflowsDirOf } from "./workflow/shadow.js";
export { validateWorkflow } from "./workflow/validate.js";
export {
  createThreadWorktree,
  forkThreadWorktree,
  isInside,
  removeThreadWorktree,
  type WorktreePlace,
} from "./worktrees/git-worktree.js";
