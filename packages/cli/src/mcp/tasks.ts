import type { ThreadListDocument, ThreadShowDocument } from "@united-workforce/protocol";
import { isoTime, isUwfError, ulidTime } from "@united-workforce/util";
import type { CommandContext } from "../commands/command.js";
import { prepareCommand } from "./invoke.js";
import type { CallToolResult, Task, TaskStore } from "./sdk.js";

/** How often a client polls a task (and the SDK's blocked `tasks/result` looks again). */
const TASK_POLL_INTERVAL_MS = 500;

/** Tasks per `tasks/list` page. */
const TASKS_PAGE = 50;

/**
 * The MCP tasks of `uwf mcp`: a task is a thread, its id the thread's id, and everything about
 * it is read from the thread in the store at each ask. Nothing is kept per session, so a task
 * outlives the session that made it, and a thread moved by another process (`uwf thread exec`
 * in a terminal, the dashboard, `uwf thread answer`) is a task that moved.
 *
 * `tasks/cancel` reaches `updateTaskStatus(id, "cancelled")`, which cancels the thread
 * (`cancel`). The SDK's other writes (`createTask`, `storeTaskResult`, a status set because a
 * request was sent within a task) have nothing to write: `thread_exec` makes a thread's task by
 * running it, and the thread is its own result.
 */
export function threadTaskStore(
  session: CommandContext,
  cancel: (thread: string) => Promise<void>,
): TaskStore {
  const show = async (taskId: string): Promise<ThreadShowDocument> => {
    const command = await prepareCommand(session, {
      path: ["thread", "show"],
      args: [taskId],
      options: {},
    });
    return (await command.run()).document as ThreadShowDocument;
  };
  const task = async (taskId: string): Promise<Task | null> => {
    try {
      const doc = await show(taskId);
      // A task id is a whole thread id: a prefix the CLI would accept names no task.
      return doc.thread === taskId ? taskOf(doc) : null;
    } catch (error) {
      if (!isUwfError(error)) throw error;
      // Not a thread id, or no such thread: no such task.
      if (error.code === "THREAD_NOT_FOUND" || error.code === "USAGE") return null;
      if (error.code === "THREAD_CORRUPT") {
        return unreadableTask(taskId, isoTime(ulidTime(taskId)), "", error.message);
      }
      throw error;
    }
  };
  const refuse = (what: string) => async (): Promise<never> => {
    throw new Error(
      `uwf mcp: ${what}: a thread's task is made by thread_exec and its state is the thread's`,
    );
  };

  return {
    createTask: refuse("createTask"),
    storeTaskResult: refuse("storeTaskResult"),
    getTask: task,
    // Asked by the SDK once the task has ended (its status is terminal).
    async getTaskResult(taskId) {
      return taskResult(await show(taskId));
    },
    async updateTaskStatus(taskId, status) {
      if (status !== "cancelled") return refuse(`updateTaskStatus to ${status}`)();
      await cancel(taskId);
    },
    async listTasks(cursor) {
      const offset = cursor === undefined ? 0 : Number(cursor);
      if (!Number.isInteger(offset) || offset < 0) throw new Error(`bad cursor "${cursor}"`);
      const listed = await prepareCommand(session, {
        path: ["thread", "list"],
        args: [],
        options: { limit: String(TASKS_PAGE), offset: String(offset) },
      });
      const { threads, more } = (await listed.run()).document as ThreadListDocument;
      const tasks: Task[] = [];
      for (const entry of threads) {
        const found =
          entry.status === "corrupt"
            ? unreadableTask(entry.thread, entry.createdAt, entry.updatedAt, entry.problem)
            : await task(entry.thread);
        if (found !== null) tasks.push(found);
      }
      const next = offset + threads.length;
      return more ? { tasks, nextCursor: String(next) } : { tasks };
    },
  };
}

/** A thread as a task: its status and what it waits for, from `thread show`'s document. */
function taskOf(doc: ThreadShowDocument): Task {
  const { status, statusMessage } = taskState(doc);
  return {
    taskId: doc.thread,
    status,
    statusMessage,
    // A thread is kept until `uwf thread cleanup` removes it.
    ttl: null,
    createdAt: doc.createdAt,
    lastUpdatedAt: doc.updatedAt,
    pollInterval: TASK_POLL_INTERVAL_MS,
  };
}

function taskState(doc: ThreadShowDocument): Pick<Task, "status" | "statusMessage"> {
  const role = doc.nextRole ?? doc.currentRole;
  switch (doc.status) {
    case "running": {
      const pid = doc.lockHolder?.pid;
      const where = pid === process.pid ? "this uwf mcp server" : `pid ${pid}`;
      return {
        status: "working",
        statusMessage: `running${role === null ? "" : ` role ${role}`} in ${where}; thread_show and thread_read follow it`,
      };
    }
    case "completed":
      return { status: "completed", statusMessage: `completed (${doc.steps} steps)` };
    case "cancelled":
      return { status: "cancelled", statusMessage: "the thread was cancelled" };
    case "corrupt":
      return { status: "failed", statusMessage: "the thread is corrupt: see uwf thread verify" };
    case "idle":
      return {
        status: "input_required",
        statusMessage: `idle (${doc.steps} steps)${role === null ? "" : `, next role ${role}`}: nothing runs it; call thread_exec to go on`,
      };
  }
  // Suspended: a failed agent fails the task; every other kind waits for someone to act.
  const { kind, role: waiting, reason } = doc.suspended!;
  switch (kind) {
    case "failure":
      return {
        status: "failed",
        statusMessage: `role ${waiting} failed: ${reason} (a person can retry it with \`uwf thread resume\`)`,
      };
    case "human":
      return {
        status: "input_required",
        statusMessage: `role ${waiting} waits for a person (agent: human): answer it with thread_answer (thread_show gives the question and the answers it accepts), then call thread_exec to go on`,
      };
    case "question":
      return {
        status: "input_required",
        statusMessage: `role ${waiting} asked a question: ${reason} (a person answers it with \`uwf thread resume ${doc.thread} -p <answer>\` or on the dashboard)`,
      };
    case "retry":
      return {
        status: "input_required",
        statusMessage: `role ${waiting} hit transient agent failures: ${reason}; call thread_exec again${doc.suspended!.retryAfter === undefined ? "" : ` after ${doc.suspended!.retryAfter}`}`,
      };
    default:
      return {
        status: "input_required",
        statusMessage: `suspended (${kind}) at role ${waiting}: ${reason}`,
      };
  }
}

/**
 * The result of a thread's task, once it has ended: the thread's `thread show` document, the
 * same whichever process ran it; an error result when the thread failed or was cancelled.
 */
function taskResult(doc: ThreadShowDocument): CallToolResult {
  return {
    ...(doc.status === "completed" ? {} : { isError: true }),
    content: [{ type: "text", text: JSON.stringify(doc) }],
    structuredContent: doc as unknown as Record<string, unknown>,
  };
}

/** A thread whose pointer cannot be read: a failed task, with what is wrong. */
function unreadableTask(
  thread: string,
  createdAt: string,
  updatedAt: string,
  problem: string | undefined,
): Task {
  return {
    taskId: thread,
    status: "failed",
    statusMessage: `the thread is corrupt: ${problem ?? "unreadable"} (see uwf thread verify)`,
    ttl: null,
    createdAt,
    lastUpdatedAt: updatedAt === "" ? createdAt : updatedAt,
  };
}
