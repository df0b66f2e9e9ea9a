#!/usr/bin/env node
// Runs examples/hello.yaml end to end with the uwf-mock agent in a throwaway UWF_HOME, and
// shows every command as a user would type it. Nothing touches ~/.uwf.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "uwf-demo-"));
const bin = join(root, "node_modules", ".bin");
const env = { ...process.env, UWF_HOME: home, PATH: `${bin}:${process.env.PATH}` };

function uwf(...args) {
  console.log(`\n$ uwf ${args.map((a) => (/[\s"]/.test(a) ? JSON.stringify(a) : a)).join(" ")}`);
  const result = spawnSync(join(bin, "uwf"), args, { cwd: root, env, encoding: "utf8" });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  if (result.status !== 0) {
    console.error(`\ndemo failed (exit ${result.status}); UWF_HOME kept at ${home}`);
    process.exit(result.status ?? 1);
  }
  return result.stdout.trim();
}

console.log(`UWF_HOME=${home}`);
for (const file of readdirSync(join(root, "examples"))
  .filter((f) => f.endsWith(".yaml"))
  .sort()) {
  uwf("workflow", "validate", `examples/${file}`);
}
uwf("workflow", "add", "examples/hello.yaml");
uwf("workflow", "show", "hello");
const thread = uwf("thread", "start", "hello", "-p", "Greet Ada, who joins the team today.");
uwf(
  "thread",
  "exec",
  thread,
  "-c",
  "5",
  "--agent",
  "uwf-mock --scenario examples/scenarios/hello.yaml",
);
uwf("thread", "show", thread);
uwf("thread", "read", thread);
rmSync(home, { recursive: true, force: true });
console.log("\n✓ demo finished: a workflow was validated, registered and run to completion.");
