import { dirname } from "node:path";
import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "./command.js";
import { parseCron } from "./schedule/cron.js";
import { SCHEDULE_TARGETS, type ScheduledRun, scheduleFiles } from "./schedule/targets.js";
import { givenTitle, titleOption } from "./thread/title-option.js";

export default defineCommand({
  path: ["schedule"],
  summary:
    "print what runs a workflow on a cron schedule: a crontab line, a systemd timer, a GitHub Actions workflow or a Kubernetes CronJob (installs nothing)",
  description:
    "Each scheduled run is `id=$(uwf thread start <workflow> …) && uwf thread exec \"$id\" -c N`, against the store in effect here (UWF_STORE, else config.yaml's `store:`, else the fs store in UWF_HOME). A store URL that holds a password is never printed: the files read it from a secret (GitHub's `secrets.UWF_STORE`, a Kubernetes Secret, a systemd EnvironmentFile, a file crontab's line sources). The cron expression has five fields (`*`, numbers, lists, ranges, `/n` steps); crontab and systemd read it in local time, GitHub in UTC.",
  args: [
    {
      name: "workflow",
      description:
        "what `thread start` is given: a registered name, or a file from where the run starts",
      required: true,
    },
  ],
  options: [
    {
      flags: "--cron <expr>",
      type: "string",
      required: true,
      description: 'when to run, as five cron fields, e.g. "0 6 * * 1-5"',
      hint: 'Say when, e.g. --cron "0 6 * * 1-5" (06:00 on weekdays).',
    },
    {
      flags: "--target <name>",
      type: "enum",
      choices: SCHEDULE_TARGETS,
      default: "crontab",
      description: "what to print",
    },
    { flags: "-p, --prompt <text>", type: "string", description: "the task of each run" },
    {
      flags: "--prompt-file <path>",
      type: "string",
      description: "read each run's task from this file (read when the run starts)",
    },
    titleOption("the task's first line"),
    {
      flags: "--agent <alias|command>",
      type: "string",
      description: "the agent each run's `thread exec` uses",
    },
    {
      flags: "-c, --count <n>",
      type: "integer",
      min: 1,
      default: "20",
      description: "run up to n steps per run",
    },
  ],
  examples: [
    'uwf schedule triage --cron "0 6 * * 1-5" -p "Triage the new issues"',
    'uwf schedule triage --cron "*/30 * * * *" --target systemd --prompt-file task.md',
    'uwf schedule examples/hello.yaml --cron "0 9 * * 1" --target github -p "Weekly report" > .github/workflows/uwf-hello.yml',
    'uwf schedule triage --cron "0 * * * *" --target kubernetes --format json',
  ],
  async run(ctx, [workflow], options) {
    const schedule = parseCron(options.cron);
    if (options.prompt !== undefined && options.promptFile !== undefined) {
      throw new UwfError("USAGE", "give the task with -p or --prompt-file, not both", {
        hint: "Keep one of them.",
      });
    }
    if (options.prompt === "-") {
      throw new UwfError("USAGE", "-p - reads stdin, which a scheduled run does not have", {
        hint: 'Give the task as text (-p "…") or in a file (--prompt-file task.md).',
      });
    }
    const title = givenTitle(options.title);
    const { maskUrl, readStoreConfig } = await import("@united-workforce/store");
    const configured = readStoreConfig(ctx.home).store;
    const url = ctx.env.UWF_STORE || (typeof configured === "string" ? configured : undefined);
    const storeUrl = url === undefined || url === "fs" ? undefined : url;
    const run: ScheduledRun = {
      workflow: workflow as string,
      schedule,
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
      ...(options.promptFile !== undefined ? { promptFile: options.promptFile } : {}),
      ...(title !== undefined ? { title } : {}),
      ...(options.agent !== undefined ? { agent: options.agent } : {}),
      count: options.count,
      cwd: ctx.cwd,
      home: ctx.home,
      path: [
        ...new Set([
          dirname(ctx.self[0] ?? process.execPath),
          "/usr/local/bin",
          "/usr/bin",
          "/bin",
        ]),
      ].join(":"),
      ...(storeUrl !== undefined ? { storeUrl } : {}),
      storeHasSecret: storeUrl !== undefined && maskUrl(storeUrl).includes("****"),
    };
    const files = scheduleFiles(options.target, run);
    return result({ target: options.target, files }, (doc) =>
      doc.files.length === 1
        ? (doc.files[0]?.content ?? "").trimEnd()
        : doc.files.map((file) => `# ${file.path}\n${file.content.trimEnd()}`).join("\n\n"),
    );
  },
});
