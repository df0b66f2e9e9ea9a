#!/usr/bin/env node
// Makes sure the real agent CLIs the adapter tests drive are installed: `npm ci` in
// test/agent-clis (pinned claude-code, codex, gemini-cli, and the ACP agents claude-agent-acp,
// codex-acp and opencode; about 2 GB) when node_modules is missing or package-lock.json changed
// since the last install. Up to date, it only hashes the
// lock file. `npm test` runs it before vitest; `npm run setup` does not, so trying uwf stays
// quick.
//
// With UWF_AGENT_CLIS_DIR set, the CLIs come from that directory (its node_modules/.bin) and
// nothing is installed: it only checks they are there.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { withLock } from "./lib/file-lock.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLIS = ["claude", "claude-agent-acp", "codex", "codex-acp", "gemini", "opencode"];
const say = (text) => console.log(`agent-clis: ${text}`);

const override = process.env.UWF_AGENT_CLIS_DIR;
if (override) {
  const missing = missingBins(override);
  if (missing.length > 0) {
    console.error(
      `agent-clis: UWF_AGENT_CLIS_DIR=${override} lacks node_modules/.bin/{${missing.join(",")}}. ` +
        "Unset it to install the pinned CLIs into test/agent-clis, or install them there.",
    );
    process.exit(1);
  }
  say(`using the CLIs in UWF_AGENT_CLIS_DIR=${override}`);
  process.exit(0);
}

const dir = join(root, "test", "agent-clis");
const lock = join(dir, "package-lock.json");
// Inside node_modules, so removing node_modules also forgets the install.
const stamp = join(dir, "node_modules", ".uwf-installed-lock-hash");
const wanted = createHash("sha256").update(readFileSync(lock)).digest("hex");

if (upToDate()) {
  say(`up to date (${CLIS.join(", ")} in test/agent-clis)`);
  process.exit(0);
}

process.exitCode = withLock(join(dir, ".install.lock"), install);

/** Run `npm ci`; returns the exit code (the lock is released before the process ends). */
function install() {
  // Another run may have installed them while this one waited for the lock.
  if (upToDate()) {
    say("installed meanwhile by another run");
    return 0;
  }
  const why = existsSync(stamp)
    ? "package-lock.json changed"
    : existsSync(join(dir, "node_modules"))
      ? "the last install did not finish"
      : "not installed yet";
  say(`installing the pinned agent CLIs (${why}; about 2 GB, 20–90 s)`);
  const started = Date.now();
  rmSync(stamp, { force: true });
  const result = spawnSync(
    "npm",
    ["ci", "--no-fund", "--no-audit", "--no-update-notifier", "--loglevel=error"],
    { cwd: dir, stdio: "inherit" },
  );
  if (result.error || result.status !== 0) {
    console.error(
      `agent-clis: npm ci in test/agent-clis failed (${result.error?.message ?? `exit ${result.status}`}). ` +
        "The adapter tests need these CLIs; fix the install (network, disk) and run again, " +
        "or point UWF_AGENT_CLIS_DIR at a directory that has them.",
    );
    return 1;
  }
  const missing = missingBins(dir);
  if (missing.length > 0) {
    console.error(`agent-clis: npm ci finished but node_modules/.bin lacks ${missing.join(", ")}`);
    return 1;
  }
  writeFileSync(stamp, `${wanted}\n`);
  say(`installed ${CLIS.join(", ")} in ${Math.round((Date.now() - started) / 1000)} s`);
  return 0;
}

function upToDate() {
  let have = "";
  try {
    have = readFileSync(stamp, "utf8").trim();
  } catch {
    return false;
  }
  return have === wanted && missingBins(dir).length === 0;
}

function missingBins(base) {
  return CLIS.filter((name) => {
    try {
      accessSync(join(base, "node_modules", ".bin", name), constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
}
