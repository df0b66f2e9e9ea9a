import { shellQuote } from "@united-workforce/util";
import { stringify } from "yaml";
import { type CronSchedule, toOnCalendar } from "./cron.js";

export const SCHEDULE_TARGETS = ["crontab", "systemd", "github", "kubernetes"] as const;
export type ScheduleTarget = (typeof SCHEDULE_TARGETS)[number];

/** What a scheduled run does, and where: everything a target's files are made from. */
export interface ScheduledRun {
  workflow: string;
  schedule: CronSchedule;
  prompt?: string;
  promptFile?: string;
  title?: string;
  agent?: string;
  count: number;
  /** Where the run starts on this machine (crontab, systemd). */
  cwd: string;
  /** UWF_HOME on this machine (crontab, systemd). */
  home: string;
  /** PATH for a run on this machine: cron and systemd start with a bare one. */
  path: string;
  /** The store URL in effect (UWF_STORE or config.yaml's `store:`); none for the fs store. */
  storeUrl?: string;
  /** The URL holds a password: it is referred to, never written into a file. */
  storeHasSecret: boolean;
}

export interface ScheduleFile {
  path: string;
  content: string;
}

/** Where a secret store URL is read from on this machine (crontab and systemd). */
const STORE_ENV_FILE = "/etc/uwf/store.env";
const KUBERNETES_SECRET = { name: "uwf-store", key: "url" };

export function scheduleFiles(target: ScheduleTarget, run: ScheduledRun): ScheduleFile[] {
  switch (target) {
    case "crontab":
      return [crontab(run)];
    case "systemd":
      return systemd(run);
    case "github":
      return [githubWorkflow(run)];
    case "kubernetes":
      return [cronJob(run)];
  }
}

/** `id=$(uwf thread start …) && uwf thread exec "$id" -c N`, for a POSIX shell. */
export function runScript(run: ScheduledRun): string {
  const start = ["uwf", "thread", "start", run.workflow];
  if (run.prompt !== undefined) start.push("-p", run.prompt);
  if (run.promptFile !== undefined) start.push("--prompt-file", run.promptFile);
  if (run.title !== undefined) start.push("--title", run.title);
  const exec = ["-c", String(run.count)];
  if (run.agent !== undefined) exec.push("--agent", run.agent);
  return `id=$(${start.map(shellQuote).join(" ")}) && uwf thread exec "$id" ${exec.map(shellQuote).join(" ")}`;
}

/** A name for the files and units: the workflow's file or registered name, kebab-cased. */
export function scheduleName(workflow: string): string {
  const base = workflow.replace(/\/+$/, "").split("/").at(-1) ?? workflow;
  const stem = base.replace(/\.ya?ml$/i, "");
  const slug = stem
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return `uwf-${slug === "" ? "workflow" : slug}`;
}

function crontab(run: ScheduledRun): ScheduleFile {
  const exports = [`UWF_HOME=${shellQuote(run.home)}`, `PATH=${shellQuote(run.path)}`];
  const steps = [`cd ${shellQuote(run.cwd)}`];
  const notes = [
    `# ${run.workflow} on "${run.schedule.expression}" (local time). Install: crontab -e, and paste the line.`,
  ];
  if (run.storeUrl !== undefined && run.storeHasSecret) {
    notes.push(
      `# The store's URL holds a password, so it is not written here: put UWF_STORE=<url> in ${STORE_ENV_FILE} (readable by you only).`,
    );
    steps.push(`set -a`, `. ${STORE_ENV_FILE}`, `set +a`);
  } else if (run.storeUrl !== undefined) {
    exports.push(`UWF_STORE=${shellQuote(run.storeUrl)}`);
  }
  steps.splice(1, 0, `export ${exports.join(" ")}`);
  // cron reads an unescaped % as a newline.
  const command = [...steps, runScript(run)].join(" && ").replaceAll("%", "\\%");
  return {
    path: `${scheduleName(run.workflow)}.crontab`,
    content: `${notes.join("\n")}\n${run.schedule.expression} ${command}\n`,
  };
}

function systemd(run: ScheduledRun): ScheduleFile[] {
  const name = scheduleName(run.workflow);
  const environment = [`UWF_HOME=${run.home}`, `PATH=${run.path}`];
  if (run.storeUrl !== undefined && !run.storeHasSecret)
    environment.push(`UWF_STORE=${run.storeUrl}`);
  const service = [
    "# Install: copy both files to ~/.config/systemd/user/, then",
    `#   systemctl --user daemon-reload && systemctl --user enable --now ${name}.timer`,
    ...(run.storeHasSecret
      ? [
          `# The store's URL holds a password: put UWF_STORE=<url> in ${STORE_ENV_FILE} (mode 0600).`,
        ]
      : []),
    "[Unit]",
    `Description=uwf: ${run.workflow}`,
    "",
    "[Service]",
    "Type=oneshot",
    `WorkingDirectory=${run.cwd.replaceAll("%", "%%")}`,
    ...environment.map((value) => `Environment=${systemdQuote(value, { variables: false })}`),
    ...(run.storeHasSecret ? [`EnvironmentFile=${STORE_ENV_FILE}`] : []),
    `ExecStart=/bin/sh -c ${systemdQuote(runScript(run))}`,
    "",
  ].join("\n");
  const timer = [
    "[Unit]",
    `Description=uwf: ${run.workflow} on "${run.schedule.expression}"`,
    "",
    "[Timer]",
    `OnCalendar=${toOnCalendar(run.schedule)}`,
    // A run missed while the machine was off happens when it comes back.
    "Persistent=true",
    "",
    "[Install]",
    "WantedBy=timers.target",
    "",
  ].join("\n");
  return [
    { path: `${name}.service`, content: service },
    { path: `${name}.timer`, content: timer },
  ];
}

