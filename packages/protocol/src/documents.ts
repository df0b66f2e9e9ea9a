/**
 * `--format json` documents (DESIGN §13), derived from their schemas in document-schemas.ts.
 * Keys are stable: more may be added, none renamed. Times are ISO 8601 UTC strings, durations
 * milliseconds.
 */
import type { DocumentName, DocumentSchemaSet, DocumentSchemas } from "./document-schemas.js";
import type { FromSchema } from "./from-schema.js";

/** The document each command prints with `--format json`, by the command's words. */
export type CommandDocuments = {
  [Name in DocumentName]: FromSchema<DocumentSchemas[Name]>;
};

/** The document of the command `uwf <words>`, e.g. `DocumentOf<"thread exec">`. */
export type DocumentOf<Name extends DocumentName> = CommandDocuments[Name];

export type ErrorDocument = DocumentOf<"error">;

export type WorkflowDocument = Omit<DocumentOf<"workflow add">, "changed" | "versions">;
export type WorkflowAddDocument = DocumentOf<"workflow add">;
export type WorkflowValidateDocument = DocumentOf<"workflow validate">;
export type WorkflowShowDocument = DocumentOf<"workflow show">;
export type WorkflowListDocument = DocumentOf<"workflow list">;
export type WorkflowHistoryDocument = DocumentOf<"workflow history">;
export type WorkflowRemoveDocument = DocumentOf<"workflow rm">;
export type WorkflowTestDocument = DocumentOf<"workflow test">;
export type WorkflowTestThread = FromSchema<DocumentSchemaSet["workflowTestThreadSchema"]>;

export type ThreadStartDocument = DocumentOf<"thread start">;
export type ThreadExecDocument = DocumentOf<"thread exec">;
export type ExecStepResult = ThreadExecDocument["steps"][number];
export type StoppedBecause = ThreadExecDocument["stoppedBecause"];
export type ThreadShowDocument = DocumentOf<"thread show">;
export type ThreadListDocument = DocumentOf<"thread list">;
export type StoreReindexDocument = DocumentOf<"store reindex">;
export type ThreadListEntry = ThreadListDocument["threads"][number];
export type ThreadReadDocument = DocumentOf<"thread read">;
export type ThreadStopDocument = DocumentOf<"thread stop">;
export type ThreadTreeDocument = DocumentOf<"thread tree">;
export type ThreadTreeEntry = ThreadTreeDocument["threads"][number];
export type ThreadDiffDocument = DocumentOf<"thread diff">;
export type ThreadDiffSide = ThreadDiffDocument["sides"][number];
export type ThreadDiffStep = ThreadDiffSide["steps"][number];
export type UsageDocument = DocumentOf<"usage">;
export type UsageRow = UsageDocument["rows"][number];
export type ScheduleDocument = DocumentOf<"schedule">;
/** Usage summed over steps, with how many of them did not report their cost. */
export type UsageTotal = UsageDocument["total"];
export type ThreadCancelDocument = DocumentOf<"thread cancel">;
export type ThreadCleanupDocument = DocumentOf<"thread cleanup">;
export type ThreadJoinDocument = DocumentOf<"thread join">;
export type ThreadVerifyDocument = DocumentOf<"thread verify">;
export type ThreadExportDocument = DocumentOf<"thread export">;
export type ThreadReceiptDocument = DocumentOf<"thread receipt">;
export type ThreadTraceDocument = DocumentOf<"thread trace">;
export type ThreadImportDocument = DocumentOf<"thread import">;
/** What the engine's `verifyThread` returns for one thread. */
export type ThreadVerifyReport = FromSchema<DocumentSchemaSet["threadVerifyReportSchema"]>;
export type ThreadProblem = ThreadVerifyReport["problems"][number];
export type ThreadVerifyNote = NonNullable<ThreadVerifyReport["notes"]>[number];
export type ThreadRerouteDocument = DocumentOf<"thread reroute">;
/** What the engine's `rerouteThread` returns (the `uwf thread reroute` document). */
export type ThreadRerouteReport = FromSchema<DocumentSchemaSet["threadRerouteReportSchema"]>;
export type RerouteStep = ThreadRerouteReport["steps"][number];
export type RerouteRoute = RerouteStep["recorded"];
export type ThreadSteerDocument = DocumentOf<"thread steer">;
export type ThreadRaceDocument = DocumentOf<"thread race">;
export type ThreadRebaseDocument = DocumentOf<"thread rebase">;
/** What the engine's `planRebase` returns: the `uwf thread rebase` document before it runs. */
export type ThreadRebasePlan = FromSchema<DocumentSchemaSet["threadRebasePlanSchema"]>;
export type RebaseChange = NonNullable<ThreadRebasePlan["firstChange"]>;
export type RebaseRoute = NonNullable<RebaseChange["routeChange"]>["recorded"];
export type ThreadGrepDocument = DocumentOf<"thread grep">;
export type GrepMatch = FromSchema<DocumentSchemaSet["grepMatchSchema"]>;
export type ThreadWatchDocument = DocumentOf<"thread watch">;

export type StepListDocument = DocumentOf<"step list">;
export type StepListEntry = StepListDocument["steps"][number];
export type StepShowDocument = DocumentOf<"step show">;
export type StepReadDocument = DocumentOf<"step read">;
export type StepForkDocument = DocumentOf<"step fork">;

export type CasGetDocument = DocumentOf<"cas get">;
export type CasPutDocument = DocumentOf<"cas put">;
export type CasHasDocument = DocumentOf<"cas has">;
export type CasRefsDocument = DocumentOf<"cas refs">;
export type CasWalkDocument = DocumentOf<"cas walk">;
/** What the store's `verify` returns; it is the `uwf cas verify` document. */
export type CasVerifyDocument = FromSchema<DocumentSchemaSet["casVerifyReportSchema"]>;
/** What the store's `gc` returns; `uwf cas gc` prints it with `running` added. */
export type CasGcDocument = FromSchema<DocumentSchemaSet["casGcReportSchema"]>;

export type LogListDocument = DocumentOf<"log list">;
export type LogShowDocument = DocumentOf<"log show">;
export type LogCleanDocument = DocumentOf<"log clean">;

export type ConfigListDocument = DocumentOf<"config list">;
export type ConfigGetDocument = DocumentOf<"config get">;
export type ConfigSetDocument = DocumentOf<"config set">;
export type SetupDocument = DocumentOf<"setup">;
export type DoctorDocument = DocumentOf<"doctor">;
/** One line of `uwf setup` or `uwf doctor`. */
export type CheckResult = DoctorDocument["checks"][number];
export type PromptListDocument = DocumentOf<"prompt list">;
/** What every `uwf prompt <name>` but `list` prints: the guide's name and its markdown. */
export type PromptDocument = DocumentOf<"prompt usage">;
