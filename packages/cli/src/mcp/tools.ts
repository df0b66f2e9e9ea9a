import { THREAD_STATUSES } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { Invocation } from "./invoke.js";

/** A tool's input as JSON Schema: an object of named properties. */
export interface ToolInputSchema {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required?: readonly string[];
  additionalProperties: false;
}

/** The input of a call, checked against the tool's schema. */
export type ToolInput = Record<string, unknown>;

export interface McpTool {
  name: string;
  /** What an agent reads to choose the tool and to know what comes back. */
  description: string;
  inputSchema: ToolInputSchema;
  /** The `uwf` command the call runs; its `--format json` document is the tool's result. */
  invocation(input: ToolInput): Invocation;
  /**
   * Whether this call runs in the background of the server: it returns once the run is under
   * way (or has ended before its first step), and the run goes on until the session ends.
   */
  background?(input: ToolInput): boolean;
  /**
   * Whether a client may call it as an MCP task (`execution.taskSupport: optional`): the task
   * is the thread the call runs, and the call runs in the background whatever its input says.
   */
  task?: true;
}

const threadProperty = {
  type: "string",
  description:
    "the thread's id (a ULID, as thread_start or thread_list return it; a unique prefix works)",
} as const;

const workflowProperty = {
  type: "string",
  description:
    "a registered workflow's name (see workflow_list), a workflow file's path (relative to the server's directory), a .workflows/ name, or a workflow hash",
} as const;

/**
 * The tools of `uwf mcp`, each one CLI command (its words in `invocation`): same checks, same
 * errors, same JSON document. Numbers and booleans are handed over as a user would type them,
 * so they go through the command's own option parsers.
 */
