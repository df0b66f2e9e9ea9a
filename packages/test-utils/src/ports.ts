import { createServer } from "node:net";

/**
 * A TCP port on 127.0.0.1 that nothing listens on: bound once, then released. A server can be
 * started on it, and a client sent to it finds it closed.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
