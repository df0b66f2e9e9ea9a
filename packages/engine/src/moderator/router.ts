import {
  START,
  type StartPayload,
  type StepPayload,
  type ThreadPointer,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { evaluate, startOutput, type Transition } from "./evaluate.js";
import { expectedRole, type RoutedFrom } from "./expected-role.js";

/** A step whose output is known to this process: routing from it reads nothing. */
export interface KnownStep {
  hash: string;
  step: StepPayload;
  output: Record<string, unknown>;
}

/**
 * What the moderator reads of a thread: its workflow, its inputs and its head step, never the
 * chain. A workflow is read once per process, a thread's inputs once (only for a workflow that
 * declares some: they are in the StartNode), and a head this process stored is not read at all.
 * Nodes are immutable, so a hash names the same node for the life of the process.
 */
export class Router {
  readonly #workflows = new Map<string, WorkflowPayload>();
  readonly #inputs = new Map<string, Record<string, unknown>>();
  #known: KnownStep | null = null;

  constructor(readonly cas: Cas) {}

  async workflow(hash: string): Promise<WorkflowPayload> {
    let payload = this.#workflows.get(hash);
    if (!payload) {
      payload = await this.cas.getPayload<WorkflowPayload>(hash, "workflow");
      this.#workflows.set(hash, payload);
    }
    return payload;
  }

  /** A step this process stored (and verified): the next route from it costs no read. */
  remember(step: KnownStep): void {
    this.#known = step;
  }

  /** The head step, or null while the head is the StartNode. Reads one node, never the chain. */
  async headStep(pointer: ThreadPointer): Promise<StepPayload | null> {
    if (pointer.head === pointer.start) return null;
    if (pointer.head === this.#known?.hash) return this.#known.step;
    return this.cas.getPayload<StepPayload>(pointer.head, "step");
  }

  /**
   * Where the thread goes from its head: the moderator's answer, at zero LLM cost. `resume`
   * routes a completed thread through `$START.resume`.
   */
  async route(pointer: ThreadPointer, startKind: "new" | "resume" = "new"): Promise<Transition> {
    const workflow = await this.workflow(pointer.workflowHash);
    const inputs = await this.threadInputs(pointer, workflow);
    const head = await this.headStep(pointer);
    if (!head || startKind === "resume")
      return evaluate(workflow.graph, START, startOutput(startKind), inputs);
    const output =
      pointer.head === this.#known?.hash
        ? this.#known.output
        : await this.cas.getPayload<Record<string, unknown>>(head.output);
    return evaluate(workflow.graph, head.role, output, inputs);
  }

  /**
   * Why the moderator would not send the thread to `plan.role` after `plan.prev` (the route
   * problem `thread verify` would report for that step: `"b" answered "again", which leads to
   * "a"`), or null when it would. Reads `prev`'s step and output, never the chain.
   */
  async routeProblem(
    pointer: ThreadPointer,
    plan: { role: string; prev: string | null },
  ): Promise<string | null> {
    const workflow = await this.workflow(pointer.workflowHash);
    const inputs = await this.threadInputs(pointer, workflow);
    let previous: RoutedFrom | null = null;
    if (plan.prev !== null) {
      const known = plan.prev === this.#known?.hash ? this.#known : null;
      const step = known?.step ?? (await this.cas.getPayload<StepPayload>(plan.prev, "step"));
      const output =
        known?.output ?? (await this.cas.getPayload<Record<string, unknown>>(step.output));
      previous = { role: step.role, output };
    }
    const expected = expectedRole(workflow.graph, previous, inputs);
    if (expected.role === null || expected.role === plan.role) return null;
    return expected.why;
  }

  /**
   * The rendered prompt of the `$END` edge a completed thread took (hello's "Greeting
   * delivered: …"), or null when the head does not lead to `$END` (or cannot be routed).
   */
  async endMessage(pointer: ThreadPointer): Promise<string | null> {
    try {
      const next = await this.route(pointer);
      return next.kind === "end" ? next.prompt : null;
    } catch {
      return null;
    }
  }

  /** The thread's inputs when its workflow declares some (`{}` from a StartNode without). */
  private async threadInputs(
    pointer: ThreadPointer,
    workflow: WorkflowPayload,
  ): Promise<Record<string, unknown> | undefined> {
    if (workflow.inputs === undefined) return undefined;
    let inputs = this.#inputs.get(pointer.start);
    if (inputs === undefined) {
      const start = await this.cas.getPayload<StartPayload>(pointer.start, "start");
      inputs = start.inputs ?? {};
      this.#inputs.set(pointer.start, inputs);
    }
    return inputs;
  }
}
