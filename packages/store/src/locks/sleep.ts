const cell = new Int32Array(new SharedArrayBuffer(4));

/** Block this thread for a few milliseconds: the store API is synchronous on purpose. */
export function sleepSync(ms: number): void {
  Atomics.wait(cell, 0, 0, ms);
}
