import type { EdgeTarget, WorkflowPayload, WorkflowTriggers } from "@united-workforce/protocol";
import type { FanoutDefinition } from "./fanout.js";
import type { SchemaMap } from "./schema-shape.js";

/** Where a `<workflow>` reference was found (see resolve.ts). */
export type WorkflowSource = "hash" | "file" | "workflows-dir" | "registry";

/** A role as written in YAML: its frontmatter is the JSON Schema itself, not yet a hash. */
export interface RoleDefinition {
  description?: string;
  goal?: string;
  capabilities?: string[];
  procedure?: string;
  output?: string;
  frontmatter: SchemaMap;
  /** `human`: the role is answered with `uwf thread answer` (see step-roles.ts). */
  agent?: "human";
  /** A command run instead of an agent: an argv, or one string when `shell` is true. */
  run?: string[] | string;
  shell?: boolean;
  exitStatus?: Record<string, string>;
  timeoutSeconds?: number;
  /** Guard: the thread suspends before this role's step once it ran this many times. */
  maxVisits?: number;
  /** The join of a fan-out: its step is written by uwf from the children's results. */
  join?: true;
}

/** An edge as written in YAML: a fan-out names its child by role or workflow, not yet a hash. */
export type EdgeDefinition = Omit<EdgeTarget, "fanout"> & { fanout?: FanoutDefinition };
export type GraphDefinition = Record<string, Record<string, EdgeDefinition>>;

/** A workflow as written in YAML (after includes), once it has passed validation. */
export interface WorkflowDefinition {
  name: string;
  description?: string;
  roles: Record<string, RoleDefinition>;
  graph: GraphDefinition;
  /** JSON Schema of the object a thread is started with (`thread start --input`). */
  inputs?: SchemaMap;
  /** Guard: the thread suspends before a step once its chain holds this many steps. */
  maxSteps?: number;
  /** Every thread runs in its own git worktree on its own branch. */
  worktree?: boolean;
  /** What starts the workflow by itself: GitHub events (triggers.ts). */
  on?: WorkflowTriggers;
  /**
   * Not YAML: the child workflows of `fanout.workflow` edges, by the reference written, once
   * `loadAndValidate` has resolved them (materialising stores them and pins their hashes).
   */
  fanoutWorkflows?: Map<string, FanoutWorkflow>;
}

/** A `fanout.workflow` child, found the way a `<workflow>` argument is (see resolve.ts). */
export interface FanoutWorkflow {
  /** What the edge wrote: a name, a path relative to the parent file, or a hash. */
  ref: string;
  hash: string;
  name: string;
  payload: WorkflowPayload;
  source: WorkflowSource;
  /** Read from a file and not stored yet: materialising the parent stores it. */
  definition: WorkflowDefinition | null;
}
