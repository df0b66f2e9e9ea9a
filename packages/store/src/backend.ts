/**
 * `@united-workforce/store/backend`: what a backend package (`@united-workforce/store-postgres`)
 * builds on, so that every backend words its errors and checks what it reads alike. An entry of
 * its own: these are for backend authors, not for the store's users. The contract the backend
 * implements is the index's types (api.ts).
 */
export { busyError, lostError } from "./leases/errors.js";
export { DEFAULT_LEASE_TTL_MS } from "./leases/liveness.js";
export { isAlive, selfIdentity } from "./locks/process-identity.js";
export { parseEntry } from "./registry/entry-check.js";
export { assertName, registryCorrupt, sameEntry } from "./registry/registry.js";
export { maskUrl } from "./store-url.js";
export { corruptThreadError, missingThreadError } from "./threads/errors.js";
export { parsePointer } from "./threads/pointer-check.js";
