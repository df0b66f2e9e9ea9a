import type { CommandSpec } from "./command.js";

/** A command's words and a loader for its module. */
export interface CommandEntry {
  path: readonly string[];
  load: () => Promise<{ default: CommandSpec }>;
}

/**
 * Every command, in the order of COMMANDS (index.ts; a test keeps the two equal), loaded on
 * demand: `uwf` loads only the command its argv names, and so only the libraries that command
 * uses (DESIGN §14). Help, suggestions and docs load them all.
 */
export const COMMAND_TABLE: readonly CommandEntry[] = [
  { path: ["workflow", "add"], load: () => import("./workflow/add.js") },
  { path: ["workflow", "validate"], load: () => import("./workflow/validate.js") },
  { path: ["workflow", "show"], load: () => import("./workflow/show.js") },
  { path: ["workflow", "list"], load: () => import("./workflow/list.js") },
  { path: ["workflow", "history"], load: () => import("./workflow/history.js") },
  { path: ["workflow", "rollback"], load: () => import("./workflow/rollback.js") },
  { path: ["workflow", "rm"], load: () => import("./workflow/rm.js") },
  { path: ["workflow", "test"], load: () => import("./workflow/test.js") },
  { path: ["thread", "start"], load: () => import("./thread/start.js") },
  { path: ["thread", "exec"], load: () => import("./thread/exec.js") },
  { path: ["thread", "show"], load: () => import("./thread/show.js") },
  { path: ["thread", "list"], load: () => import("./thread/list.js") },
  { path: ["thread", "read"], load: () => import("./thread/read.js") },
  { path: ["thread", "resume"], load: () => import("./thread/resume.js") },
  { path: ["thread", "answer"], load: () => import("./thread/answer.js") },
  { path: ["thread", "poke"], load: () => import("./thread/poke.js") },
  { path: ["thread", "steer"], load: () => import("./thread/steer.js") },
  { path: ["thread", "stop"], load: () => import("./thread/stop.js") },
  { path: ["thread", "cancel"], load: () => import("./thread/cancel.js") },
  { path: ["thread", "cleanup"], load: () => import("./thread/cleanup.js") },
  { path: ["thread", "join"], load: () => import("./thread/join.js") },
  { path: ["thread", "verify"], load: () => import("./thread/verify.js") },
  { path: ["thread", "export"], load: () => import("./thread/export.js") },
  { path: ["thread", "import"], load: () => import("./thread/import.js") },
  { path: ["thread", "trace"], load: () => import("./thread/trace.js") },
  { path: ["thread", "rebase"], load: () => import("./thread/rebase.js") },
  { path: ["thread", "reroute"], load: () => import("./thread/reroute.js") },
  { path: ["thread", "grep"], load: () => import("./thread/grep.js") },
  { path: ["thread", "watch"], load: () => import("./thread/watch.js") },
  { path: ["thread", "tree"], load: () => import("./thread/tree.js") },
  { path: ["thread", "diff"], load: () => import("./thread/diff.js") },
  { path: ["step", "list"], load: () => import("./step/list.js") },
  { path: ["step", "show"], load: () => import("./step/show.js") },
  { path: ["step", "read"], load: () => import("./step/read.js") },
  { path: ["step", "fork"], load: () => import("./step/fork.js") },
  { path: ["store", "migrate"], load: () => import("./store/migrate.js") },
  { path: ["store", "reindex"], load: () => import("./store/reindex.js") },
  { path: ["cas", "get"], load: () => import("./cas/get.js") },
  { path: ["cas", "put"], load: () => import("./cas/put.js") },
  { path: ["cas", "put-text"], load: () => import("./cas/put-text.js") },
  { path: ["cas", "has"], load: () => import("./cas/has.js") },
  { path: ["cas", "refs"], load: () => import("./cas/refs.js") },
  { path: ["cas", "walk"], load: () => import("./cas/walk.js") },
  { path: ["cas", "verify"], load: () => import("./cas/verify.js") },
  { path: ["cas", "gc"], load: () => import("./cas/gc.js") },
  { path: ["log", "list"], load: () => import("./log/list.js") },
  { path: ["log", "show"], load: () => import("./log/show.js") },
  { path: ["log", "clean"], load: () => import("./log/clean.js") },
  { path: ["setup"], load: () => import("./setup.js") },
  { path: ["config", "list"], load: () => import("./config/list.js") },
  { path: ["config", "get"], load: () => import("./config/get.js") },
  { path: ["config", "set"], load: () => import("./config/set.js") },
  { path: ["config", "unset"], load: () => import("./config/unset.js") },
  { path: ["doctor"], load: () => import("./doctor.js") },
  { path: ["dashboard"], load: () => import("./dashboard.js") },
  { path: ["mcp"], load: () => import("./mcp.js") },
  { path: ["schedule"], load: () => import("./schedule.js") },
  { path: ["usage"], load: () => import("./usage.js") },
  { path: ["completion"], load: () => import("./completion.js") },
  { path: ["prompt", "list"], load: () => import("./prompt/list.js") },
  { path: ["prompt", "usage"], load: () => import("./prompt/usage.js") },
  { path: ["prompt", "workflow-authoring"], load: () => import("./prompt/workflow-authoring.js") },
  { path: ["prompt", "adapter-developing"], load: () => import("./prompt/adapter-developing.js") },
  { path: ["prompt", "bootstrap"], load: () => import("./prompt/bootstrap.js") },
];