/**
 * One word for a unit file: systemd expands `%` specifiers (and, in ExecStart, `$VAR`) and
 * reads C escapes even inside quotes, so each is escaped to reach the program as written.
 */
export function systemdQuote(value: string, { variables = true } = {}): string {
  const escaped = value
    .replaceAll("\\", "\\\\")
    .replaceAll('"', '\\"')
    .replaceAll("%", "%%")
    // A function: in a replacement string "$$" would mean one "$".
    .replaceAll("$", () => (variables ? "$$" : "$"));
  return /^[\w@+=:,./-]+$/.test(value) ? escaped : `"${escaped}"`;
}

function storeEnvironment(run: ScheduledRun, secret: unknown): Record<string, unknown> {
  if (run.storeUrl === undefined) return {};
  return { UWF_STORE: run.storeHasSecret ? secret : run.storeUrl };
}

/** `${{ expr }}`, which GitHub evaluates when the job runs. */
function githubExpression(expression: string): string {
  return `$\{{ ${expression} }}`;
}

function githubWorkflow(run: ScheduledRun): ScheduleFile {
  const name = scheduleName(run.workflow);
  const postgres = run.storeUrl !== undefined;
  const env =
    run.storeUrl === undefined
      ? // An fs store lives as long as the job: use a shared store to keep the history.
        { UWF_HOME: `${githubExpression("runner.temp")}/uwf-home` }
      : storeEnvironment(run, githubExpression("secrets.UWF_STORE"));
  const document = {
    name,
    on: { schedule: [{ cron: run.schedule.expression }], workflow_dispatch: null },
    jobs: {
      run: {
        "runs-on": "ubuntu-latest",
        env,
        steps: [
          { uses: "actions/checkout@v4" },
          { uses: "pnpm/action-setup@v4" },
          { uses: "actions/setup-node@v4", with: { "node-version": 20, cache: "pnpm" } },
          { run: "pnpm install --frozen-lockfile" },
          {
            name: "Install uwf from the checkout",
            run: postgres ? "npm run install-cli -- --postgres" : "npm run install-cli",
          },
          { name: `Run ${run.workflow}`, run: runScript(run) },
        ],
      },
    },
  };
  const notes = [
    `# ${run.workflow} on "${run.schedule.expression}" (UTC), and by hand (workflow_dispatch).`,
    ...(run.storeHasSecret
      ? ["# The store's URL holds a password: add it as the repository secret UWF_STORE."]
      : []),
    "# Give the agent what it needs (API keys as secrets) in env.",
  ];
  return {
    path: `.github/workflows/${name}.yml`,
    content: `${notes.join("\n")}\n${stringify(document, { lineWidth: 0 }).replace("workflow_dispatch: null", "workflow_dispatch:")}`,
  };
}

function cronJob(run: ScheduledRun): ScheduleFile {
  const name = scheduleName(run.workflow);
  const secret = { valueFrom: { secretKeyRef: KUBERNETES_SECRET } };
  const env = Object.entries(
    run.storeUrl === undefined ? { UWF_HOME: "/var/lib/uwf" } : storeEnvironment(run, secret),
  ).map(([key, value]) =>
    typeof value === "string" ? { name: key, value } : { name: key, ...(value as object) },
  );
  const document = {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name },
    spec: {
      schedule: run.schedule.expression,
      concurrencyPolicy: "Forbid",
      jobTemplate: {
        spec: {
          template: {
            spec: {
              restartPolicy: "Never",
              containers: [
                {
                  name: "uwf",
                  image: "uwf:latest",
                  command: ["/bin/sh", "-c", runScript(run)],
                  env,
                },
              ],
            },
          },
        },
      },
    },
  };
  const notes = [
    `# ${run.workflow} on "${run.schedule.expression}". Install: kubectl apply -f ${name}.yaml`,
    "# The image must hold uwf and the agent (npm run install-cli in its build); set its name below.",
    ...(run.storeHasSecret
      ? [
          `# The store's URL holds a password: kubectl create secret generic ${KUBERNETES_SECRET.name} --from-literal=${KUBERNETES_SECRET.key}=<url>`,
        ]
      : []),
    ...(run.storeUrl === undefined
      ? [
          "# An fs store lives as long as the pod: mount a volume at /var/lib/uwf, or use PostgreSQL.",
        ]
      : []),
  ];
  return {
    path: `${name}.yaml`,
    content: `${notes.join("\n")}\n${stringify(document, { lineWidth: 0 })}`,
  };
}
