import { ExitCode, exitCodeFor } from "@united-workforce/protocol";
import {
  addHomeDotenv,
  errorMessage,
  isUwfError,
  resolveHome,
  writeToFd,
} from "@united-workforce/util";
import { readAgentArgs, usageText } from "./argv.js";
import { starterPid, watchParent } from "./parent-watch.js";
import { transientExitFor } from "./transient.js";
import { type AgentDefinition, AgentExit, type AgentIo, type AgentMain } from "./types.js";

/**
 * Give an adapter the whole agent life cycle (DESIGN §8–§9): parse argv, load `.env`, read the
 * context from the chain, compose the prompt, run, extract and repair, store the step, and
 * print one JSON line last on stdout. The adapter only supplies `run` (and `continue`).
 *
 * This module holds only what every start runs: the arguments, `--help` and the exit codes.
 * The step (store, chain, prompt, extraction) is in `create-agent.ts`, imported once the
 * arguments ask for a step, so `--help` and usage errors load none of it (DESIGN §14).
 */
export function createAgent(definition: AgentDefinition): AgentMain {
  return async (argv, io) => {
    const resolved = resolveIo(io);
    const { signal, abort } = stepSignal(io);
    // UWF_ADAPTER_WATCH_PARENT=0 turns the watch off, e.g. to test what uwf does about orphans.
    const parent = watchParent(
      starterPid(resolved.env.UWF_ADAPTER_PARENT_PID),
      abort,
      resolved.env.UWF_ADAPTER_WATCH_PARENT === "0" ? null : undefined,
    );
    try {
      return await runAgent(definition, argv ?? process.argv.slice(2), { ...resolved, signal });
    } finally {
      parent.stop();
    }
  };
}

/**
 * The step's signal and what aborts it (the parent watch): the caller's own when it gave both,
 * as `runAgentBinary` does, else a new one that follows the caller's signal. A process's first
 * AbortController and its first abort listener cost its start ≈ 0.15 and 0.3 ms.
 */
function stepSignal(io: Partial<AgentIo> = {}): {
  signal: AbortSignal;
  abort: (reason: Error) => void;
} {
  if (io.signal !== undefined && io.abort !== undefined) {
    return { signal: io.signal, abort: io.abort };
  }
  const controller = new AbortController();
  const given = io.signal;
  if (given?.aborted) controller.abort(given.reason);
  else given?.addEventListener("abort", () => controller.abort(given.reason), { once: true });
  return { signal: controller.signal, abort: (reason) => controller.abort(reason) };
}

function resolveIo(io: Partial<AgentIo> = {}): AgentIo {
  return {
    // Straight to the descriptors: creating process.stdout for a pipe costs every step ≈ 4 ms.
    stdout: io.stdout ?? ((text) => writeToFd(1, text)),
    stderr: io.stderr ?? ((text) => writeToFd(2, text)),
    // The process's own environment is extended in place so the agent's children see `.env`;
    // a caller's object is copied, never changed.
    env: io.env ? { ...io.env } : process.env,
    cwd: io.cwd ?? process.cwd(),
    ...(io.signal ? { signal: io.signal } : {}),
  };
}

async function runAgent(definition: AgentDefinition, argv: string[], io: AgentIo): Promise<number> {
  const say = (line: string): void => io.stderr(`${definition.name}: ${line}\n`);
  try {
    const home = resolveHome(io.env);
    addHomeDotenv(home, io.env);
    const specs = definition.options ?? {};
    const args = await readAgentArgs(argv, specs, io.env, {
      passthrough: definition.passthrough !== undefined,
    });
    if (args.help) {
      io.stdout(usageText(definition.name, specs, definition.passthrough));
      return ExitCode.ok;
    }
    const { runStoredStep } = await import("./create-agent.js");
    return await runStoredStep(definition, args, io, { home, say });
  } catch (thrown) {
    // A rate limit or a failing model server: exit 75 so that uwf retries the step.
    const error = transientExitFor(thrown) ?? thrown;
    if (error instanceof AgentExit) {
      if (error.stdout !== undefined) io.stdout(error.stdout);
      if (error.message) say(error.message);
      return error.exitCode;
    }
    if (io.signal?.aborted) {
      say("interrupted");
      return ExitCode.interrupted;
    }
    if (isUwfError(error)) {
      say(`error: ${error.message}`);
      if (error.hint) say(`hint: ${error.hint}`);
      return exitCodeFor(error.code);
    }
    say(`error: ${errorMessage(error)}`);
    return ExitCode.error;
  }
}
