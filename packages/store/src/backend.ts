/**
 * `@united-workforce/store/backend`: what a backend package (`@united-workforce/store-postgres`)
 * builds on, so that every backend words its errors and checks what it reads alike. Apart from
 * the package's index, which a backend does not need at run time: loading it would cost every
 * PostgreSQL process the whole store a second time (a bundled uwf already holds its own copy).
 * The contract the backend implements is the index's types (api.ts).
 */
export { busyError, lostError } from "./leases/errors.js";
export { DEFAULT_LEASE_TTL_MS } from "./leases/liveness.js";
export { isAlive, selfIdentity } from "./locks/process-identity.js";
export { parseEntry } from "./registry/entry-check.js";
export { assertName, registryCorrupt, sameEntry } from "./registry/registry.js";
export { maskUrl } from "./store-url.js";
export { corruptThreadError, missingThreadError } from "./threads/errors.js";
export { parsePointer } from "./threads/pointer-check.js";
