import { appendFileSync } from "node:fs";
import {
  type AgentContext,
  AgentExit,
  createAgent,
  storeBackends,
} from "@united-workforce/agent-kit/entry";

/**
 * `uwf-replay --from <thread|bundle>…`: answers a step with the recorded step whose assembled
 * prompt is the same text (the same text node hash), returning its output and body as they
 * were stored, so the step it writes has the same output and body nodes. No model is called.
 * On a miss it exits 1 naming the role and the nearest recorded prompt of that role.
 *
 * `UWF_REPLAY_REPORT=<file>` appends one JSON line per step (a hit and where it came from, or a
 * miss and its nearest prompt): `uwf workflow test` reads it.
 */
export const replayAgent = createAgent({
  name: "uwf-replay",
  options: {
    from: {
      description: "a recorded thread of this store, or a bundle file from `uwf thread export`",
      required: true,
      repeatable: true,
      valueName: "thread|file",
    },
  },
  run: async (ctx) => {
    const [{ findReplay, nearestPrompt, openRecordings }, store, { renderAnswer }] =
      await Promise.all([
        import("@united-workforce/engine"),
        import("@united-workforce/store"),
        import("./render.js"),
      ]);
    const from = ctx.options.from;
    const sources = Array.isArray(from) ? from : typeof from === "string" ? [from] : [];
    const options = store.storeOptionsFrom(ctx.home, store.readConfig(ctx.home), ctx.env);
    const opened = await store.openStore({ ...options, backends: storeBackends });
    try {
      const recordings = await openRecordings(sources, {
        store: opened,
        cwd: ctx.cwd,
        validatorCacheDir: store.validatorCacheDir(ctx.home),
        statuses: false,
      });
      const promptHash = opened.cas.prepareText(ctx.prompt).hash;
      const hit = await findReplay(recordings, {
        role: ctx.role,
        text: ctx.prompt,
        hash: promptHash,
      });
      if (hit) {
        const from = { origin: hit.step.origin, thread: hit.step.thread, step: hit.step.index };
        report(ctx, { kind: "hit", role: ctx.role, prompt: promptHash, from, hash: hit.step.hash });
        return {
          text: renderAnswer(hit.output, hit.body),
          detail: { model: "replay", replayedFrom: { ...from, hash: hit.step.hash } },
        };
      }
      const nearest = await nearestPrompt(recordings, ctx.role, ctx.prompt);
      report(ctx, {
        kind: "miss",
        role: ctx.role,
        prompt: promptHash,
        nearest: nearest && {
          origin: nearest.step.origin,
          thread: nearest.step.thread,
          step: nearest.step.index,
          hash: nearest.step.hash,
          differentLines: nearest.differentLines,
          firstDifference: nearest.firstDifference,
        },
      });
      throw new AgentExit(1, missMessage(ctx, recordings.length, nearest));
    } finally {
      await opened.close();
    }
  },
});

type Nearest = Awaited<ReturnType<typeof import("@united-workforce/engine").nearestPrompt>>;

function missMessage(ctx: AgentContext, recordings: number, nearest: Nearest): string {
  const searched = `${recordings} recording${recordings === 1 ? "" : "s"}`;
  const head = `error: no recorded step of role "${ctx.role}" had this prompt (searched ${searched})`;
  if (nearest === null) return `${head}; none of them has a step of role "${ctx.role}"`;
  const { step, differentLines, firstDifference: d } = nearest;
  return [
    `${head}; the nearest is step ${step.index} of ${step.origin} (${differentLines} line${differentLines === 1 ? "" : "s"} differ${differentLines === 1 ? "s" : ""})`,
    `  first difference at line ${d.line}:`,
    `    recorded: ${JSON.stringify(excerpt(d.recorded))}`,
    `    now:      ${JSON.stringify(excerpt(d.now))}`,
  ].join("\n");
}

function excerpt(line: string): string {
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

function report(ctx: AgentContext, entry: Record<string, unknown>): void {
  const file = ctx.env.UWF_REPLAY_REPORT;
  // Each line names the thread it answered: a fan-out's replays share the file.
  if (file) appendFileSync(file, `${JSON.stringify({ thread: ctx.thread, ...entry })}\n`);
}
