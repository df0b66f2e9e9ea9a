export { addHomeDotenv, readHomeDotenv } from "./env/dotenv.js";
export { diffThreads } from "./forks/diff.js";
export { forkTree } from "./forks/tree.js";
export { evaluate, startOutput, type Transition } from "./moderator/evaluate.js";
export { migrateStore, type StoreMigrateDocument } from "./store/migrate.js";
export {
  BUNDLE_FORMAT,
  type BundleHeader,
  exportBundle,
  openBundle,
  withFanoutChildren,
} from "./threads/bundle.js";
export { cancelledHint } from "./threads/cancelled-hint.js";
export { readStep, walkBack } from "./threads/chain.js";
export {
  commandLabel,
  DEFAULT_TIMEOUT_SECONDS,
  Engine,
  type EngineContext,
  type ExecSummary,
  execDocument,
  type PlannedStep,
  prevOf,
} from "./threads/engine.js";
export type { EngineEvent, EngineListener } from "./threads/events.js";
export {
  CHILD_STEP_LIMIT,
  childThreadId,
  DEFAULT_CONCURRENCY,
  type FanoutChildReport,
  type FanoutReport,
  fanoutChildren,
  JOIN_AGENT,
} from "./threads/fanout.js";
export {
  GREP_SCOPES,
  type GrepOptions,
  type GrepResult,
  type GrepScope,
  grepMatcher,
  grepThreads,
  type LineMatcher,
} from "./threads/grep.js";
export {
  answerOutput,
  answerThread,
  type HumanAnswer,
  type HumanQuestion,
  humanQuestion,
  isHumanRole,
  parseAnswerFile,
} from "./threads/human-answer.js";
export {
  type DroppedFields,
  type ImportedThread,
  type ImportOptions,
  type ImportReport,
  importBundle,
} from "./threads/import-bundle.js";
export {
  checkThreadInputs,
  collectThreadInputs,
  type InputSources,
} from "./threads/inputs.js";
export { takeThread } from "./threads/lease.js";
export { createThread, type NewThread } from "./threads/new-thread.js";
export {
  type PendingStep,
  pendingStep,
  replacesHead,
  rerunStep,
} from "./threads/pending-step.js";
export { stopChildGroup } from "./threads/processes.js";
export {
  findReplay,
  type NearestPrompt,
  nearestPrompt,
  openRecordings,
  type RecordedStep,
  type Recording,
  type RecordingSource,
  type ReplayHit,
  readRecording,
} from "./threads/recordings.js";
export { type RerouteSource, type RerouteWorkflow, rerouteThread } from "./threads/reroute.js";
export {
  budgetReached,
  checkFirstStep,
  type LiftedGuard,
  type RunOptions,
  runSteps,
  suspendedByFailure,
  terminalReason,
  waitsOnFanout,
} from "./threads/run-steps.js";
export { parseResult, scriptArgv } from "./threads/script-step.js";
export {
  commandNotFound,
  findExecutable,
  killRunningAdapters,
  runAdapter,
} from "./threads/spawn-adapter.js";
export { stopHolder, waitForRelease } from "./threads/stop-holder.js";
export { deriveStatus, type HolderState, liveHolder } from "./threads/thread-view.js";
export { renderStart, renderStep, renderTask } from "./threads/transcript.js";
export { StepRejected, verifyStep } from "./threads/verify-step.js";
export { type VerifySource, verifyThread } from "./threads/verify-thread.js";
export {
  testWorkflow,
  type WorkflowTestOptions,
  type WorkflowTestSource,
} from "./threads/workflow-test.js";
export { type UsageQuery, usageReport } from "./usage/report.js";
export { addToTotal, emptyTotal, mergeTotals } from "./usage/total.js";
export {
  CHILD_END_PROMPT,
  CHILD_RESUME_PROMPT,
  CHILD_START_PROMPT,
  childRoleWorkflow,
  type FanoutDefinition,
  JOIN_FIELDS,
  JOIN_OUTPUT_FIELDS,
  JOIN_STATUSES,
} from "./workflow/fanout.js";
export type { FanoutStore, FanoutWorkflow } from "./workflow/fanout-resolve.js";
export { INPUTS_FIELD } from "./workflow/inputs.js";
export { workflowInvalidError } from "./workflow/invalid.js";
export { type LoadedWorkflowFile, loadWorkflowFile, MAX_ALIAS_COUNT } from "./workflow/load.js";
export {
  type MaterialiseStore,
  materialiseWorkflow,
  toWorkflowPayload,
} from "./workflow/materialise.js";
export {
  type LoadedWorkflow,
  loadAndValidate,
  type ResolveContext,
  type ResolvedWorkflow,
  resolveWorkflow,
  type WorkflowSource,
} from "./workflow/resolve.js";
export {
  type ExitOutput,
  type RoleExits,
  readRoleExits,
  requireRoleExits,
} from "./workflow/role-exits.js";
export { discardingCas, schemaProblems } from "./workflow/schema-check.js";
export type { SchemaMap } from "./workflow/schema-shape.js";
export { shadowWarning, workflowsDirOf } from "./workflow/shadow.js";
export {
  type EdgeDefinition,
  type GraphDefinition,
  impliedWorkflowName,
  type RoleDefinition,
  type ValidateOptions,
  validateWorkflow,
  type WorkflowDefinition,
  type WorkflowValidation,
} from "./workflow/validate.js";
export {
  createThreadWorktree,
  ensureChildWorktree,
  forkThreadWorktree,
  isInside,
  removeThreadWorktree,
  repositoryOf,
  type WorktreePlace,
  type WorktreeRemoval,
  worktreeBranch,
  worktreePath,
} from "./worktrees/git-worktree.js";
