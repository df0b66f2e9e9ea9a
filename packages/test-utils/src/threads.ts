import {
  emptyUsage,
  type Hash,
  type JsonSchema,
  type RolePayload,
  type StepPayload,
  type ThreadPointer,
  type Usage,
  type WorkflowPayload,
  workflowNodeKind,
} from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import { newUlid } from "@united-workforce/util";

/** A workflow as a test writes it: role schemas inline, like the YAML. */
export interface WorkflowFixture {
  name: string;
  description?: string;
  roles: Record<string, Omit<RolePayload, "frontmatter"> & { frontmatter: JsonSchema }>;
  graph: WorkflowPayload["graph"];
  /** Guard: suspend before a step once the chain holds this many. */
  maxSteps?: number;
}

export interface SeededThread {
  thread: string;
  workflowHash: Hash;
  start: Hash;
  /** Schema node hash per role. */
  schemas: Record<string, Hash>;
}

/**
 * Store a workflow, a StartNode and a thread pointer straight through the store API, for tests
 * that need a thread without running `uwf thread start`.
 */
export async function seedThread(
  target: string | Store,
  options: { workflow: WorkflowFixture; prompt: string; cwd: string; createdAtMs?: number },
): Promise<SeededThread> {
  const store = await storeOf(target);
  const { cas } = store;
  const schemas: Record<string, Hash> = {};
  const roles: Record<string, RolePayload> = {};
  for (const [name, role] of Object.entries(options.workflow.roles)) {
    schemas[name] = await cas.putSchema(role.frontmatter);
    roles[name] = { ...role, frontmatter: schemas[name] };
  }
  const payload: WorkflowPayload = {
    name: options.workflow.name,
    roles,
    graph: options.workflow.graph,
  };
  if (options.workflow.description !== undefined)
    payload.description = options.workflow.description;
  if (options.workflow.maxSteps !== undefined) payload.maxSteps = options.workflow.maxSteps;
  const workflowHash = await cas.put(cas.builtin(workflowNodeKind(payload)), payload);
  const createdAtMs = options.createdAtMs ?? Date.now();
  const start = await cas.put(cas.builtin("start"), {
    workflow: workflowHash,
    prompt: options.prompt,
    cwd: options.cwd,
    createdAtMs,
  });
  const thread = newUlid(createdAtMs);
  const at = new Date(createdAtMs).toISOString();
  const pointer: ThreadPointer = {
    thread,
    workflow: options.workflow.name,
    workflowHash,
    start,
    head: start,
    status: "idle",
    currentRole: null,
    suspended: null,
    steps: 0,
    cwd: options.cwd,
    createdAt: at,
    updatedAt: at,
  };
  await store.threads.create(pointer);
  if (typeof target === "string") await store.close();
  return { thread, workflowHash, start, schemas };
}

/**
 * Append a step as an adapter would, and move the thread's head to it (what `uwf thread exec`
 * does after verifying). Returns the step hash.
 */
export async function appendStep(
  target: string | Store,
  thread: string,
  step: {
    role: string;
    output: Record<string, unknown>;
    body?: string;
    agent?: string;
    edgePrompt?: string;
    usage?: Partial<Usage>;
    startedAtMs?: number;
  },
): Promise<Hash> {
  const store = await storeOf(target);
  const { cas, threads } = store;
  const pointer = await threads.get(thread);
  const start = await cas.getPayload<{ workflow: Hash }>(pointer.start, "start");
  const workflow = await cas.getPayload<WorkflowPayload>(start.workflow, "workflow");
  const role = workflow.roles[step.role];
  if (!role)
    throw new Error(`appendStep: role "${step.role}" is not in workflow "${workflow.name}"`);
  const startedAtMs = step.startedAtMs ?? Date.now();
  const payload: StepPayload = {
    start: pointer.start,
    prev: pointer.head === pointer.start ? null : pointer.head,
    role: step.role,
    output: await cas.put(role.frontmatter, step.output),
    body: await cas.putText(step.body ?? ""),
    detail: await cas.put(cas.builtin("stepDetail"), {
      adapter: "test-fixture",
      model: null,
      sessionId: null,
      turns: [],
      sessions: {},
      rawOutput: "",
      attempts: [],
    }),
    agent: step.agent ?? "test-fixture",
    edgePrompt: step.edgePrompt ?? `Continue as ${step.role}.`,
    assembledPrompt: await cas.putText(""),
    cwd: pointer.cwd,
    startedAtMs,
    completedAtMs: startedAtMs + 1,
    usage: { ...emptyUsage(), ...step.usage },
    attempts: 1,
  };
  const hash = await cas.put(cas.builtin("step"), payload);
  const moved = await threads.swap(
    {
      ...pointer,
      head: hash,
      steps: pointer.steps + 1,
      currentRole: step.role,
      updatedAt: new Date().toISOString(),
    },
    pointer.rev ?? 0,
  );
  if (moved === null) throw new Error(`appendStep: thread ${thread} changed meanwhile`);
  if (typeof target === "string") await store.close();
  return hash;
}

/** Tests pass a home (the filesystem store) or a store they opened. */
function storeOf(target: string | Store): Promise<Store> {
  return typeof target === "string" ? openStore({ home: target }) : Promise.resolve(target);
}

/** The filesystem store of a test's home, opened through the one factory like any command. */
export function openHomeStore(home: string): Promise<Store> {
  return openStore({ home });
}
