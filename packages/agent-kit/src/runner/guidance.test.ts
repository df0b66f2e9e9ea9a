import type { GuidanceNote, ThreadPointer } from "@united-workforce/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type DeliveredGuidance, guidanceMessage, StepGuidance } from "./guidance.js";

const note = (rev: number, text = `note ${rev}`): GuidanceNote => ({
  text,
  at: "2026-12-06T10:00:00.000Z",
  rev,
});

/** A thread whose pointer the test sets; each read answers the pointer as it is then. */
function thread(guidance: GuidanceNote[]) {
  const state = { guidance, reads: 0 };
  const read = async () => {
    state.reads++;
    return { thread: "t", guidance: [...state.guidance] } as unknown as ThreadPointer;
  };
  return { state, read };
}

function inbox(
  read: () => Promise<ThreadPointer>,
  options: { given?: number; signal?: AbortSignal } = {},
) {
  const delivered: DeliveredGuidance[] = [];
  const errors: string[] = [];
  const guidance = new StepGuidance({
    read,
    given: options.given ?? 0,
    pollMs: () => 1_000,
    ...(options.signal ? { signal: options.signal } : {}),
    onDelivered: (n) => delivered.push(n),
    onReadError: (message) => errors.push(message),
  });
  return { guidance, delivered, errors };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("StepGuidance", () => {
  it("hands over the notes steered after the prompt's own, each once, and records them", async () => {
    const { state, read } = thread([note(1), note(2)]);
    const { guidance, delivered } = inbox(read, { given: 1 });
    expect(await guidance.take(0)).toEqual([note(2)]);
    expect(await guidance.take(1)).toEqual([]);
    state.guidance.push(note(5));
    expect(await guidance.take(3)).toEqual([note(5)]);
    expect(delivered.map((d) => [d.rev, d.afterTurn])).toEqual([
      [2, 0],
      [5, 3],
    ]);
    expect(guidance.delivered).toEqual(delivered);
    expect(delivered[0]).toMatchObject({ ...note(2), deliveredAt: expect.any(String) });
  });

  it("polls while watched, tells of arrivals, and takes only what the poll found", async () => {
    vi.useFakeTimers();
    const { state, read } = thread([]);
    const { guidance } = inbox(read);
    let arrivals = 0;
    guidance.watch(() => arrivals++);
    await vi.advanceTimersByTimeAsync(0);
    expect(state.reads).toBe(1);
    state.guidance.push(note(3));
    expect(guidance.takeWaiting(0)).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(state.reads).toBe(2);
    expect(arrivals).toBe(1);
    expect(guidance.takeWaiting(1)).toEqual([note(3)]);
    await guidance.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(state.reads).toBe(2);
  });

  it("takes nothing once stopped: a note racing the step's end stays for the next step", async () => {
    let answer: (pointer: ThreadPointer) => void = () => {};
    const read = () => new Promise<ThreadPointer>((resolve) => (answer = resolve));
    const { guidance, delivered } = inbox(read);
    // A look is under way when the agent's run ends; its answer brings a new note.
    const taking = guidance.take(2);
    const stopped = guidance.stop();
    answer({ thread: "t", guidance: [note(7)] } as unknown as ThreadPointer);
    await stopped;
    expect(await taking).toEqual([]);
    expect(delivered).toEqual([]);
  });

  it("stops polling when the step is interrupted, and goes on after a failed read", async () => {
    vi.useFakeTimers();
    let failing = true;
    let reads = 0;
    const read = async () => {
      reads++;
      if (failing) throw new Error("store unavailable");
      return { thread: "t", guidance: [note(1)] } as unknown as ThreadPointer;
    };
    const controller = new AbortController();
    const { guidance, errors } = inbox(read, { signal: controller.signal });
    guidance.watch();
    await vi.advanceTimersByTimeAsync(0);
    expect(errors).toEqual(["store unavailable"]);
    failing = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(guidance.takeWaiting(0)).toEqual([note(1)]);
    controller.abort(new Error("SIGTERM"));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(reads).toBe(2);
  });

  it("words a note as the prompt does", () => {
    expect(guidanceMessage(note(1, "Keep it short."))).toBe(
      "## Guidance from a human\n\nKeep it short.",
    );
  });
});
