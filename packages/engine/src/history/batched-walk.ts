import { BUILTIN_SCHEMA_HASHES, editionsOf, type ThreadPointer } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";

/**
 * Batched history walks. On PostgreSQL a walk read node by node costs a round trip a node
 * (20,000 for a 10,000-step `thread verify`); these read a stretch of a chain, with everything
 * its steps reach, in one statement (`Cas.prefetchChains`), and the walk then reads from what is
 * kept. The filesystem has no round trip and keeps nothing: there every call here is a no-op
 * and the walk reads node by node, as before.
 */

/** The step schema of every edition: a chain may hold steps written by an older uwf. */
export const STEP_TYPES: readonly string[] = editionsOf("step").map(
  (edition) => BUILTIN_SCHEMA_HASHES[edition],
);

/** Steps of the first stretch a walk reads; each next one doubles, up to `CHAIN_STRETCH`. */
const FIRST_STRETCH = 16;
/** Steps a stretch holds at most: with what they reach, about 1,500 nodes and a few MB. */
export const CHAIN_STRETCH = 256;
/** Steps one round trip reads for a group of threads (`withPrefetchedHeads`), shared out. */
const GROUP_STEPS = 1_000;
/** Threads read ahead together by `withPrefetchedHeads`. */
const GROUP_THREADS = 100;

/**
 * Reads a chain ahead of a walk back from its head: before each step, `before(hash)` fetches
 * the stretch of the chain from that step unless it is already kept. A walk that stops early
 * (a page of `thread read`) reads a short stretch; a long one reads up to `CHAIN_STRETCH` steps
 * a round trip.
 */
export class ChainReadAhead {
  readonly #cas: Cas;
  #length: number;

  constructor(cas: Cas, options: { whole?: boolean } = {}) {
    this.#cas = cas;
    this.#length = options.whole ? CHAIN_STRETCH : FIRST_STRETCH;
  }

  async before(hash: string): Promise<void> {
    if (this.#cas.isKept(hash)) return;
    await this.#cas.prefetchChains([hash], STEP_TYPES, this.#length);
    this.#length = Math.min(this.#length * 2, CHAIN_STRETCH);
  }
}

/**
 * Threads in groups, the first steps of each group's chains read in one round trip before the
 * group is yielded: whole-store walks (`thread verify --all`, `thread grep`) cost a statement
 * per group, not one per thread. Longer chains go on with their own `ChainReadAhead`.
 */
export async function* withPrefetchedHeads<T extends { pointer: ThreadPointer | null }>(
  cas: Cas,
  items: AsyncIterable<T>,
): AsyncGenerator<T> {
  let group: T[] = [];
  for await (const item of items) {
    group.push(item);
    if (group.length < GROUP_THREADS) continue;
    await prefetchHeads(cas, group);
    yield* group;
    group = [];
  }
  await prefetchHeads(cas, group);
  yield* group;
}

async function prefetchHeads(
  cas: Cas,
  group: readonly { pointer: ThreadPointer | null }[],
): Promise<void> {
  const heads = group.flatMap(({ pointer }) =>
    pointer === null || pointer.head === pointer.start ? [] : [pointer.head],
  );
  if (heads.length === 0) return;
  await cas.prefetchChains(heads, STEP_TYPES, Math.max(1, Math.floor(GROUP_STEPS / heads.length)));
}
