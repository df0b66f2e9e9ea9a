import { ExitCode } from "@united-workforce/protocol";
import type { UwfConfig } from "@united-workforce/store";
import { readHomeDotenv, UwfError } from "@united-workforce/util";
import { type CommandContext, defineCommand, result } from "./command.js";
import { openRunner } from "./thread/shared.js";
import { worktreePlace } from "./thread/worktrees.js";

export default defineCommand({
  path: ["dashboard"],
  interruptible: true,
  summary: "serve a local web view of workflows and threads, live, on 127.0.0.1",
  description:
    "Prints a URL with a secret token (open it in a browser) and serves until Ctrl-C. Shows each workflow's graph, roles, schemas and versions; threads with filters and live status; a thread's steps (output, body, the exact prompt), its forks, the output of a running step as it comes; and, on a suspended thread, what it waits for with the action that moves it on: a human role's form (as `uwf thread answer`), a question's answer, or resuming a failure, retry, guard, budget or fan-out (as `uwf thread resume`). It listens on 127.0.0.1 unless --host says otherwise, and every page needs the token; requests naming another host or coming from another origin are refused. With dashboard.publicUrl in config.yaml it also answers to that name, and opens the signed answer links notifications carry (one thread's answer form, once). With webhooks.github in config.yaml it takes GitHub's signed deliveries at POST /hooks/github and starts the registered workflows whose on.github declares the event, once each, running them in this process.",
  options: [
    {
      flags: "--port <n>",
      type: "integer",
      min: 0,
      max: 65535,
      default: "0",
      description: "port to listen on (0: a free one)",
      hint: "Give a port number from 1 to 65535, or 0 for a free one.",
    },
    {
      flags: "--host <address>",
      type: "string",
      default: "127.0.0.1",
      description:
        "address to listen on: 0.0.0.0 (all) or one of this machine's, when a proxy or tunnel forwards to it",
    },
  ],
  examples: [
    "uwf dashboard",
    "uwf dashboard --port 7420",
    "uwf dashboard --host 0.0.0.0 --port 7420",
  ],
  async run(ctx, _args, options) {
    const { startDashboard } = await import("../dashboard/server.js");
    // No progress view: the pages follow every run, its own answers' too, through the log.
    // The web view answers threads: its answers notify like `thread answer`.
    const runner = await openRunner(ctx, { moves: true });
    const config = await ctx.config();
    const host = options.host;
    const secret = githubSecret(ctx, config);
    const dashboard = await startDashboard({
      runner,
      events: ctx.events,
      home: ctx.home,
      by: ctx.env.USER ?? ctx.env.LOGNAME ?? "unknown",
      port: options.port,
      host,
      publicUrl: config.dashboard?.publicUrl ?? null,
      githubSecret: secret,
      cwd: ctx.cwd,
      // A workflow with `worktree: true` runs each thread a webhook starts in its own worktree.
      placeThread: async (thread, workflow) => {
        if (workflow.worktree !== true) return { cwd: ctx.cwd };
        const { createThreadWorktree } = await import("@united-workforce/engine");
        return createThreadWorktree(await worktreePlace(ctx), ctx.cwd, thread);
      },
    });
    ctx.events.emit("dashboard.start", { host, port: dashboard.port });
    const where =
      host === "127.0.0.1"
        ? "Serving on 127.0.0.1 only"
        : `Serving on ${host}:${dashboard.port}; every page needs the token (answer links and /hooks/github carry their own proof)`;
    const hooks =
      secret === null
        ? ""
        : `\nGitHub deliveries: POST ${config.dashboard?.publicUrl ?? new URL(dashboard.url).origin}/hooks/github`;
    ctx.progress(`uwf dashboard: open ${dashboard.url}\n${where}; Ctrl-C stops it.${hooks}`);
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await dashboard.close();
    const doc = {
      url: `http://127.0.0.1:${dashboard.port}/`,
      port: dashboard.port,
      requests: dashboard.requests(),
    };
    return result(
      doc,
      (d) => `dashboard on ${d.url} stopped after ${d.requests} requests`,
      ExitCode.interrupted,
    );
  },
});

/**
 * `webhooks.github`'s secret: the value itself, or the variable `secretEnv` names (the
 * environment, then UWF_HOME/.env); null when none is configured. A variable that is not set
 * stops the start: an endpoint that would refuse every delivery is a mistake to say at once.
 */
function githubSecret(ctx: CommandContext, config: UwfConfig): string | null {
  const github = config.webhooks?.github;
  if (!github) return null;
  if (github.secret) return github.secret;
  const name = github.secretEnv;
  if (!name) return null;
  const value = ctx.env[name] ?? readHomeDotenv(ctx.home)[name];
  if (!value) {
    throw new UwfError(
      "CONFIG_INVALID",
      `webhooks.github.secretEnv names ${name}, which is not set`,
      {
        hint: `Set ${name} to the GitHub webhook's secret (in the environment or UWF_HOME/.env), or remove webhooks.github from config.yaml.`,
      },
    );
  }
  return value;
}
