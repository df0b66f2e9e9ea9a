import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { delimiter, dirname, join, relative } from "node:path";
import { REPO_ROOT, runBin, type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The README's install command (`npm run install-cli`), run as written from the checkout into a
// temp npm prefix, and then the installed `uwf` from a folder outside the repository: what a
// user of a clone gets. Third-party dependencies come from npm's cache, or the registry on a
// miss; ours only from the tarballs (scripts/install-cli.mjs).

/** The README's line that installs uwf from the checkout. */
function readmeInstallCommand(): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const lines = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n"));
  const install = lines.filter((line) => line.startsWith("npm run install-cli"));
  expect(install, "the README shows `npm run install-cli` once").toHaveLength(1);
  return install[0]!;
}

/** The environment without npm's variables of the `npm test` that runs this, nor uwf's. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(npm_|UWF_|INIT_CWD$|NODE_PATH$)/.test(name)) env[name] = value;
  }
  return env;
}

const npmFound = spawnSync("npm", ["--version"]).status === 0;

describe.skipIf(!npmFound)("npm run install-cli, as the README shows it", () => {
  let temp: TempHome;
  let prefix: string;
  let installOutput: string;

  beforeAll(async () => {
    temp = tempHome();
    prefix = join(temp.home, "prefix");
    // npm's own variables point it at the temp prefix and its log files beside it: nothing lands
    // in the real global prefix, and of ~ only npm's cache is used.
    const env = {
      ...cleanEnv(),
      npm_config_prefix: prefix,
      npm_config_logs_dir: join(temp.home, "npm-logs"),
      npm_config_update_notifier: "false",
    };
    const where = spawnSync("npm", ["prefix", "--global"], { env, encoding: "utf8" });
    expect(where.stdout.trim()).toBe(prefix);
    const install = await runBin(
      "/bin/bash",
      ["--norc", "--noprofile", "-c", readmeInstallCommand()],
      {
        cwd: REPO_ROOT,
        env,
        timeoutMs: 600_000,
      },
    );
    installOutput = `${install.stdout}${install.stderr}`;
    expect(install.code, installOutput).toBe(0);
  }, 610_000);

  afterAll(() => temp?.cleanup());

  it("installs uwf and every adapter from the checkout into npm's prefix, and says where", () => {
    const version = JSON.parse(
      readFileSync(join(REPO_ROOT, "packages/cli/package.json"), "utf8"),
    ).version;
    expect(installOutput).toContain(`Installed into ${prefix}, version ${version}`);
    expect(installOutput).toContain(`uwf is ${join(prefix, "bin", "uwf")}`);
    for (const bin of ["uwf", "uwf-mock", "uwf-replay", "uwf-builtin", "uwf-claude-code"]) {
      // Each binary is the installed package's, not a link back into the repository.
      const target = realpathSync(join(prefix, "bin", bin));
      expect(relative(join(prefix, "lib", "node_modules"), target)).not.toMatch(/^\.\./);
    }
    for (const name of ["uwf-codex", "uwf-acp", "uwf-hermes"]) {
      expect(installOutput).toContain(name);
    }
  });

  it("runs a shipped example's thread to completion from outside the repository", async () => {
    const outside = join(temp.home, "outside");
    const uwfHome = join(temp.home, "uwf-home");
    mkdirSync(outside);
    copyFileSync(join(REPO_ROOT, "examples/solve-issue.yaml"), join(outside, "solve-issue.yaml"));
    const scenario = join(REPO_ROOT, "examples/scenarios/solve-issue.yaml");
    copyFileSync(scenario, join(outside, "scenario.yaml"));
    const steps = readFileSync(scenario, "utf8").match(/^ {2}- role: /gm)?.length;
    const bin = join(prefix, "bin");
    // Only the install's binaries, node and the system's tools: nothing leads into the repository.
    const env = {
      ...cleanEnv(),
      PATH: [bin, dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter),
      HOME: temp.home,
      UWF_HOME: uwfHome,
    };
    const uwf = (...args: string[]) =>
      runBin(join(bin, "uwf"), args, { cwd: outside, env, timeoutMs: 120_000 });

    const start = await uwf(
      "thread",
      "start",
      "solve-issue.yaml",
      "-p",
      "Fix #42: crash when the config file is empty",
    );
    expect(start.code, start.stderr).toBe(0);
    const thread = start.stdout.trim();
    const agent = "uwf-mock --scenario scenario.yaml";
    const exec = await uwf("thread", "exec", thread, "-c", "20", "--agent", agent, "--quiet");
    expect(exec.code, exec.stderr).toBe(0);
    expect(exec.stdout).toContain("committer → committed");
    expect(exec.stdout).toContain(`${thread}: completed`);
    const show = await uwf("thread", "show", thread, "--format", "json");
    expect(JSON.parse(show.stdout)).toMatchObject({ status: "completed", steps });
  });
});
