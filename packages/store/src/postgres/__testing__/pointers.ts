import type { ThreadPointer } from "@united-workforce/protocol";
import { CROCKFORD_ALPHABET, encodeBase32 } from "@united-workforce/util";

export const HASH_A = "0000000000000";
export const HASH_B = "1111111111111";

/** A thread id (ULID) made at `ms`; unlike newUlid it never moves to a later time. */
export function threadIdAt(ms: number): string {
  let random = "";
  for (let i = 0; i < 16; i++) {
    random += CROCKFORD_ALPHABET[Math.floor(Math.random() * 32)];
  }
  return `${encodeBase32(BigInt(ms), 10)}${random}`;
}

/** A valid pointer; ids made with increasing `createdMs` sort by creation time. */
export function pointer(
  overrides: Partial<ThreadPointer> & { createdMs?: number } = {},
): ThreadPointer {
  const { createdMs = Date.now(), ...rest } = overrides;
  const createdAt = new Date(createdMs).toISOString();
  return {
    thread: threadIdAt(createdMs),
    workflow: "solve-issue",
    workflowHash: HASH_A,
    start: HASH_A,
    head: HASH_A,
    status: "idle",
    currentRole: null,
    suspended: null,
    steps: 0,
    cwd: "/work",
    createdAt,
    updatedAt: createdAt,
    ...rest,
  };
}
