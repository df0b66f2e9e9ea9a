import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  ReceiptStatement,
  StepListDocument,
  StepPayload,
  ThreadVerifyDocument,
} from "@united-workforce/protocol";
import { openStore } from "@united-workforce/store";
import {
  type AgentHome,
  agentCliPath,
  agentHome,
  type FakeLlm,
  makeGitRepo,
  REPO_ROOT,
  runGit,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";

// A command appends a line to notes.txt, then an agent (uwf-mock) reviews: two steps in a git
// working tree, each with its receipt.
const EDIT = `name: edit
roles:
  write:
    goal: Append a line.
    run: ["/bin/sh", "-c", "echo added >> notes.txt; printf '{\\"$status\\":\\"done\\"}'"]
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { const: done } }
  review:
    goal: Review the change.
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { const: done } }
graph:
  $START:
    new: { role: write, prompt: "Write." }
    resume: { role: write, prompt: "Write again." }
  write:
    done: { role: review, prompt: "Review it." }
  review:
    done: { role: $END, prompt: "Finished." }
`;

let temp: TempHome;
let repo: string;
beforeEach(() => {
  temp = tempHome();
  repo = makeGitRepo(temp.home, join(temp.home, "repo"), { "notes.txt": "first\n" });
  writeFileSync(join(temp.home, "edit.yaml"), EDIT);
});
afterEach(() => temp.cleanup());

const uwf = (...args: string[]) => runUwf(args, { home: temp.home, cwd: temp.home });
const git = (...args: string[]) => runGit(temp.home, repo, ...args);
const json = async <T>(...args: string[]): Promise<T> => {
  const run = await uwf(...args, "--format", "json");
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
};

/** The edit thread run to its end, with a line added by hand between its two steps. */
async function editThread(): Promise<{ thread: string; steps: string[] }> {
  const start = await uwf(
    "thread",
    "start",
    join(temp.home, "edit.yaml"),
    "-p",
    "go",
    "--cwd",
    repo,
  );
  expect(start.code, start.stderr).toBe(0);
  const thread = start.stdout.trim();
  expect((await uwf("thread", "exec", thread, "-c", "1")).code).toBe(0);
  writeFileSync(join(repo, "by-hand.txt"), "outside any step\n");
  const scenario = writeScenario(temp.home, [
    { role: "write", output: { $status: "done" } },
    { role: "review", output: { $status: "done" } },
  ]);
  const agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
  const exec = await uwf("thread", "exec", thread, "--agent", agent);
  expect(exec.code, exec.stderr).toBe(0);
  const list = await json<StepListDocument>("step", "list", thread);
  return { thread, steps: list.steps.map((s) => s.hash) };
}

describe("receipts of steps run in a git working tree", () => {
  it("shows each step's diff stat, writes an in-toto receipt, and verifies the trees' chain", async () => {
    const { thread } = await editThread();
    const head = git("rev-parse", "HEAD");

    const list = await json<StepListDocument>("step", "list", thread);
    expect(list.steps.map((s) => s.diffStat)).toEqual([
      { files: 1, insertions: 1, deletions: 0 },
      { files: 0, insertions: 0, deletions: 0 },
    ]);
    const read = await uwf("thread", "read", thread);
    expect(read.stdout).toContain("\n1 file changed, +1 −0\n");
    expect(read.stdout).toContain("\nno files changed\n");
    // The trace's step spans carry the same diff stat and the commit the step began on.
    const trace = (await uwf("thread", "trace", thread)).stdout;
    expect(trace).toContain('"uwf.git.files_changed"');
    expect(trace).toContain(head);

    const receipt = await uwf("thread", "receipt", thread, "-o", "receipt.json");
    expect(receipt.code, receipt.stderr).toBe(0);
    expect(receipt.stdout.trim()).toBe(
      `wrote ${join(temp.home, "receipt.json")}: 4 subjects, 2 steps (2 in a git working tree)`,
    );
    const statement = JSON.parse(
      readFileSync(join(temp.home, "receipt.json"), "utf8"),
    ) as ReceiptStatement;
    expect(statement._type).toBe("https://in-toto.io/Statement/v1");
    expect(statement.subject[0]).toEqual({ name: "git-commit", digest: { gitCommit: head } });
    expect(statement.predicate.steps.map((s) => [s.role, s.agent.name])).toEqual([
      ["write", "script"],
      ["review", "uwf-mock"],
    ]);
    expect(statement.predicate.steps[0]!.git!.diffStat.perFile).toEqual([
      { path: "notes.txt", insertions: 1, deletions: 0 },
    ]);
    // Printed without -o: the same statement, derived again.
    expect(JSON.parse((await uwf("thread", "receipt", thread)).stdout)).toEqual(statement);
    // -o keeps the file rules: an existing file needs --force, a directory is never replaced.
    expect((await uwf("thread", "receipt", thread, "-o", "receipt.json")).code).toBe(2);
    mkdirSync(join(temp.home, "dir"));
    const intoDir = await uwf("thread", "receipt", thread, "-o", "dir");
    expect(intoDir.code).toBe(2);
    expect(intoDir.stderr).toContain("is a directory, not a regular file; nothing was written");

    const verify = await uwf("thread", "verify", thread);
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).toContain(`, recorded commits and trees found in ${repo})`);
    expect(verify.stdout).toMatch(/note: step 2 \w+: the working tree changed after step 1/);
  });

  it("names a tampered tree or a forged commit", async () => {
    const { thread, steps } = await editThread();
    const store = await openStore({ home: temp.home });
    const first = await store.cas.getPayload<StepPayload>(steps[0]!, "step");
    const second = await store.cas.getPayload<StepPayload>(steps[1]!, "step");

    // A recorded tree edited in place: the step no longer hashes to its name.
    const file = join(temp.home, "cas", steps[0]!.slice(0, 2), `${steps[0]}.json`);
    const bytes = readFileSync(file, "utf8");
    writeFileSync(file, bytes.replace(first.git!.after.tree, "f".repeat(40)));
    let run = await uwf("thread", "verify", thread);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`first bad node: step 1 ${steps[0]} (corrupt)`);
    writeFileSync(file, bytes);

    // A chain forged whole, every hash recomputed, around a commit that never was.
    const forgedCommit = "0123456789abcdef0123456789abcdef01234567";
    const forgedFirst = await store.cas.put(store.cas.builtin("step2"), {
      ...first,
      git: { ...first.git!, after: { ...first.git!.after, commit: forgedCommit } },
    });
    const forgedHead = await store.cas.put(store.cas.builtin("step2"), {
      ...second,
      prev: forgedFirst,
    });
    await store.close();
    const pointerFile = join(temp.home, "threads", `${thread}.json`);
    const pointer = JSON.parse(readFileSync(pointerFile, "utf8"));
    writeFileSync(pointerFile, JSON.stringify({ ...pointer, head: forgedHead }));
    run = await uwf("thread", "verify", thread, "--format", "json");
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout) as ThreadVerifyDocument;
    expect(doc.threads[0]!.problems).toEqual([
      {
        hash: forgedFirst,
        step: 1,
        kind: "git",
        reason: `the commit step 1 recorded after it ran, ${forgedCommit}, is not in the repository ${repo}`,
      },
    ]);
    // The same with the repository named from elsewhere.
    const named = await uwf("thread", "verify", thread, "--repo", repo);
    expect(named.code).toBe(1);
    expect(named.stdout).toContain(
      `(git) the commit step 1 recorded after it ran, ${forgedCommit}`,
    );
  });

  it("checks a receipt offline against an export bundle, in another store", async () => {
    const { thread } = await editThread();
    expect((await uwf("thread", "receipt", thread, "-o", "receipt.json")).code).toBe(0);
    expect((await uwf("thread", "export", thread, "-o", "run.uwf-bundle")).code).toBe(0);
    const elsewhere = tempHome();
    try {
      const offline = (...args: string[]) => runUwf(args, { home: elsewhere.home, cwd: temp.home });
      const ok = await offline(
        "thread",
        "verify",
        "--receipt",
        "receipt.json",
        "--bundle",
        "run.uwf-bundle",
      );
      expect(ok.code, ok.stdout + ok.stderr).toBe(0);
      expect(ok.stdout).toContain(
        `receipt ${join(temp.home, "receipt.json")}: ok (the same as derived from ${join(temp.home, "run.uwf-bundle")}`,
      );

      const statement = JSON.parse(readFileSync(join(temp.home, "receipt.json"), "utf8"));
      statement.predicate.steps[0].git.diffStat.insertions = 40;
      writeFileSync(join(temp.home, "forged.json"), JSON.stringify(statement));
      const forged = await offline(
        "thread",
        "verify",
        "--receipt",
        "forged.json",
        "--bundle",
        "run.uwf-bundle",
        "--format",
        "json",
      );
      expect(forged.code).toBe(1);
      expect(JSON.parse(forged.stdout).receipt).toMatchObject({
        ok: false,
        thread,
        differences: ["predicate.steps[0].git.diffStat.insertions: expected 1, found 40"],
      });
      // Against the store it came from, too.
      expect((await uwf("thread", "verify", "--receipt", "receipt.json")).code).toBe(0);
    } finally {
      elsewhere.cleanup();
    }
  });

  it("runs a step whose receipt git cannot take, and says why", async () => {
    writeFileSync(join(repo, ".git", "index"), "not an index");
    const start = await uwf(
      "thread",
      "start",
      join(temp.home, "edit.yaml"),
      "-p",
      "go",
      "--cwd",
      repo,
    );
    const thread = start.stdout.trim();
    const exec = await uwf("thread", "exec", thread, "-c", "1");
    expect(exec.code, exec.stderr).toBe(0);
    expect(exec.stderr).toMatch(
      /⚠ write: no receipt of this step \(git add --all failed in ".*": .*index/,
    );
    const list = await json<StepListDocument>("step", "list", thread);
    expect(list.steps).toHaveLength(1);
    expect(list.steps[0]!.diffStat).toBeUndefined();
  });

  it("records nothing for a thread outside any working tree, and says a receipt has nothing to name", async () => {
    const outside = join(temp.home, "plain");
    mkdirSync(outside);
    const start = await uwf(
      "thread",
      "start",
      join(temp.home, "edit.yaml"),
      "-p",
      "go",
      "--cwd",
      outside,
    );
    const thread = start.stdout.trim();
    expect((await uwf("thread", "exec", thread, "-c", "1")).code).toBe(0);
    const list = await json<StepListDocument>("step", "list", thread);
    expect(list.steps[0]!.diffStat).toBeUndefined();
    const receipt = await uwf("thread", "receipt", thread);
    expect(receipt.code).toBe(1);
    expect(receipt.stderr).toContain(
      "ran in a git working tree: a receipt has no commit or tree to name",
    );
  });
});

