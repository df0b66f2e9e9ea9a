import {
  END,
  type Graph,
  type JsonSchema,
  type RerouteRoute,
  type RerouteStep,
  START,
  STATUS_FIELD,
  type StartPayload,
  SUSPEND,
  type ThreadRerouteReport,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas, ThreadsStore } from "@united-workforce/store";
import { errorMessage } from "@united-workforce/util";
import { evaluate, startOutput } from "../moderator/evaluate.js";
import type { WorkflowDefinition } from "../workflow/definition.js";
import { type RecordedStep, readRecordedSteps } from "./chain.js";

/**
 * The workflow to reroute through: a stored one (its role schemas are schema nodes), or one
 * read from a file and left unstored (`resolveWorkflow` with `deferWrite`), whose role schemas
 * are taken from `unstored` so that nothing is written.
 */
export interface RerouteWorkflow {
  hash: string;
  payload: WorkflowPayload;
  unstored?: WorkflowDefinition | null;
}

export interface RerouteSource {
  cas: Cas;
  threads: Pick<ThreadsStore, "get">;
}

type Validate = (payload: unknown) => { valid: boolean; errors: string[] };

/** A workflow's graph, and the thread's inputs when that workflow renders edge prompts with them. */
interface Routing {
  graph: Graph;
  inputs: Record<string, unknown> | undefined;
}

/**
 * Replay a thread's recorded outputs through another workflow, without any agent: for each
 * step, oldest first, whether its output still validates against the other workflow's role
 * schema, and where the other graph routes from it compared with the workflow the thread is
 * pinned to. The first step whose route differs is where the thread would have gone elsewhere;
 * what follows it is what the recorded outputs would do, had they still been given.
 * Reads the chain once; writes nothing.
 */
export async function rerouteThread(
  store: RerouteSource,
  thread: string,
  workflow: RerouteWorkflow,
): Promise<ThreadRerouteReport> {
  const { cas } = store;
  const pointer = await store.threads.get(thread);
  const pinned = await cas.getPayload<WorkflowPayload>(pointer.workflowHash, "workflow");
  const start = await cas.getPayload<StartPayload>(pointer.start, "start");
  const other = workflow.payload;
  // Each workflow renders edge prompts with the thread's inputs only if it declares inputs.
  const routingOf = (w: WorkflowPayload): Routing => ({
    graph: w.graph,
    inputs: w.inputs === undefined ? undefined : (start.inputs ?? {}),
  });
  const recordedRouting = routingOf(pinned);
  const otherRouting = routingOf(other);

  const chain = await readRecordedSteps(cas, pointer.head === pointer.start ? null : pointer.head);
  const startRoute = {
    recorded: routeFrom(recordedRouting, START, startOutput("new")),
    rerouted: routeFrom(otherRouting, START, startOutput("new")),
  };
  const steps = await rerouteSteps(cas, workflow, chain, recordedRouting, otherRouting);
  const firstChange: ThreadRerouteReport["firstChange"] =
    startRoute.recorded.target !== startRoute.rerouted.target
      ? {
          step: 0,
          hash: pointer.start,
          role: START,
          next: chain[0]?.step.role ?? null,
          ...startRoute,
        }
      : firstStepChange(steps);

  const invalid = steps.filter((s) => !s.valid).length;
  return {
    thread: pointer.thread,
    pinned: { name: pinned.name, hash: pointer.workflowHash },
    workflow: { name: other.name, hash: workflow.hash },
    ok: firstChange === null && invalid === 0,
    routeChanged: firstChange !== null,
    invalid,
    start: {
      hash: pointer.start,
      ...startRoute,
      same: startRoute.recorded.target === startRoute.rerouted.target,
    },
    firstChange,
    steps,
  };
}

/** Each recorded step against the other workflow: its output validated, its two routes. */
async function rerouteSteps(
  cas: Cas,
  workflow: RerouteWorkflow,
  chain: RecordedStep[],
  recordedRouting: Routing,
  otherRouting: Routing,
): Promise<RerouteStep[]> {
  const validators = new Map<string, Validate | null>();
  const validatorOf = async (role: string): Promise<Validate | null> => {
    if (!validators.has(role)) validators.set(role, await roleValidator(cas, workflow, role));
    return validators.get(role)!;
  };
  const steps: RerouteStep[] = [];
  for (const [index, { hash, step, output }] of chain.entries()) {
    const role = step.role;
    const validate = await validatorOf(role);
    const checked = validate
      ? validate(output)
      : { valid: false, errors: [`role "${role}" is not in workflow "${workflow.payload.name}"`] };
    const recorded = routeFrom(recordedRouting, role, output);
    const rerouted = routeFrom(otherRouting, role, output);
    const status = output[STATUS_FIELD];
    steps.push({
      step: index + 1,
      hash,
      role,
      status: typeof status === "string" ? status : null,
      roleExists: validate !== null,
      valid: checked.valid,
      errors: checked.errors,
      recorded,
      rerouted,
      same: recorded.target === rerouted.target,
      next: chain[index + 1]?.step.role ?? null,
    });
  }
  return steps;
}

/** The first step the other workflow routes elsewhere, or null. */
function firstStepChange(steps: RerouteStep[]): ThreadRerouteReport["firstChange"] {
  const changed = steps.find((s) => !s.same);
  if (changed === undefined) return null;
  const { step, hash, role, next, recorded, rerouted } = changed;
  return { step, hash, role, next, recorded, rerouted };
}

/** Where `routing` sends the thread after `role` answered `output`, as a report entry. */
function routeFrom(routing: Routing, role: string, output: Record<string, unknown>): RerouteRoute {
  try {
    const next = evaluate(routing.graph, role, output, routing.inputs);
    if (next.kind === "fanout") return { target: next.role, prompt: next.template, error: null };
    const target = next.kind === "next" ? next.role : next.kind === "end" ? END : SUSPEND;
    return { target, prompt: next.prompt, error: null };
  } catch (error) {
    return { target: null, prompt: null, error: errorMessage(error) };
  }
}

/** A validator for `role`'s schema in the other workflow; null when it has no such role. */
async function roleValidator(
  cas: Cas,
  workflow: RerouteWorkflow,
  role: string,
): Promise<Validate | null> {
  if (!Object.hasOwn(workflow.payload.roles, role)) return null;
  const definition = workflow.unstored?.roles[role];
  // An unstored workflow's schemas are compiled in memory; a stored one's are schema nodes.
  if (definition) return cas.schemaValidator(definition.frontmatter as JsonSchema).validate;
  return cas.validator(workflow.payload.roles[role]!.frontmatter);
}
