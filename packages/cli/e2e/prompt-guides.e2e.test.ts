import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import {
  REPO_ROOT,
  runBin,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
  UWF_BIN,
  UWF_MOCK_BIN,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMMANDS } from "../src/commands/index.js";
import {
  EXAMPLE_ADAPTER,
  EXAMPLE_CONFIG,
  renderAdapterDeveloping,
} from "../src/commands/prompt/texts/adapter-developing.js";
import { HELLO_GREETING, renderBootstrap } from "../src/commands/prompt/texts/bootstrap.js";
import { fileBlock, markedBlocks } from "../src/commands/prompt/texts/markdown.js";
import { renderUsage } from "../src/commands/prompt/texts/usage.js";
import { renderWorkflowAuthoring } from "../src/commands/prompt/texts/workflow-authoring.js";

/** The built-in agent's binary, once that package is part of this tree. */
const BUILTIN = join(REPO_ROOT, "packages/agent-builtin/bin/uwf-builtin.cjs");
const BUILTIN_BIN = existsSync(BUILTIN) ? BUILTIN : null;

/**
 * A machine as the bootstrap guide finds it after `npm i -g`: an empty HOME and UWF_HOME, and
 * a PATH holding only node, the system tools and the installed binaries (links to this
 * repository's builds). No network: the model, where one is needed, is the fake server.
 */
interface FreshMachine {
  home: string;
  uwfHome: string;
  scratch: string;
  env: Record<string, string>;
  /** Run a guide's shell block as a reader would paste it, in the scratch folder. */
  sh(script: string, env?: Record<string, string>): ReturnType<typeof runBin>;
}

function freshMachine(root: string): FreshMachine {
  const home = join(root, "home");
  const uwfHome = join(home, ".uwf");
  const scratch = join(home, "scratch");
  const bin = join(root, "bin");
  for (const dir of [home, scratch, bin]) mkdirSync(dir, { recursive: true });
  symlinkSync(UWF_BIN, join(bin, "uwf"));
  symlinkSync(UWF_MOCK_BIN, join(bin, "uwf-mock"));
  if (BUILTIN_BIN) symlinkSync(BUILTIN_BIN, join(bin, "uwf-builtin"));
  const env = {
    HOME: home,
    UWF_HOME: uwfHome,
    PATH: [bin, dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter),
  };
  return {
    home,
    uwfHome,
    scratch,
    env,
    sh: (script, more = env) =>
      runBin("/bin/sh", ["-c", script], { cwd: scratch, env: more, timeoutMs: 60_000 }),
  };
}

/** The guide's shell blocks marked with these markers, in order; exactly those. */
function verifyBlocks(markdown: string, markers: string[] = ["verify"]): string[] {
  const blocks = markedBlocks(markdown).filter((b) => b.marker.startsWith("verify"));
  expect(blocks.map((b) => b.marker)).toEqual(markers);
  for (const block of blocks) expect(block.language).toBe("sh");
  return blocks.map((b) => b.body);
}

