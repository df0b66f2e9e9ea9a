import { type RoleExits, requireRoleExits, type SchemaMap } from "@united-workforce/engine/adapter";
import type {
  Hash,
  RolePayload,
  StartPayload,
  StepPayload,
  ThreadPointer,
  WorkflowPayload,
} from "@united-workforce/protocol";
import { isPlainObject } from "@united-workforce/protocol";
import type { Cas, ThreadsStore } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { collectHistory, type History } from "./history.js";

/** Everything an agent's step depends on, read from the thread's chain (never written). */
export interface ThreadContext {
  pointer: ThreadPointer;
  /** The step the new one follows: the pointer's head, or its predecessor for a poke. */
  head: Hash;
  /** How many steps precede the new one. */
  stepIndex: number;
  startHash: Hash;
  start: StartPayload;
  workflow: WorkflowPayload;
  role: string;
  roleDefinition: RolePayload;
  /** The role's output JSON Schema (the payload of its schema node). */
  schema: SchemaMap;
  /** The statuses the schema declares and what each one's output carries. */
  exits: RoleExits;
  history: History;
}

export async function loadThreadContext(
  cas: Cas,
  threads: Pick<ThreadsStore, "get">,
  options: { thread: string; role: string; historyQuota?: number; replaceHead?: boolean },
): Promise<ThreadContext> {
  const pointer = await threads.get(options.thread);
  // `uwf thread poke` replaces the head step: the new step follows the head's predecessor.
  let head = pointer.head;
  let stepIndex = pointer.steps;
  if (options.replaceHead && head !== pointer.start) {
    head = (await cas.getPayload<StepPayload>(head, "step")).prev ?? pointer.start;
    stepIndex = Math.max(0, pointer.steps - 1);
  }
  const start = await cas.getPayload<StartPayload>(pointer.start, "start");
  const workflow = await cas.getPayload<WorkflowPayload>(start.workflow, "workflow");
  const roleDefinition = workflow.roles[options.role];
  if (!roleDefinition) {
    const known = Object.keys(workflow.roles).join(", ");
    throw new UwfError("USAGE", `role "${options.role}" is not in workflow "${workflow.name}"`, {
      hint: `Pass one of its roles with --role: ${known}.`,
    });
  }
  const schema: unknown = await cas.schema(roleDefinition.frontmatter);
  if (!isPlainObject(schema)) {
    throw new UwfError(
      "SCHEMA_INVALID",
      `the frontmatter schema ${roleDefinition.frontmatter} of role "${options.role}" is not a JSON Schema object`,
    );
  }
  const history = await collectHistory(cas, {
    head,
    start: pointer.start,
    role: options.role,
    ...(options.historyQuota === undefined ? {} : { quota: options.historyQuota }),
  });
  return {
    pointer,
    head,
    stepIndex,
    startHash: pointer.start,
    start,
    workflow,
    role: options.role,
    roleDefinition,
    schema,
    exits: requireRoleExits(workflow.name, options.role, schema),
    history,
  };
}
