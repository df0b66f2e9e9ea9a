import { nodeCrypto } from "@united-workforce/util";

/**
 * Span and trace ids derived from node hashes, so a trace built twice, on any machine, has the
 * same ids and its exports merge. A CAS hash is 64 bits, too few for a 128-bit trace id, so
 * each id is the start of a SHA-256 of what it names, with a label that keeps a thread's trace
 * id and its run span's id apart though both come from its StartNode.
 */
function derive(label: string, name: string, bytes: number): string {
  return nodeCrypto()
    .createHash("sha256")
    .update(`uwf/${label}/${name}`)
    .digest("hex")
    .slice(0, bytes * 2);
}

/** A thread's trace (16 bytes, hex), from its StartNode. */
export function traceIdOf(startHash: string): string {
  return derive("trace", startHash, 16);
}

/** The span of a thread's run (8 bytes, hex), from its StartNode. */
export function runSpanIdOf(startHash: string): string {
  return derive("run", startHash, 8);
}

/** A step's span, from its step node. */
export function stepSpanIdOf(stepHash: string): string {
  return derive("step", stepHash, 8);
}

/** The span of a step's `turn`th model turn (0-based), or of that turn's `call`th tool call. */
export function turnSpanIdOf(stepHash: string, turn: number, call?: number): string {
  const name = call === undefined ? `${stepHash}/${turn}` : `${stepHash}/${turn}/${call}`;
  return derive(call === undefined ? "turn" : "tool", name, 8);
}
