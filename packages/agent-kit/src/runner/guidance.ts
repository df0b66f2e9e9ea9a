import { GUIDANCE_HEADING } from "@united-workforce/engine/adapter";
import type { GuidanceNote, ThreadPointer } from "@united-workforce/protocol";
import { errorMessage, isoTime } from "@united-workforce/util";

/** A `thread steer` note the agent got while its step ran, as the step's detail records it. */
export interface DeliveredGuidance extends GuidanceNote {
  /** When the adapter handed it to the agent. */
  deliveredAt: string;
  /** How many of the step's turns the agent had taken by then (the note came after them). */
  afterTurn: number;
}

/**
 * The `thread steer` notes that arrive while a step runs, for an adapter whose agent accepts
 * input mid-run (DESIGN §8, docs/decisions/thread-steer.md). `watch` starts looking (a bounded
 * poll of the thread's pointer); `take` hands over the notes waiting and records them as
 * delivered. A note never taken stays on the thread for its next step: an adapter takes a note
 * only in the same moment it gives it to the agent.
 */
export interface GuidanceInbox {
  /** Start looking for notes; `onArrival` is told each time new ones wait to be taken. */
  watch(onArrival?: () => void): void;
  /**
   * The notes waiting, oldest first, now delivered; `afterTurn`: the turns taken so far. It
   * looks at the thread first, so a note steered before the call is among them.
   */
  take(afterTurn: number): Promise<GuidanceNote[]>;
  /** The notes the poll found waiting, oldest first, now delivered (no look first). */
  takeWaiting(afterTurn: number): GuidanceNote[];
}

/** How the inbox reads the thread and reports deliveries; the kit gives the real ones. */
export interface GuidanceSource {
  /** The thread's pointer as stored now. */
  read: () => Promise<ThreadPointer>;
  /** How many of the pointer's notes the step's prompt already carries (its first ones). */
  given: number;
  /** How long between two looks (read when `watch` starts the poll). */
  pollMs: () => number;
  signal?: AbortSignal;
  onDelivered: (note: DeliveredGuidance) => void;
  /** A read that failed: the poll goes on (the step must not fail for it). */
  onReadError: (message: string) => void;
}

/** The inbox of one step: `stop` ends its poll, and `delivered` lists what the agent got. */
export class StepGuidance implements GuidanceInbox {
  #waiting: GuidanceNote[] = [];
  readonly #seen = new Set<number>();
  readonly #delivered: DeliveredGuidance[] = [];
  #timer: NodeJS.Timeout | null = null;
  #polling: Promise<void> | null = null;
  #onArrival: (() => void) | null = null;
  #watching = false;
  #stopped = false;
  #pollMs: number | undefined;

  constructor(private readonly source: GuidanceSource) {}

  watch(onArrival?: () => void): void {
    if (onArrival) this.#onArrival = onArrival;
    if (this.#watching || this.#stopped || this.source.signal?.aborted) return;
    this.#watching = true;
    // Only a step that polls listens: an abort listener costs an adapter's start ≈ 0.3 ms.
    this.source.signal?.addEventListener("abort", () => void this.stop(), { once: true });
    this.#next(this.#poll());
  }

  async take(afterTurn: number): Promise<GuidanceNote[]> {
    if (this.#stopped) return [];
    await this.#poll();
    return this.takeWaiting(afterTurn);
  }

  takeWaiting(afterTurn: number): GuidanceNote[] {
    if (this.#stopped) return [];
    const taken = this.#waiting;
    this.#waiting = [];
    const deliveredAt = isoTime();
    for (const note of taken) {
      const delivered = { text: note.text, at: note.at, rev: note.rev, deliveredAt, afterTurn };
      this.#delivered.push(delivered);
      this.source.onDelivered(delivered);
    }
    return taken;
  }

  /** The notes the agent got, in the order it got them. */
  get delivered(): readonly DeliveredGuidance[] {
    return this.#delivered;
  }

  /** Look no more: notes not taken by now stay for the next step. Waits for a read under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#waiting = [];
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#polling;
  }

  /** Look once now (the first look, each poll, and `take`'s). */
  async #poll(): Promise<void> {
    let pointer: ThreadPointer;
    try {
      pointer = await this.source.read();
    } catch (error) {
      if (!this.#stopped) this.source.onReadError(errorMessage(error));
      return;
    }
    if (this.#stopped) return;
    // The step's own notes are the pointer's first ones: only a steer appends, and only the
    // exec running this step removes any, once the step is stored.
    const arrived = (pointer.guidance ?? [])
      .slice(this.source.given)
      .filter((note) => !this.#seen.has(note.rev));
    if (arrived.length === 0) return;
    for (const note of arrived) this.#seen.add(note.rev);
    this.#waiting.push(...arrived);
    this.#onArrival?.();
  }

  /** Once `polling` is done, look again after `pollMs` (never two reads at once). */
  #next(polling: Promise<void>): void {
    this.#polling = polling.finally(() => {
      this.#polling = null;
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#pollMs ??= this.source.pollMs();
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#next(this.#poll());
    }, this.#pollMs);
    // Never what keeps an adapter alive: it ends when its agent has.
    this.#timer.unref();
  }
}

/** A note as the agent reads it mid-run: under the heading it has in a step's prompt. */
export function guidanceMessage(note: GuidanceNote): string {
  return `## ${GUIDANCE_HEADING}\n\n${note.text}`;
}
