export type * from "./api.js";
export { Cas, CasBatch } from "./cas/cas.js";
export type * from "./cas/cas-backend.js";
export * from "./config/index.js";
export { resolveHash, resolveThread } from "./ids/resolve.js";
export { holderAlive } from "./leases/liveness.js";
export {
  isAlive,
  ownProcessGroup,
  type ProcessIdentity,
  pidExists,
  processIdentity,
} from "./locks/process-identity.js";
export { openStore, storeOptionsFrom, validatorCacheDir } from "./open-store.js";
export {
  DIALECT_URIS,
  dialectsApplying,
  type SchemaDialect,
  schemaDialect,
} from "./schemas/dialects.js";
export { knownFormatNames } from "./schemas/formats.js";
export { type ServedStepStore, serveStepStore } from "./step-store/serve.js";
export { openServedStore, type StepStore } from "./step-store/served-store.js";
export { maskUrl } from "./store-url.js";
export { pointerProblem } from "./threads/pointer-check.js";
export { isRunnable } from "./threads/runnable.js";
