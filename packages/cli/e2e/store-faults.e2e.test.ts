import { writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { runUwf, startUwf, type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

// A PostgreSQL store whose server accepts connections and never answers (a stopped
// postmaster, a frozen machine): every command fails within the configured limits, and a
// signal ends one that waits at once.

const THREAD = "01JAAAAAAAAAAAAAAAAAAAAAAA";

let temp: TempHome;
let server: Server;
let sockets: Socket[];
let url: string;
beforeEach(async () => {
  temp = tempHome();
  sockets = [];
  server = createServer((socket) => {
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `postgres://uwf:s3cret@127.0.0.1:${(server.address() as { port: number }).port}/uwf`;
});
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  temp.cleanup();
});

function configure(postgres: Record<string, number>): void {
  writeFileSync(join(temp.home, "config.yaml"), JSON.stringify({ store: url, postgres }), {
    mode: 0o600,
  });
}

describe("a PostgreSQL store that does not answer", () => {
  it("fails a command with STORE_UNAVAILABLE within the configured limits", async () => {
    configure({ connectTimeoutSeconds: 0.05, connectAttempts: 2 });
    const list = await runUwf(["thread", "list", "--format", "json"], { home: temp.home });
    expect(list.code).toBe(1);
    const { error } = JSON.parse(list.stderr);
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).toContain("postgres://uwf:****@127.0.0.1:" /* never the password */);
    expect(error.message).toContain("the server did not accept a connection within 0.05 s");
    expect(error.hint).toContain("running, answering");
    expect(sockets).toHaveLength(2);
  });

  it.each([
    ["SIGINT", ["thread", "exec", THREAD]],
    ["SIGTERM", ["thread", "join", THREAD]],
  ] as const)("ends at once on %s while waiting for it", async (signal, args) => {
    // Limits no test waits out: only the signal can end the wait.
    configure({ connectTimeoutSeconds: 600, connectAttempts: 1, statementTimeoutSeconds: 600 });
    const started = startUwf([...args], { home: temp.home });
    await vi.waitFor(() => expect(sockets).toHaveLength(1), { timeout: 10_000 });
    process.kill(started.pid, signal);
    const ended = await started.done;
    expect(ended.timedOut).toBeFalsy();
    expect(ended.code).toBe(130);
  });
});
