export {
  type AgentCliName,
  type AgentHome,
  agentCliPath,
  agentClisDir,
  agentHome,
} from "./agent-clis.js";
export { builtinsLoadedBy, COSTLY_BUILTINS, type LoadedBuiltins } from "./builtins.js";
export { CODEX_USAGE_LIMIT, codexWriteFileTool } from "./conformance/codex.js";
export { adapterConformance } from "./conformance/harness.js";
export {
  type AdapterConformanceOptions,
  CONFORMANCE_CASES,
  type ConformanceCase,
  type ConformanceCaseName,
  type ConformanceSandbox,
} from "./conformance/options.js";
export { answer, CONFORMANCE_WORKFLOW } from "./conformance/workflow.js";
export type { FakeFailure, FakeLlmScript, FakeStep } from "./fake-llm/script.js";
export {
  type FakeLlm,
  type FakeLlmOptions,
  type FakeLlmRequest,
  startFakeLlm,
} from "./fake-llm/server.js";
export { makeGitRepo, runGit } from "./git.js";
export { TEMP_PREFIX, type TempHome, tempHome } from "./home.js";
export { normalise } from "./normalise.js";
export {
  type OtlpReceiver,
  type ReceivedRequest,
  type ReceivedSpan,
  type ReceivedValue,
  startOtlpReceiver,
} from "./otlp-receiver.js";
export { freePort } from "./ports.js";
export {
  type DatabaseActivity,
  findPostgresBin,
  type PostgresOptions,
  type PostgresServer,
  startPostgres,
} from "./postgres.js";
export { isProcessGone, processesIn, sleep, waitUntilGone } from "./processes.js";
export {
  REPO_ROOT,
  type RunOptions,
  type RunResult,
  runBin,
  runUwf,
  type StartedProcess,
  startBin,
  startUwf,
  UWF_BIN,
  UWF_MOCK_BIN,
} from "./run.js";
export { type MockScenarioStep, writeScenario } from "./scenario.js";
export {
  appendStep,
  openHomeStore,
  type SeededThread,
  seedThread,
  type WorkflowFixture,
} from "./threads.js";
