import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentCliPath, agentClisDir, agentHome } from "./agent-clis.js";
import { REPO_ROOT } from "./run.js";

describe("agentCliPath", () => {
  it("finds a CLI under UWF_AGENT_CLIS_DIR, defaulting to test/agent-clis", () => {
    const dir = mkdtempSync(join(tmpdir(), "uwf-test-clis-"));
    try {
      mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
      writeFileSync(join(dir, "node_modules", ".bin", "codex"), "#!/bin/sh\n", { mode: 0o755 });
      const env = { UWF_AGENT_CLIS_DIR: dir };
      expect(agentCliPath("codex", env)).toBe(join(dir, "node_modules", ".bin", "codex"));
      expect(() => agentCliPath("claude", env)).toThrow(
        /the pinned "claude" CLI is missing: .* Run `node scripts\/agent-clis.mjs`/,
      );
      expect(agentClisDir({})).toBe(join(REPO_ROOT, "test", "agent-clis"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("agentHome", () => {
  it("makes HOME, TMPDIR and the XDG dirs inside one temp folder, removed by cleanup", () => {
    const agent = agentHome();
    expect(Object.keys(agent.env).sort()).toEqual([
      "HOME",
      "TMPDIR",
      "XDG_CACHE_HOME",
      "XDG_CONFIG_HOME",
      "XDG_DATA_HOME",
      "XDG_STATE_HOME",
    ]);
    for (const dir of Object.values(agent.env)) {
      expect(dir.startsWith(agent.home)).toBe(true);
      expect(existsSync(dir)).toBe(true);
    }
    agent.cleanup();
    expect(existsSync(agent.home)).toBe(false);
  });
});
