import type { StartPayload, StepForkDocument, ThreadPointer } from "@united-workforce/protocol";
import { newUlid } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { openEngine } from "../thread/shared.js";

export default defineCommand({
  path: ["step", "fork"],
  summary: "make a new thread whose head is this step (nothing is copied)",
  args: [{ name: "step", type: "hash", description: "step hash" }],
  examples: ["uwf step fork 0K4Q8Z3M1XH2C && uwf thread exec <new thread>"],
  async run(ctx, [hash]) {
    const { readStep, walkBack } = await import("@united-workforce/engine");
    const engine = await openEngine(ctx);
    const { cas } = engine.store;
    const step = await readStep(cas, hash!);
    const start = await cas.getPayload<StartPayload>(step.start, "start");
    const workflow = await engine.workflow(start.workflow);
    let steps = 0;
    for await (const _ of walkBack(cas, hash!)) steps++;
    const now = new Date();
    const pointer: ThreadPointer = {
      thread: newUlid(now.getTime()),
      workflow: workflow.name,
      workflowHash: start.workflow,
      start: step.start,
      head: hash!,
      status: "idle",
      currentRole: step.role,
      suspended: null,
      steps,
      cwd: start.cwd,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      forkedFrom: hash!,
    };
    const created = await engine.store.threads.create(pointer);
    // A fork of a final or asking step starts out completed or suspended, like the original.
    await engine.settle(created);
    ctx.logger.info("step.fork", { thread: pointer.thread, from: hash });
    const doc: StepForkDocument = { thread: pointer.thread, forkedFrom: hash! };
    return result(doc, (d) => d.thread);
  },
});
