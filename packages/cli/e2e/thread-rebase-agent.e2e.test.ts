import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ThreadRebaseDocument } from "@united-workforce/protocol";
import {
  type AgentHome,
  agentCliPath,
  agentHome,
  type FakeLlm,
  REPO_ROOT,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";

/**
 * `thread rebase` with a real agent CLI (Claude Code) against the fake model: a three-step
 * thread whose second role is edited runs the agent for the second and third steps only, and the
 * first step is the recorded one, hash kept.
 */
const ROLES = ["a", "b", "c"] as const;

const workflow = (procedure: string) => `name: relay
roles:
${ROLES.map(
  (role) => `  ${role}:
    goal: "Do part ${role}. [[scenario:${role}]]"
    procedure: "${role === "b" ? procedure : "Answer at once."}"
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { const: done } }`,
).join("\n")}
graph:
  $START:
    new: { role: a, prompt: "Begin." }
    resume: { role: a, prompt: "Begin again." }
  a:
    done: { role: b, prompt: "Go on." }
  b:
    done: { role: c, prompt: "Finish." }
  c:
    done: { role: $END, prompt: "Finished." }
`;

let temp: TempHome;
let agent: AgentHome;
let fake: FakeLlm;
let uwfHome: string;

beforeAll(async () => {
  temp = tempHome();
  agent = agentHome();
  const scenarios = Object.fromEntries(
    ROLES.map((role) => [role, [{ text: `---\n$status: done\n---\nPart ${role} is done.\n` }]]),
  );
  fake = await startFakeLlm({ script: { scenarios } });
  uwfHome = join(temp.home, "uwf-home");
  mkdirSync(uwfHome);
  mkdirSync(join(temp.home, "v2"));
  writeFileSync(join(temp.home, "relay.yaml"), workflow("Answer at once."));
  writeFileSync(join(temp.home, "v2", "relay.yaml"), workflow("Answer at once, twice over."));
  const config = {
    providers: { anthropic: { api: "anthropic", baseUrl: fake.url, apiKey: "fake-key" } },
    models: { claude: { provider: "anthropic", name: "claude-fake" } },
    agents: {
      claude: {
        command: join(REPO_ROOT, "packages/agent-claude-code/bin/uwf-claude-code.cjs"),
        args: ["--max-retries", "0"],
        model: "claude",
      },
    },
    defaultAgent: "claude",
  };
  writeFileSync(join(uwfHome, "config.yaml"), stringifyYaml(config), { mode: 0o600 });
});

afterAll(async () => {
  await fake?.close();
  agent?.cleanup();
  temp?.cleanup();
});

function uwf(...args: string[]) {
  return runUwf(args, {
    home: uwfHome,
    cwd: temp.home,
    env: { ...agent.env, UWF_CLAUDE_BIN: agentCliPath("claude") },
    timeoutMs: 240_000,
  });
}

/** The scenarios of the agent turns the fake model served (side requests have none). */
function servedScenarios(from: number): string[] {
  return fake
    .requests()
    .slice(from)
    .map((r) => r.served.scenario)
    .filter((s): s is string => typeof s === "string" && s !== "default");
}

describe("uwf thread rebase with Claude Code against the fake model", () => {
  it("runs the agent only from the edited role on, the steps before it kept", async () => {
    const started = await uwf("thread", "start", join(temp.home, "relay.yaml"), "-p", "relay");
    expect(started.code, started.stderr).toBe(0);
    const thread = started.stdout.trim();
    const exec = await uwf("thread", "exec", thread, "-c", "3");
    expect(exec.code, `${exec.stdout}\n${exec.stderr}`).toBe(0);
    const recorded = JSON.parse((await uwf("step", "list", thread, "--format", "json")).stdout)
      .steps as { hash: string; agent: string }[];
    expect(recorded.map((s) => s.agent)).toEqual(Array(3).fill("uwf-claude-code"));
    expect(new Set(servedScenarios(0))).toEqual(new Set(ROLES));

    const before = fake.requests().length;
    const rebase = await uwf(
      "thread",
      "rebase",
      thread,
      "-w",
      join(temp.home, "v2", "relay.yaml"),
      "--format",
      "json",
    );
    expect(rebase.code, rebase.stderr).toBe(0);
    const doc = JSON.parse(rebase.stdout) as ThreadRebaseDocument;
    expect(doc.reused.map((s) => s.hash)).toEqual([recorded[0]!.hash]);
    expect(doc.firstChange).toMatchObject({ step: 2, roleChange: { fields: ["procedure"] } });
    expect(doc.run?.status).toBe("completed");
    // The model was asked for b and c again, never for a.
    expect(new Set(servedScenarios(before))).toEqual(new Set(["b", "c"]));

    const rebased = doc.rebased!.thread;
    const steps = JSON.parse((await uwf("step", "list", rebased, "--format", "json")).stdout)
      .steps as { hash: string; agent: string }[];
    expect(steps.map((s) => s.hash)[0]).toBe(recorded[0]!.hash);
    expect(steps.slice(1).map((s) => s.agent)).toEqual(["uwf-claude-code", "uwf-claude-code"]);
    const verify = await uwf("thread", "verify", rebased);
    expect(verify.code, verify.stdout).toBe(0);
    const read = await uwf("thread", "read", rebased);
    for (const role of ROLES) expect(read.stdout).toContain(`Part ${role} is done.`);
  }, 300_000);
});
