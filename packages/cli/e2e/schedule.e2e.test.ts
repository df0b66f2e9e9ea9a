import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runBin, runUwf, type TempHome, tempHome, UWF_BIN } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { HELLO, mockAgent, sandbox, scenario, uwfJson } from "./fixtures/lifecycle/harness.js";

/** systemd's own checker, where it is installed: it reads the units as systemd will. */
const systemdAnalyze = (() => {
  try {
    execFileSync("systemd-analyze", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const PASSWORD = "s3cret-Pa55word";
const SECRET_URL = `postgres://uwf:${PASSWORD}@db.internal:5432/uwf`;

interface ScheduleDocument {
  target: string;
  files: { path: string; content: string }[];
}

describe("uwf schedule", () => {
  let temp: TempHome;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  const uwf = (args: string[], env: Record<string, string> = {}) =>
    runUwf(args, { home: temp.home, env });
  const schedule = async (args: string[], env: Record<string, string> = {}) => {
    const run = await uwf(["schedule", "triage", ...args, "--format", "json"], env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout) as ScheduleDocument;
  };
  const task = ["--cron", "*/30 6-18 * * 1-5", "-p", "Triage the new issues", "--title", "Triage"];

  it("prints a crontab line by default, against the fs store in UWF_HOME", async () => {
    const doc = await schedule(task);
    expect(doc.target).toBe("crontab");
    const line = doc.files[0]?.content.split("\n").find((l) => !l.startsWith("#") && l !== "");
    expect(line).toMatch(
      /^\*\/30 6-18 \* \* 1-5 cd \S+ && export UWF_HOME=\S+ PATH=\S+ && id=\$\(uwf thread start triage -p 'Triage the new issues' --title Triage\) && uwf thread exec "\$id" -c 20$/,
    );
    expect(line).toContain(`UWF_HOME=${temp.home}`);
    const text = await uwf(["schedule", "triage", ...task]);
    expect(text.stdout.trim()).toBe(doc.files[0]?.content.trim());
  });

  it("prints a systemd service and a timer whose OnCalendar matches the cron expression", async () => {
    const doc = await schedule([...task, "--target", "systemd", "--agent", "claude", "-c", "5"]);
    expect(doc.files.map((f) => f.path)).toEqual(["uwf-triage.service", "uwf-triage.timer"]);
    const [service, timer] = doc.files.map((f) => f.content) as [string, string];
    expect(service).toMatch(/^Type=oneshot$/m);
    expect(service).toMatch(
      /^ExecStart=\/bin\/sh -c ".*uwf thread exec \\"\$\$id\\" -c 5 --agent claude"$/m,
    );
    expect(timer).toMatch(/^OnCalendar=Mon\.\.Fri \*-\*-\* 06\.\.18:00\/30:00$/m);
  });

  it.skipIf(!systemdAnalyze)("prints units systemd-analyze accepts", async () => {
    const doc = await schedule([
      "--cron",
      "*/30 6-18 * * 1-5",
      "--target",
      "systemd",
      "-p",
      `50% of "it's" $HOME \\ done`,
    ]);
    for (const file of doc.files) writeFileSync(join(temp.home, file.path), file.content);
    const units = doc.files.map((file) => join(temp.home, file.path));
    execFileSync("systemd-analyze", ["verify", ...units], { stdio: "pipe" });
    const calendar = /^OnCalendar=(.*)$/m.exec(doc.files[1]?.content ?? "")?.[1] ?? "";
    const normalized = execFileSync("systemd-analyze", ["calendar", calendar], {
      encoding: "utf8",
    });
    expect(normalized).toContain(`Normalized form: ${calendar}`);
  });

  it("prints a GitHub Actions workflow: scheduled and by hand, uwf installed from the checkout", async () => {
    const doc = await schedule([...task, "--target", "github"]);
    expect(doc.files[0]?.path).toBe(".github/workflows/uwf-triage.yml");
    const workflow = parse(doc.files[0]?.content ?? "");
    expect(workflow.on).toEqual({
      schedule: [{ cron: "*/30 6-18 * * 1-5" }],
      workflow_dispatch: null,
    });
    const runs = workflow.jobs.run.steps.map((step: { run?: string }) => step.run).filter(Boolean);
    expect(runs).toContain("npm run install-cli");
    expect(runs.at(-1)).toBe(
      `id=$(uwf thread start triage -p 'Triage the new issues' --title Triage) && uwf thread exec "$id" -c 20`,
    );
  });

  it("prints a run that, run by a shell, starts a thread and runs it to its end", async () => {
    const sb = sandbox();
    try {
      const answer = [{ role: "greeter", output: { $status: "done", greeting: "Hi" } }];
      const agent = mockAgent(scenario(sb, "greet", answer));
      const printed = await runUwf(
        ["schedule", HELLO, "--cron", "0 6 * * *", "--target", "github", "-p", "Greet Ada"].concat([
          "--title",
          "Morning greeting",
          "--agent",
          agent,
          "-c",
          "3",
        ]),
        { home: sb.home },
      );
      const steps = parse(printed.stdout).jobs.run.steps as { run?: string }[];
      // `uwf` on PATH, as the install step leaves it.
      const bin = join(sb.home, "bin");
      mkdirSync(bin);
      writeFileSync(join(bin, "uwf"), `#!/bin/sh\nexec "${process.execPath}" "${UWF_BIN}" "$@"\n`);
      chmodSync(join(bin, "uwf"), 0o755);
      const ran = await runBin("/bin/sh", ["-c", steps.at(-1)?.run ?? ""], {
        cwd: sb.work,
        env: { UWF_HOME: sb.home, HOME: sb.home, PATH: `${bin}:${process.env.PATH}` },
      });
      expect(ran.code).toBe(0);
      const list = await uwfJson<{ threads: { status: string; title: string }[] }>(sb, [
        "thread",
        "list",
      ]);
      expect(list.threads).toMatchObject([{ status: "completed", title: "Morning greeting" }]);
    } finally {
      sb.cleanup();
    }
  });

  it("prints a Kubernetes CronJob", async () => {
    const doc = await schedule([...task, "--target", "kubernetes"]);
    const job = parse(doc.files[0]?.content ?? "");
    expect(job).toMatchObject({
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "uwf-triage" },
      spec: { schedule: "*/30 6-18 * * 1-5", concurrencyPolicy: "Forbid" },
    });
    const container = job.spec.jobTemplate.spec.template.spec.containers[0];
    expect(container.command.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
    expect(container.command[2]).toMatch(
      /^id=\$\(uwf thread start triage .*\) && uwf thread exec "\$id" -c 20$/,
    );
  });

  it("never prints a store password: each target refers to a secret instead", async () => {
    for (const source of ["env", "config"] as const) {
      const env: Record<string, string> = source === "env" ? { UWF_STORE: SECRET_URL } : {};
      if (source === "config")
        writeFileSync(join(temp.home, "config.yaml"), `store: ${SECRET_URL}\n`);
      const docs = Object.fromEntries(
        await Promise.all(
          ["crontab", "systemd", "github", "kubernetes"].map(async (target) => {
            const run = await uwf(["schedule", "triage", ...task, "--target", target], env);
            expect(run.code).toBe(0);
            expect(run.stdout + run.stderr).not.toContain(PASSWORD);
            const json = await schedule([...task, "--target", target], env);
            expect(JSON.stringify(json)).not.toContain(PASSWORD);
            return [target, json] as const;
          }),
        ),
      );
      const content = (target: string) =>
        (docs[target] as ScheduleDocument).files.map((f) => f.content).join("\n");
      expect(content("crontab")).toContain(". /etc/uwf/store.env");
      expect(content("systemd")).toMatch(/^EnvironmentFile=\/etc\/uwf\/store\.env$/m);
      expect(parse(content("github")).jobs.run.env).toEqual({
        UWF_STORE: ["$", "{{ secrets.UWF_STORE }}"].join(""),
      });
      const job = parse(content("kubernetes"));
      expect(job.spec.jobTemplate.spec.template.spec.containers[0].env).toEqual([
        { name: "UWF_STORE", valueFrom: { secretKeyRef: { name: "uwf-store", key: "url" } } },
      ]);
    }
  });

  it("passes a store URL without a password as it is", async () => {
    const url = "postgres://uwf@db.internal/uwf";
    const doc = await schedule([...task, "--target", "github"], { UWF_STORE: url });
    expect(parse(doc.files[0]?.content ?? "").jobs.run.env).toEqual({ UWF_STORE: url });
  });

  it.each([
    [["--cron", "0 6 * *"], /has 4 fields, not 5/],
    [["--cron", "0 24 * * *"], /hour field "24" holds 24, outside 0-23/],
    [["--cron", "0 6 1 * 1", "--target", "systemd"], /both the day of month and the day of week/],
    [["--cron", "0 6 * * *", "-p", "-"], /reads stdin/],
  ])("refuses %j with a usage error", async (args, message) => {
    const run = await uwf(["schedule", "triage", ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe("");
  });
});
