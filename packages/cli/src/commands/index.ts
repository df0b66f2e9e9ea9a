import casGc from "./cas/gc.js";
import casGet from "./cas/get.js";
import casHas from "./cas/has.js";
import casPut from "./cas/put.js";
import casPutText from "./cas/put-text.js";
import casRefs from "./cas/refs.js";
import casVerify from "./cas/verify.js";
import casWalk from "./cas/walk.js";
import type { CommandSpec } from "./command.js";
import completion from "./completion.js";
import configGet from "./config/get.js";
import configList from "./config/list.js";
import configSet from "./config/set.js";
import configUnset from "./config/unset.js";
import dashboard from "./dashboard.js";
import doctor from "./doctor.js";
import logClean from "./log/clean.js";
import logList from "./log/list.js";
import logShow from "./log/show.js";
import mcp from "./mcp.js";
import promptAdapterDeveloping from "./prompt/adapter-developing.js";
import promptBootstrap from "./prompt/bootstrap.js";
import promptList from "./prompt/list.js";
import promptUsage from "./prompt/usage.js";
import promptWorkflowAuthoring from "./prompt/workflow-authoring.js";
import schedule from "./schedule.js";
import setup from "./setup.js";
import stepFork from "./step/fork.js";
import stepList from "./step/list.js";
import stepRead from "./step/read.js";
import stepShow from "./step/show.js";
import storeMigrate from "./store/migrate.js";
import storeReindex from "./store/reindex.js";
import threadAnswer from "./thread/answer.js";
import threadCancel from "./thread/cancel.js";
import threadCleanup from "./thread/cleanup.js";
import threadDiff from "./thread/diff.js";
import threadExec from "./thread/exec.js";
import threadExport from "./thread/export.js";
import threadGrep from "./thread/grep.js";
import threadImport from "./thread/import.js";
import threadJoin from "./thread/join.js";
import threadList from "./thread/list.js";
import threadPoke from "./thread/poke.js";
import threadRace from "./thread/race.js";
import threadRead from "./thread/read.js";
import threadRebase from "./thread/rebase.js";
import threadReceipt from "./thread/receipt.js";
import threadReroute from "./thread/reroute.js";
import threadResume from "./thread/resume.js";
import threadShow from "./thread/show.js";
import threadStart from "./thread/start.js";
import threadSteer from "./thread/steer.js";
import threadStop from "./thread/stop.js";
import threadTrace from "./thread/trace.js";
import threadTree from "./thread/tree.js";
import threadVerify from "./thread/verify.js";
import threadWatch from "./thread/watch.js";
import usage from "./usage.js";
import workflowAdd from "./workflow/add.js";
import workflowHistory from "./workflow/history.js";
import workflowList from "./workflow/list.js";
import workflowRm from "./workflow/rm.js";
import workflowRollback from "./workflow/rollback.js";
import workflowShow from "./workflow/show.js";
import workflowTest from "./workflow/test.js";
import workflowValidate from "./workflow/validate.js";

/**
 * The command table: the CLI, `--help`, docs/cli.md and the `uwf prompt` texts all come from
 * this list, so they cannot drift apart. Order here is the order in help and docs.
 */
export const COMMANDS: readonly CommandSpec[] = [
  workflowAdd,
  workflowValidate,
  workflowShow,
  workflowList,
  workflowHistory,
  workflowRollback,
  workflowRm,
  workflowTest,
  threadStart,
  threadExec,
  threadShow,
  threadList,
  threadRead,
  threadResume,
  threadAnswer,
  threadPoke,
  threadSteer,
  threadStop,
  threadCancel,
  threadCleanup,
  threadJoin,
  threadVerify,
  threadExport,
  threadReceipt,
  threadImport,
  threadTrace,
  threadRebase,
  threadRace,
  threadReroute,
  threadGrep,
  threadWatch,
  threadTree,
  threadDiff,
  stepList,
  stepShow,
  stepRead,
  stepFork,
  storeMigrate,
  storeReindex,
  casGet,
  casPut,
  casPutText,
  casHas,
  casRefs,
  casWalk,
  casVerify,
  casGc,
  logList,
  logShow,
  logClean,
  setup,
  configList,
  configGet,
  configSet,
  configUnset,
  doctor,
  dashboard,
  mcp,
  schedule,
  usage,
  completion,
  promptList,
  promptUsage,
  promptWorkflowAuthoring,
  promptAdapterDeveloping,
  promptBootstrap,
];
