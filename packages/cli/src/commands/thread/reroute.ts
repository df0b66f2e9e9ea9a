import {
  ExitCode,
  type RerouteRoute,
  type ThreadRerouteDocument,
} from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { resolveUnstored } from "./shared.js";

export default defineCommand({
  path: ["thread", "reroute"],
  summary:
    "what-if: route a thread's recorded outputs through another workflow version, without any agent (exit 1 if anything changes)",
  description:
    "Walks the thread's steps oldest first and, for each, checks whether the recorded output still validates against the other workflow's role schema and where its graph routes from it, compared with the workflow the thread is pinned to. Reports the first step where the route changes (with the edge prompt the other workflow would send there) and every output that no longer validates. Nothing is stored, not even a workflow read from a file. Exits 0 when every route is the same and every output validates, 1 otherwise (like diff), so CI can check a workflow edit against recorded threads.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "-w, --workflow <workflow>",
      type: "string",
      required: true,
      description: "the other version: a workflow file, hash, .workflows/ name or registered name",
    },
  ],
  examples: [
    "uwf thread reroute 01JD… --workflow .workflows/solve-issue.yaml",
    "uwf thread reroute 01JD… -w solve-issue --format json",
  ],
  async run(ctx, [thread], options) {
    const { rerouteThread } = await import("@united-workforce/engine");
    const store = await ctx.store();
    // A workflow read from a file is compiled in memory and never stored: this is a what-if.
    const workflow = await resolveUnstored(ctx, store, options.workflow!);
    const doc: ThreadRerouteDocument = await rerouteThread(store, thread!, workflow);
    return result(doc, renderReroute, doc.ok ? ExitCode.ok : ExitCode.error);
  },
});

function target(route: RerouteRoute): string {
  return route.target ?? `a routing error (${route.error})`;
}

function renderReroute(doc: ThreadRerouteDocument): string {
  const count = `${doc.steps.length} step${doc.steps.length === 1 ? "" : "s"}`;
  const lines = [
    `${doc.thread}: ${count} of ${doc.pinned.name} ${doc.pinned.hash} rerouted through ${doc.workflow.name} ${doc.workflow.hash}`,
  ];
  const change = doc.firstChange;
  if (change === null) {
    lines.push("  route: the same at every step");
  } else {
    const where =
      change.step === 0
        ? `at the start (${change.hash})`
        : `after step ${change.step} ${change.hash} (${change.role})`;
    lines.push(`  route changes ${where}:`);
    lines.push(`    recorded: ${target(change.recorded)}`);
    lines.push(`    now:      ${target(change.rerouted)}`);
    if (change.rerouted.prompt !== null) {
      lines.push(`    prompt:   ${change.rerouted.prompt.replace(/\n/g, "\n              ")}`);
    }
  }
  const invalid = doc.steps.filter((s) => !s.valid);
  if (invalid.length === 0) {
    lines.push(`  outputs: all ${doc.steps.length} still validate`);
  } else {
    lines.push(`  outputs: ${invalid.length} of ${doc.steps.length} no longer validate:`);
    for (const step of invalid) {
      lines.push(`    step ${step.step} ${step.hash} (${step.role}): ${step.errors.join("; ")}`);
    }
  }
  return lines.join("\n");
}