// The real Claude Code CLI against the fake model: its Write tool makes the change.
const CLAUDE_WORKFLOW = `name: greet
roles:
  writer:
    goal: "Write the greeting file. [[scenario:writer]]"
    frontmatter:
      type: object
      required: [$status, file]
      properties: { $status: { const: done }, file: { type: string } }
graph:
  $START:
    new: { role: writer, prompt: "Write HELLO.md." }
    resume: { role: writer, prompt: "Write HELLO.md again." }
  writer:
    done: { role: $END, prompt: "Finished." }
`;

describe("a receipt of a step by Claude Code (the real CLI, the fake model)", () => {
  let fake: FakeLlm;
  let agent: AgentHome;
  beforeEach(async () => {
    agent = agentHome();
    fake = await startFakeLlm({
      script: {
        scenarios: {
          writer: [
            {
              text: "Writing HELLO.md.",
              tool: { Write: { file_path: "HELLO.md", content: "# Hello\n\nFrom Claude.\n" } },
            },
            { text: "---\n$status: done\nfile: HELLO.md\n---\nWrote it.\n" },
          ],
        },
      },
    });
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
    writeFileSync(join(temp.home, "config.yaml"), stringifyYaml(config), { mode: 0o600 });
    writeFileSync(join(temp.home, "greet.yaml"), CLAUDE_WORKFLOW);
  });
  afterEach(async () => {
    await fake?.close();
    agent?.cleanup();
  });

  it("records the file Claude wrote, and the receipt names the agent and its model", async () => {
    const claude = (...args: string[]) =>
      runUwf(args, {
        home: temp.home,
        cwd: temp.home,
        env: { ...agent.env, UWF_CLAUDE_BIN: agentCliPath("claude") },
        timeoutMs: 240_000,
      });
    const start = await claude(
      "thread",
      "start",
      join(temp.home, "greet.yaml"),
      "-p",
      "Greet.",
      "--cwd",
      repo,
    );
    const thread = start.stdout.trim();
    const exec = await claude("thread", "exec", thread);
    expect(exec.code, `${exec.stdout}\n${exec.stderr}`).toBe(0);
    expect(readFileSync(join(repo, "HELLO.md"), "utf8")).toBe("# Hello\n\nFrom Claude.\n");

    const read = await claude("thread", "read", thread);
    expect(read.stdout).toContain("\n1 file changed, +3 −0\n");
    const receipt = await claude("thread", "receipt", thread, "--format", "json");
    expect(receipt.code, receipt.stderr).toBe(0);
    const [step] = (JSON.parse(receipt.stdout).statement as ReceiptStatement).predicate.steps;
    expect(step).toMatchObject({
      role: "writer",
      agent: { name: "uwf-claude-code", version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
      model: expect.any(String),
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
      git: {
        before: { commit: git("rev-parse", "HEAD"), tree: git("rev-parse", "HEAD^{tree}") },
        diffStat: { files: 1, perFile: [{ path: "HELLO.md", insertions: 3, deletions: 0 }] },
      },
    });
    // The tree after the step holds what Claude wrote, though nothing was committed.
    expect(git("cat-file", "-p", `${step!.git!.after.tree}:HELLO.md`)).toBe(
      "# Hello\n\nFrom Claude.",
    );
    expect(git("status", "--porcelain")).toBe("?? HELLO.md");
    expect((await claude("thread", "verify", thread)).code).toBe(0);
  });
});
