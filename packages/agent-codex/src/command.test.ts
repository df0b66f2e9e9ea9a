import { describe, expect, it } from "vitest";
import {
  API_KEY_ENV,
  type CodexModel,
  codexArgs,
  codexEnv,
  isCodexSessionId,
  modelConfigFlags,
  parseSandbox,
} from "./command.js";

const model: CodexModel = {
  alias: "fake",
  baseUrl: "http://127.0.0.1:9/v1",
  apiKey: "sk-test",
  name: "gpt-5.5",
};

describe("codexArgs", () => {
  it("starts a new session with the sandbox, the prompt on stdin and no --ephemeral", () => {
    expect(codexArgs({ sandbox: "workspace-write", model: null, resume: null })).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "-s",
      "workspace-write",
      "-",
    ]);
  });

  it("resumes with the sandbox as a config value, since exec resume rejects -s", () => {
    const args = codexArgs({ sandbox: "read-only", model, resume: "01a2-beef" });
    expect(args.slice(0, 6)).toEqual([
      "exec",
      "resume",
      "--json",
      "--skip-git-repo-check",
      "-c",
      'sandbox_mode="read-only"',
    ]);
    expect(args.slice(-2)).toEqual(["01a2-beef", "-"]);
    expect(args).not.toContain("-s");
    expect(args).toContain('model="gpt-5.5"');
  });

  it("refuses a session id that could be read as an option", () => {
    expect(() => codexArgs({ sandbox: "read-only", model: null, resume: "--last" })).toThrow(
      /not a codex session id/,
    );
    expect(isCodexSessionId("01a20a82-6157-7ee1-9ca6-983794ca78a7")).toBe(true);
    expect(isCodexSessionId("../x")).toBe(false);
  });
});

describe("modelConfigFlags", () => {
  it("adds a provider for the model, its key by variable name only and hidden from commands, and the quiet settings", () => {
    const flags = modelConfigFlags(model);
    const values = flags.filter((_, i) => i % 2 === 1);
    expect(flags.filter((_, i) => i % 2 === 0).every((flag) => flag === "-c")).toBe(true);
    expect(values).toEqual([
      `model_providers.uwf={ name = "uwf", base_url = "http://127.0.0.1:9/v1", env_key = "${API_KEY_ENV}", wire_api = "responses", request_max_retries = 0, stream_max_retries = 0 }`,
      'model_provider="uwf"',
      'model="gpt-5.5"',
      "check_for_update_on_startup=false",
      "features.plugins=false",
      "analytics.enabled=false",
      'otel.metrics_exporter="none"',
      `shell_environment_policy.exclude=["${API_KEY_ENV}"]`,
    ]);
    expect(flags.join(" ")).not.toContain("sk-test");
  });

  it("leaves env_key out for a provider without a key, and quotes names as TOML strings", () => {
    const flags = modelConfigFlags({ ...model, apiKey: null, name: 'we"ird\\name\u007f' });
    expect(flags.join(" ")).not.toContain("env_key");
    expect(flags).toContain('model="we\\"ird\\\\name\\u007F"');
  });
});

describe("codexEnv", () => {
  const parent = {
    PATH: "/bin",
    HOME: "/h",
    CODEX_HOME: "/h/.codex",
    OPENAI_API_KEY: "sk-real",
    CODEX_API_KEY: "sk-codex",
    AWS_SECRET_ACCESS_KEY: "aws",
  };

  it("with a model: CODEX_HOME and the model's key, none of the user's own keys", () => {
    expect(codexEnv(parent, model)).toEqual({
      PATH: "/bin",
      HOME: "/h",
      CODEX_HOME: "/h/.codex",
      TERM: "dumb",
      [API_KEY_ENV]: "sk-test",
    });
  });

  it("without a model: codex's own login variables, nothing else", () => {
    expect(codexEnv(parent, null)).toEqual({
      PATH: "/bin",
      HOME: "/h",
      CODEX_HOME: "/h/.codex",
      OPENAI_API_KEY: "sk-real",
      CODEX_API_KEY: "sk-codex",
      TERM: "dumb",
    });
  });
});

describe("parseSandbox", () => {
  it("defaults to workspace-write and names the valid modes for a wrong one", () => {
    expect(parseSandbox(undefined)).toBe("workspace-write");
    expect(parseSandbox("danger-full-access")).toBe("danger-full-access");
    expect(() => parseSandbox("yolo")).toThrow(/unknown sandbox mode "yolo"/);
  });
});
