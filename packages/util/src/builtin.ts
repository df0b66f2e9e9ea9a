/**
 * A Node built-in, loaded on first call through `process.getBuiltinModule` (Node ≥ 20.16): a
 * `require` made with `node:module`'s `createRequire` cost every start loading `node:module`
 * (≈ 0.2 ms) before anything was required with it.
 */
function builtin<T>(id: string): T {
  return process.getBuiltinModule(id) as T;
}

/**
 * A `require` for the module at `moduleUrl()` (its `import.meta.url`), made on first call:
 * made at import, it cost every start a file URL and a loader object (≈ 0.8 ms for the bundle's
 * first three, cold).
 */
export function lazyRequire(moduleUrl: () => string): (id: string) => unknown {
  let required: ((id: string) => unknown) | undefined;
  return (id) => {
    required ??= builtin<typeof import("node:module")>("node:module").createRequire(moduleUrl());
    return required(id);
  };
}

// Node built-ins that cost a start real time to load (node:crypto and node:child_process each
// bring the stream modules with them, ≈ 2–3 ms) and that most `uwf` processes never use,
// loaded on first call instead of by a top-level import (DESIGN §14).

/** `node:crypto`, loaded on first use. */
export function nodeCrypto(): typeof import("node:crypto") {
  return builtin<typeof import("node:crypto")>("node:crypto");
}

/** `node:child_process`, loaded on first use. */
export function nodeChildProcess(): typeof import("node:child_process") {
  return builtin<typeof import("node:child_process")>("node:child_process");
}

/**
 * `node:http` or `node:https`, loaded on first use: an adapter loads them only when it talks
 * to a model (they bring the stream and socket modules with them).
 */
export function nodeHttp(secure: boolean): typeof import("node:http") {
  return builtin<typeof import("node:http")>(secure ? "node:https" : "node:http");
}

/** `node:net`, loaded on first use (the pipes of an adapter run in a warm process). */
export function nodeNet(): typeof import("node:net") {
  return builtin<typeof import("node:net")>("node:net");
}

/** `node:stream`, loaded on first use (a warm process's output streams, after `node:net`). */
export function nodeStream(): typeof import("node:stream") {
  return builtin<typeof import("node:stream")>("node:stream");
}

/** `node:os`, loaded on first use (≈ 0.17 ms): an adapter is given UWF_HOME and takes no lease. */
export function nodeOs(): typeof import("node:os") {
  return builtin<typeof import("node:os")>("node:os");
}

/** `node:zlib`, loaded on first use (a compressed HTTP answer). */
export function nodeZlib(): typeof import("node:zlib") {
  return builtin<typeof import("node:zlib")>("node:zlib");
}

/** `node:string_decoder`, loaded on first use (a child's output, read as text). */
export function nodeStringDecoder(): typeof import("node:string_decoder") {
  return builtin<typeof import("node:string_decoder")>("node:string_decoder");
}