describe("the uwf prompt guides, followed to the letter", () => {
  let temp: TempHome;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  it("bootstrap: its install check passes on a fresh machine with no config", async () => {
    const machine = freshMachine(temp.home);
    const [script] = verifyBlocks(renderBootstrap(), ["verify", "verify-model"]);
    const run = await machine.sh(script!);
    expect(run.code, `${script}\n---\n${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain("checks passed");
    expect(run.stdout).toContain("completed");
    expect(run.stdout).toContain(HELLO_GREETING);
    const threads = await runBin(UWF_BIN, ["thread", "list", "--format", "json"], {
      env: machine.env,
    });
    expect(JSON.parse(threads.stdout).threads).toEqual([
      expect.objectContaining({ workflow: "hello", status: "completed" }),
    ]);
  });

  it("bootstrap: with a model configured by uwf setup, doctor and the model check pass", async () => {
    const machine = freshMachine(temp.home);
    const reply = `---\n$status: done\ngreeting: ${HELLO_GREETING}\n---\n${HELLO_GREETING} Welcome.\n`;
    const llm = await startFakeLlm({ script: { steps: [{ text: reply }] } });
    try {
      // uwf-builtin talks to the model itself; until it is part of this tree, the mock stands
      // in for the agent and the model is still what setup and doctor check.
      const agent = BUILTIN_BIN
        ? "builtin"
        : `uwf-mock --scenario ${join(machine.scratch, "uwf-check/hello-mock.yaml")}`;
      const env = { ...machine.env, FAKE_LLM_KEY: "sk-fake" };
      const setup = await runBin(
        UWF_BIN,
        [
          "setup",
          "--provider",
          "fake",
          "--base-url",
          llm.baseUrl,
          "--model",
          "fake-model",
          "--api-key-env",
          "FAKE_LLM_KEY",
          "--agent",
          agent,
        ],
        { env, cwd: machine.scratch },
      );
      expect(setup.code, setup.stdout + setup.stderr).toBe(0);
      expect(setup.stdout).toContain("Config saved to");
      const answered = llm.requests().length;
      expect(answered, "setup asked the model for one token").toBeGreaterThan(0);

      const [install, model] = verifyBlocks(renderBootstrap(), ["verify", "verify-model"]);
      const checked = await machine.sh(install!, env);
      expect(checked.code, `${checked.stdout}\n${checked.stderr}`).toBe(0);
      expect(checked.stdout).toContain(llm.baseUrl);
      const run = await machine.sh(model!, env);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain("completed");
      if (BUILTIN_BIN) {
        const asked = JSON.stringify(
          llm
            .requests()
            .slice(answered)
            .map((r) => r.body),
        );
        expect(asked).toContain("Greet Ada, who joins the team today.");
      }
    } finally {
      await llm.close();
    }
  });

  it("workflow-authoring: the example validates and runs to $END with its mock answers", async () => {
    const machine = freshMachine(temp.home);
    const guide = renderWorkflowAuthoring();
    for (const name of ["draft-review.yaml", "draft-review-mock.yaml"]) {
      writeFileSync(join(machine.scratch, name), fileBlock(guide, name));
    }
    const validate = await machine.sh("uwf workflow validate draft-review.yaml");
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout).toContain("✓ draft-review is valid");
    expect(validate.stderr).toBe("");

    for (const script of verifyBlocks(guide)) {
      const run = await machine.sh(script);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain("Say what team she joins.");
    }
    const list = await runBin(UWF_BIN, ["thread", "list", "--format", "json"], {
      env: machine.env,
    });
    const [thread] = JSON.parse(list.stdout).threads;
    expect(thread).toMatchObject({ workflow: "draft-review", status: "completed" });
    const steps = await runBin(UWF_BIN, ["step", "list", thread.thread, "--format", "json"], {
      env: machine.env,
    });
    expect(
      JSON.parse(steps.stdout).steps.map((s: { role: string; status: string }) => s.status),
    ).toEqual(["drafted", "rejected", "drafted", "approved"]);
  });

  it("adapter-developing: the example adapter runs a thread against a model, repairing in the same conversation", async () => {
    const project = join(temp.home, "my-adapter");
    const kit = join(project, "node_modules", "@united-workforce");
    mkdirSync(kit, { recursive: true });
    // What `npm i @united-workforce/agent-kit` gives the project.
    symlinkSync(join(REPO_ROOT, "packages/agent-kit"), join(kit, "agent-kit"));
    const guide = renderAdapterDeveloping();
    const adapter = join(project, "my-adapter.mjs");
    writeFileSync(adapter, fileBlock(guide, "my-adapter.mjs"));
    expect(fileBlock(guide, "my-adapter.mjs")).toBe(EXAMPLE_ADAPTER);

    const reply = "---\n$status: done\ngreeting: Hello, Ada!\n---\nHello, Ada! Welcome.\n";
    const llm = await startFakeLlm({
      script: { steps: [{ text: "Happy to help: hello, Ada!" }, { text: reply }] },
    });
    try {
      const uwfHome = join(temp.home, "uwf");
      mkdirSync(uwfHome);
      writeFileSync(
        join(uwfHome, ".env"),
        `MY_AGENT_BASE_URL=${llm.baseUrl}\nMY_AGENT_API_KEY=sk-test\nMY_AGENT_MODEL=fake-model\n`,
      );
      const hello = join(REPO_ROOT, "examples/hello.yaml");
      const start = () => runUwf(["thread", "start", hello, "-p", "Greet Ada"], { home: uwfHome });

      // As the guide says to try it: --agent with the command line.
      const first = (await start()).stdout.trim();
      const exec = await runUwf(["thread", "exec", first, "--agent", `node ${adapter}`], {
        home: uwfHome,
      });
      expect(exec.code, exec.stderr).toBe(0);
      const [asked, corrected] = llm.requests() as { body: { messages: unknown[] } }[];
      expect(llm.requests()).toHaveLength(2);
      expect(corrected!.body.messages.slice(0, 2)).toEqual([
        ...asked!.body.messages,
        { role: "assistant", content: "Happy to help: hello, Ada!" },
      ]);

      // As the guide registers it: config.yaml's defaultAgent, no --agent.
      writeFileSync(
        join(uwfHome, "config.yaml"),
        EXAMPLE_CONFIG.replace(/\/home\/me\/my-adapter\/my-adapter\.mjs/, adapter),
      );
      expect(fileBlock(guide, "config.yaml")).toBe(EXAMPLE_CONFIG);
      const second = (await start()).stdout.trim();
      const configured = await runUwf(["thread", "exec", second], { home: uwfHome });
      expect(configured.code, configured.stderr).toBe(0);
      for (const thread of [first, second]) {
        const shown = await runUwf(["thread", "show", thread, "--format", "json"], {
          home: uwfHome,
        });
        expect(JSON.parse(shown.stdout)).toMatchObject({ status: "completed", steps: 1 });
      }
    } finally {
      await llm.close();
    }
  });

  it("uwf prompt prints each guide, as markdown or as { name, text }", async () => {
    const guides = {
      usage: renderUsage(COMMANDS),
      "workflow-authoring": renderWorkflowAuthoring(),
      "adapter-developing": renderAdapterDeveloping(),
      bootstrap: renderBootstrap(),
    };
    const list = await runUwf(["prompt", "list"], { home: temp.home });
    expect(list.code).toBe(0);
    expect(
      list.stdout
        .trim()
        .split("\n")
        .map((line) => line.split(" ")[0]),
    ).toEqual(Object.keys(guides));
    for (const [name, text] of Object.entries(guides)) {
      const shown = await runUwf(["prompt", name], { home: temp.home });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toBe(`${text}\n`);
      const json = await runUwf(["prompt", name, "--format", "json"], { home: temp.home });
      expect(JSON.parse(json.stdout)).toEqual({ name, text });
    }
    const unknown = await runUwf(["prompt", "bootstrapp"], { home: temp.home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("bootstrap");
  });
});
