export { CROCKFORD_ALPHABET, decodeBase32, encodeBase32 } from "./base32.js";
export { canonicalJson } from "./canonical-json.js";
export { errorMessage, isUwfError, UwfError } from "./errors.js";
export { type FrontmatterResult, parseFrontmatter } from "./frontmatter.js";
export { writeFileAtomic } from "./fs/atomic-write.js";
export { HASH_LENGTH, hashBytes } from "./hash.js";
export { resolveHome } from "./home.js";
export { createLogger, type Logger, type LogLevel, logFilePath } from "./logger.js";
export { newUlid, ulidTime } from "./ulid.js";
