#!/usr/bin/env node
// The PostgreSQL store's costs on this machine, against a throwaway server: server start (what
// the tests pay), what a uwf process pays to load the driver and open the store, and the round
// trips of the operations an exec makes. Run after `pnpm build`: `node bench/postgres.mjs`.
// Process figures are ratios to `node -e 0` (N0) measured in the same run; in-process figures
// are medians in milliseconds over BENCH_RUNS samples (default 200).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const backend = `${root}packages/store-postgres/dist/index.js`;
const { startPostgres } = await import(`${root}packages/test-utils/dist/postgres.js`);
const { openPostgresParts } = await import(backend);
const { hashBytes } = await import(`${root}packages/util/dist/index.js`);
const runs = Number(process.env.BENCH_RUNS ?? 200);

const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

async function timeAsync(make, count = runs) {
  const samples = [];
  for (let i = 0; i <= count; i++) {
    const started = performance.now();
    await make(i);
    if (i > 0) samples.push(performance.now() - started);
  }
  return median(samples);
}

function timeProcess(args, count = 15, cwd = `${root}packages/store-postgres`) {
  const samples = [];
  for (let i = 0; i <= count; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed:\n${result.stderr}`);
    if (i > 0) samples.push(performance.now() - started);
  }
  return median(samples);
}

const line = (name, value) => console.log(`${name.padEnd(58)} ${value}`);
const ms = (value) => `${value.toFixed(2)} ms`;

let started = performance.now();
const first = await startPostgres();
line("server start (first in this run; initdb if no template)", ms(performance.now() - started));
started = performance.now();
const server = await startPostgres();
line("server start (copying the template data folder)", ms(performance.now() - started));
await first.stop();

try {
  const url = await server.createDatabase();
  started = performance.now();
  const parts = await openPostgresParts(url, { host: "bench" });
  line("open a new store (connect + create the tables)", ms(performance.now() - started));
  await parts.close();

  const n0 = timeProcess(["-e", "0"]);
  line("N0: node -e 0", ms(n0));
  const pgImport = timeProcess(["--input-type=module", "-e", 'await import("pg")'], 15);
  line("process that imports pg", `${(pgImport / n0).toFixed(2)}× N0`);
  const openScript = `
    const { openPostgresParts } = await import(${JSON.stringify(backend)});
    const parts = await openPostgresParts(${JSON.stringify(url)});
    const bytes = new TextEncoder().encode('{"payload":' + process.pid + ',"type":"schema"}');
    const { hashBytes } = await import(${JSON.stringify(`${root}packages/util/dist/index.js`)});
    const hash = hashBytes(bytes);
    await parts.cas.write([{ hash, bytes, type: "schema", refs: [] }]);
    await parts.cas.read(hash);
    await parts.close();`;
  const openProcess = timeProcess(["--input-type=module", "-e", openScript], 15);
  line("process: open store + write + read a node + close", `${(openProcess / n0).toFixed(2)}× N0`);

  const open = await openPostgresParts(url, { host: "bench" });
  try {
    const payload = "x".repeat(1000);
    const node = (i) => {
      const bytes = new TextEncoder().encode(`{"payload":"${payload}${i}","type":"schema"}`);
      return { hash: hashBytes(bytes), bytes, type: "schema", refs: [] };
    };
    const nodes = Array.from({ length: runs + 1 }, (_, i) => node(i));
    line("cas.write of one new 1 KB node", ms(await timeAsync((i) => open.cas.write([nodes[i]]))));
    line(
      "cas.write of 4 new nodes (a step's batch)",
      ms(await timeAsync((i) => open.cas.write([0, 1, 2, 3].map((k) => node(`b${i}-${k}`))))),
    );
    line("cas.read of a 1 KB node", ms(await timeAsync((i) => open.cas.read(nodes[i].hash))));
    line(
      "write + read round trip",
      ms(
        await timeAsync(async (i) => {
          const n = node(`rt${i}`);
          await open.cas.write([n]);
          await open.cas.read(n.hash);
        }),
      ),
    );

    const id = "01HQZGJ3G0ZF52MFE0QZZD8D1G";
    const h = nodes[0].hash;
    const created = new Date().toISOString();
    let pointer = await open.threads.create({
      thread: id,
      workflow: "bench",
      workflowHash: h,
      start: h,
      head: h,
      status: "idle",
      currentRole: null,
      suspended: null,
      steps: 0,
      cwd: "/",
      createdAt: created,
      updatedAt: created,
    });
    line(
      "threads.swap (compare-and-swap of a pointer)",
      ms(
        await timeAsync(async (i) => {
          pointer = await open.threads.swap({ ...pointer, steps: i }, pointer.rev);
        }),
      ),
    );
    line("threads.get", ms(await timeAsync(() => open.threads.get(id))));
    line(
      "leases.acquire + release",
      ms(
        await timeAsync(async () => {
          const { lease } = await open.leases.acquire(id, { command: "bench" });
          await lease.release();
        }),
      ),
    );
  } finally {
    await open.close();
  }
} finally {
  await server.stop();
}
