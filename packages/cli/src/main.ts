import { killRunningAdapters } from "@united-workforce/engine";
import { runCli } from "./program.js";

// The `uwf` entry: the only place that exits. SIGINT/SIGTERM abort the running command so it
// can stop its children and release its lock; a second signal kills the agents and exits at once.
const controller = new AbortController();
let interrupted = false;
const onSignal = (): void => {
  if (interrupted) {
    killRunningAdapters();
    process.exit(130);
  }
  interrupted = true;
  controller.abort();
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

// A reader that stops early (`uwf cas get … | head -c 1`) is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
  self: [process.execPath, process.argv[1] ?? ""],
});
process.exitCode = interrupted ? 130 : code;