export const MCP_TOOLS: readonly McpTool[] = [
  {
    name: "workflow_list",
    description:
      "List the registered workflows (as `uwf workflow list --format json`): each one's name, hash, last update and number of versions. Workflow files in the project can be started by path too.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    invocation: () => ({ path: ["workflow", "list"], args: [], options: {} }),
  },
  {
    name: "workflow_show",
    description:
      "Show a workflow's roles, graph, declared inputs and what each role returns (as `uwf workflow show --format json`). Read it before thread_start to know the inputs to give.",
    inputSchema: {
      type: "object",
      properties: { workflow: workflowProperty },
      required: ["workflow"],
      additionalProperties: false,
    },
    invocation: (input) => ({
      path: ["workflow", "show"],
      args: [input.workflow as string],
      options: {},
    }),
  },
  {
    name: "thread_start",
    description:
      "Start a thread of a workflow with a task (as `uwf thread start --format json`). Nothing runs yet: call thread_exec with the returned thread id. The thread works in the directory this server runs in.",
    inputSchema: {
      type: "object",
      properties: {
        workflow: workflowProperty,
        prompt: {
          type: "string",
          minLength: 1,
          description: "the task, given to every role of the workflow as its ## Task",
        },
        inputs: {
          type: "object",
          description:
            'the workflow\'s declared inputs by name (see workflow_show), e.g. {"issue": 42}; checked against their schema',
          additionalProperties: true,
        },
        title: {
          type: "string",
          description: "a short name for the thread, one line (default: the task's first line)",
        },
      },
      required: ["workflow", "prompt"],
      additionalProperties: false,
    },
    invocation: (input) => ({
      path: ["thread", "start"],
      args: [input.workflow as string],
      options: {
        prompt: taskText(input.prompt as string),
        title: input.title,
        // `--input name=value` is coerced by the input's declared type, so JSON reads back as it was.
        input: Object.entries((input.inputs as Record<string, unknown> | undefined) ?? {}).map(
          ([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`,
        ),
      },
    }),
  },
  {
    name: "thread_exec",
    description:
      "Run the next step(s) of a thread in the background of this server (as `uwf thread exec`) and return at once with the thread id: status `running` and stoppedBecause `background` while it runs. Follow it with thread_show (status, steps, current role) and read it with thread_read; the server also sends a log notification when the run ends. A run that ends before its first step started (the thread waits for a person, has completed, or failed) returns its full result instead, as does `wait: true`. A thread waiting for a person (suspended with kind `human`) goes on with thread_answer, then thread_exec. Runs stop when this server does (the steps finished are kept; exec again to go on). Clients with MCP tasks may call it as a task: the task is the thread (its id is the thread id; tasks/result gives the thread_show document).",
    inputSchema: {
      type: "object",
      properties: {
        thread: threadProperty,
        agent: {
          type: "string",
          description:
            "the agent for these steps: an alias from config.yaml, a command on PATH, or a path (default: the thread's, else config.yaml's); the thread remembers it",
        },
        count: {
          type: "integer",
          minimum: 1,
          description:
            "run up to this many steps (default 1); the run also stops when the thread completes or waits for someone",
        },
        wait: {
          type: "boolean",
          description:
            "wait for the run to end and return its result (the steps run, the status, why it stopped) instead of returning at once; for short runs, as a long one may outlast the client's tool timeout",
        },
      },
      required: ["thread"],
      additionalProperties: false,
    },
    invocation: (input) => ({
      path: ["thread", "exec"],
      args: [input.thread as string],
      options: {
        agent: input.agent,
        count: input.count === undefined ? undefined : String(input.count),
        // Progress is for a terminal; the server's stderr is its log.
        quiet: true,
      },
    }),
    background: (input) => input.wait !== true,
    task: true,
  },
  {
    name: "thread_show",
    description:
      "Show a thread (as `uwf thread show --format json`): status (idle, running, suspended, completed, cancelled), the number of steps, the last and the next role, what it waits for when suspended (kind `human`: answer with thread_answer), usage and cost.",
    inputSchema: {
      type: "object",
      properties: { thread: threadProperty },
      required: ["thread"],
      additionalProperties: false,
    },
    invocation: (input) => ({
      path: ["thread", "show"],
      args: [input.thread as string],
      options: {},
    }),
  },
  {
    name: "thread_read",
    description:
      "Read a thread as a markdown transcript, newest steps within a character quota (as `uwf thread read --format json`): each step's role, status, output fields and body.",
    inputSchema: {
      type: "object",
      properties: {
        thread: threadProperty,
        quota: {
          type: "integer",
          minimum: 1,
          description: "at most this many characters of steps (default 20000)",
        },
        before: {
          type: "string",
          description: "page back: show the steps before this step hash (the oldest one shown)",
        },
        start: { type: "boolean", description: "read from the first step forward" },
      },
      required: ["thread"],
      additionalProperties: false,
    },
    invocation: (input) => ({
      path: ["thread", "read"],
      args: [input.thread as string],
      options: {
        quota: input.quota === undefined ? undefined : String(input.quota),
        before: input.before,
        start: input.start === true ? true : undefined,
      },
    }),
  },
  {
    name: "thread_list",
    description:
      "List threads, newest first (as `uwf thread list --format json`), with their status, workflow, title and steps.",
    inputSchema: {
      type: "object",
      properties: {
        status: {
          type: "string",
          enum: [...THREAD_STATUSES, "active", "all"],
          description:
            "only threads in this status (active: idle, running or suspended; default all)",
        },
        workflow: { type: "string", description: "only threads of this workflow" },
        title: { type: "string", description: "only threads whose title holds this text" },
        limit: { type: "integer", minimum: 0, description: "at most this many (default 50)" },
        offset: { type: "integer", minimum: 0, description: "skip the first n (default 0)" },
      },
      additionalProperties: false,
    },
    invocation: (input) => ({
      path: ["thread", "list"],
      args: [],
      options: {
        status: input.status,
        workflow: input.workflow,
        title: input.title,
        limit: input.limit === undefined ? undefined : String(input.limit),
        offset: input.offset === undefined ? undefined : String(input.offset),
      },
    }),
  },
  {
    name: "thread_answer",
    description:
      "Answer a thread that waits for a person (a human role; thread_show says suspended, kind `human`) as that person (as `uwf thread answer --format json`). The answer is checked against the role's schema and stored as its step; the thread then routes on: call thread_exec to continue.",
    inputSchema: {
      type: "object",
      properties: {
        thread: threadProperty,
        status: {
          type: "string",
          description: "the answer's $status: one of the statuses the waiting role accepts",
        },
        fields: {
          type: "object",
          description:
            'the answer\'s fields by name, as the role\'s schema types them, e.g. {"reason": "Mention the migration guide."}',
          additionalProperties: true,
        },
        message: { type: "string", description: "the markdown body of the answer's step" },
      },
      required: ["thread", "status"],
      additionalProperties: false,
    },
    invocation: (input) => ({
      path: ["thread", "answer"],
      args: [input.thread as string],
      options: {
        status: input.status,
        // `--set` reads a non-string field as YAML, and JSON is YAML.
        set: Object.entries((input.fields as Record<string, unknown> | undefined) ?? {}).map(
          ([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`,
        ),
        body: input.message,
      },
    }),
  },
];

/** The task as `-p` takes it: `-p -` reads stdin, which here is the protocol's. */
function taskText(prompt: string): string {
  if (prompt !== "-") return prompt;
  throw new UwfError("USAGE", 'thread_start: the prompt "-" would read the server\'s stdin', {
    hint: "Give the task itself as the prompt.",
  });
}
