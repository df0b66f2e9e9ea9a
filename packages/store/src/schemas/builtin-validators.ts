/**
 * The validators of the built-in node schemas (step, start, workflow, …), compiled when the
 * binaries are bundled: `scripts/bundle.mjs` replaces this module with one holding each
 * validator's code as a function, so a bundled process neither reads nor compiles them (they
 * sit in the bundle's V8 code cache). Unbundled (the packages as libraries, the unit tests) the
 * map is empty and these schemas go through the disk cache like any other.
 */
export type PrecompiledValidator = (
  require: (id: string) => unknown,
  module: { exports: unknown },
  exports: unknown,
) => void;

export const PRECOMPILED_VALIDATORS: ReadonlyMap<string, PrecompiledValidator> = new Map();
