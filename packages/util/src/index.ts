export { CROCKFORD_ALPHABET, decodeBase32, encodeBase32 } from "./base32.js";
export {
  lazyRequire,
  nodeChildProcess,
  nodeCrypto,
  nodeHttp,
  nodeNet,
  nodeOs,
  nodeStream,
  nodeZlib,
} from "./builtin.js";
export { canonicalJson } from "./canonical-json.js";
export { DOCS_BASE_URL, docsUrl } from "./docs-url.js";
export { addHomeDotenv, readHomeDotenv } from "./dotenv.js";
export { editDistance, nearestWord } from "./edit-distance.js";
export { type ErrorFields, errorFields, isInternal } from "./error-fields.js";
export { errorMessage, isUwfError, UwfError } from "./errors.js";
export { type FollowLogOptions, followLog } from "./events/follow.js";
export { type LogFile, listLogFiles, logFilePath } from "./events/log-files.js";
export { eventOf, type LogRecord, parseLogLine } from "./events/log-reader.js";
export { eventLogWriter, type LogEnvelope } from "./events/log-writer.js";
export { createEventStream, type EventListener, type EventStream } from "./events/stream.js";
export {
  type CostTotal,
  costFact,
  costText,
  diffStatText,
  durationText,
  groupDigits,
  stepCost,
  tokensFact,
  tokensText,
  usdText,
} from "./figures.js";
export { type AtomicWriteOptions, writeFileAtomic } from "./fs/atomic-write.js";
export { type ErrnoError, ioError, isErrnoError } from "./fs/io-error.js";
export { type ParseCacheEntry, readParseCache, writeParseCache } from "./fs/parse-cache.js";
export { writeToFd } from "./fs/write-fd.js";
export { type WriteFunction, writeFully } from "./fs/write-fully.js";
export { HASH_LENGTH, hashBytes, hashFromWords, hashWords } from "./hash.js";
export { makePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, resolveHome } from "./home.js";
export { isoTime } from "./iso-time.js";
export { KILL_GRACE } from "./process/kill-grace.js";
export type { OutputOptions, OutputSummary } from "./process/output-reader.js";
export {
  type GroupExit,
  type GroupLeader,
  killRunningGroups,
  type ProcessGroup,
  type ProcessGroupOptions,
  signalGroup,
  startProcessGroup,
} from "./process/process-group.js";
export { commandNotFound, findExecutable } from "./process/resolve-command.js";
export {
  type ProcessRun,
  type ProcessRunOutcome,
  runProcessGroup,
} from "./process/run-process-group.js";
export { randomBytes, randomToken } from "./random.js";
export {
  envSecretMasker,
  isSecretName,
  MASK,
  maskOccurrences,
  maskSecret,
  maskSecretsInText,
  maskUrlPasswords,
} from "./secrets.js";
export { sleepUnlessAborted } from "./sleep.js";
export { sanitizeTerminalText, shellQuote } from "./terminal-text.js";
export { newUlid, ulidTime, ulidTimePart } from "./ulid.js";
export { packageVersion } from "./version.js";
