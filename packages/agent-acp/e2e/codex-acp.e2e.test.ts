import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  agentCliPath,
  type FakeLlm,
  type FakeStep,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AcpHome, acpHome, requireBuilt, UWF_ACP_BIN } from "./helpers.js";

// The real Codex ACP agent (@agentclientprotocol/codex-acp 2.6.0, with the codex it depends
// on), its model replaced by the fake. The conformance cases are in conformance-codex.test.ts.

const CODEX_ACP = agentCliPath("codex-acp");
const KEY = "fake-codex-acp-key-Q4";

const WORKFLOW = {
  name: "codex-acp-demo",
  roles: {
    writer: {
      goal: "Do what you are asked.",
      frontmatter: {
        type: "object",
        properties: { $status: { const: "done" }, file: { type: "string" } },
        required: ["$status", "file"],
      },
    },
  },
  graph: {
    $START: {
      new: { role: "writer", prompt: "Dump the environment." },
      resume: { role: "writer", prompt: "Carry on." },
    },
    writer: { done: { role: "$END", prompt: "Finished." } },
  },
};

let temp: TempHome;
let fake: FakeLlm;
let env: AcpHome;

beforeAll(() => requireBuilt());
beforeEach(() => {
  temp = tempHome();
});
afterEach(async () => {
  await fake?.close();
  temp.cleanup();
});

/** A store whose one agent is codex-acp on the fake, as `model`; returns the exec's result. */
async function execOneStep(steps: FakeStep[], model: string) {
  fake = await startFakeLlm({ script: { steps } });
  env = await acpHome(temp, {
    workflow: WORKFLOW,
    config: {
      providers: { fake: { api: "openai-responses", baseUrl: fake.baseUrl, apiKey: KEY } },
      models: { chosen: { provider: "fake", name: model } },
      agents: {
        codex: {
          command: UWF_ACP_BIN,
          args: ["--preset", "codex", "--bin", CODEX_ACP, "--model", "chosen"],
          timeoutSeconds: 60,
        },
      },
      defaultAgent: "codex",
    },
  });
  const started = await env.uwf(["thread", "start", "codex-acp-demo", "-p", "Dump it."]);
  expect(started.code, started.stderr).toBe(0);
  return await env.uwf(["thread", "exec", started.stdout.trim(), "-c", "1"], 120_000);
}

const DONE = { text: "---\n$status: done\nfile: envdump.txt\n---\nDumped." };

describe("uwf-acp --preset codex against the real codex-acp", () => {
  it("sends the provider's key to the model's server, never to the model's commands or a file", async () => {
    // Codex deletes its shell snapshots when the session ends: the command copies them.
    const cmd = 'env > envdump.txt; cat "$CODEX_HOME"/shell_snapshots/*.sh > snapshots.txt';
    const exec = await execOneStep([{ tool: { exec_command: { cmd } } }, DONE], "gpt-5.5");
    expect(exec.code, exec.stderr).toBe(0);

    expect(fake.requests()[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    // The command ran with the user's environment, but not the key.
    const dump = readFileSync(join(env.work, "envdump.txt"), "utf8");
    expect(dump).toMatch(/^PATH=/m);
    expect(dump).not.toContain(KEY);
    const snapshots = readFileSync(join(env.work, "snapshots.txt"), "utf8");
    expect(snapshots).toContain("declare -x PATH=");
    expect(snapshots).not.toContain(KEY);
    // Nor is it in any file codex or uwf left behind, but config.yaml and its parsed copy (0600).
    const written = readdirSync(env.home, { recursive: true, encoding: "utf8" })
      .map((name) => join(env.home, name))
      .filter(
        (path) => statSync(path).isFile() && !/(config\.yaml|cache\/config\.json)$/.test(path),
      )
      .filter((path) => readFileSync(path, "utf8").includes(KEY));
    expect(written).toEqual([]);
  });

  it("answers with a model codex does not know: its warning is a notice, not part of the answer", async () => {
    // codex warns "Model metadata for `qwen3-coder` not found"; as answer text, it came before
    // the frontmatter and every step failed as invalid output.
    const exec = await execOneStep([DONE], "qwen3-coder");
    expect(exec.code, exec.stderr).toBe(0);
    expect(exec.stderr).toMatch(/uwf-acp: warning: Model metadata for `qwen3-coder` not found/);
    expect(exec.stderr).not.toContain("output invalid");
  });
});
