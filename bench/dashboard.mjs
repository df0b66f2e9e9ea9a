#!/usr/bin/env node
// `uwf dashboard` under load: a store with 10,000 threads and one 500-step thread, served by
// the built `uwf dashboard`. For each page: the server's own time (its Server-Timing header,
// from the request's arrival to the last byte handed to the socket), the wall time of the
// request seen by the client, and the bytes sent. First paint of the dashboard is the thread
// list (where `/` leads) plus its stylesheet and script. The dashboard's start (command to URL
// printed) is reported as a ratio to `node -e 0` (N0). Run after `pnpm build`:
// `pnpm bench:dashboard`. BENCH_RUNS sets the samples per figure (median reported).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildLongThread, buildManyThreads } from "./fixtures.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { openStore } = await import(`${root}packages/store/dist/index.js`);
const node = process.execPath;
const uwfBin = join(root, "packages/cli/bin/uwf.cjs");
const runs = Number(process.env.BENCH_RUNS ?? 15);
const home = mkdtempSync(join(tmpdir(), "uwf-bench-dashboard-"));
const env = { ...process.env, UWF_HOME: home, HOME: home };

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

function n0() {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    spawnSync(node, ["-e", "0"]);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(times);
}

/** Start `uwf dashboard`; resolves with the process, its port and token, and the ms to its URL. */
function startDashboard() {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(node, [uwfBin, "dashboard"], { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      err += chunk;
      const url = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+)/.exec(err);
      if (url) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        resolve({ child, port: Number(url[1]), token: url[2], ms });
      }
    });
    child.on("exit", (code) => reject(new Error(`uwf dashboard exited ${code}: ${err}`)));
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function get(dash, path) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(
      {
        host: "127.0.0.1",
        port: dash.port,
        path,
        agent,
        headers: { host: `127.0.0.1:${dash.port}`, authorization: `Bearer ${dash.token}` },
      },
      (res) => {
        let bytes = 0;
        res.on("data", (chunk) => {
          bytes += chunk.length;
        });
        res.on("end", () => {
          if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode}`));
          const server = Number(/dur=([\d.]+)/.exec(res.headers["server-timing"] ?? "")?.[1]);
          const wall = Number(process.hrtime.bigint() - started) / 1e6;
          resolve({ server, wall, bytes });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function measure(dash, path) {
  for (let i = 0; i < 2; i++) await get(dash, path);
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await get(dash, path));
  return {
    server: median(samples.map((s) => s.server)),
    wall: median(samples.map((s) => s.wall)),
    bytes: samples[0].bytes,
  };
}

function row(name, m) {
  const kb = m.bytes >= 10_240 ? `${(m.bytes / 1024).toFixed(0)} KiB` : `${m.bytes} B`;
  console.log(
    `${name.padEnd(52)} server ${m.server.toFixed(1).padStart(6)} ms   wall ${m.wall.toFixed(1).padStart(6)} ms   ${kb.padStart(9)}`,
  );
}

let dash;
try {
  const base = n0();
  const uwf = (...args) => execFileSync(node, [uwfBin, ...args], { env, cwd: root }).toString();
  const loopHash = JSON.parse(uwf("workflow", "add", "bench/loop.yaml", "--format", "json")).hash;
  const store = await openStore({ home });
  const built = process.hrtime.bigint();
  await buildManyThreads(store, loopHash, 10_000, root);
  const long = await buildLongThread(store, loopHash, 500, root);
  const steps = JSON.parse(uwf("step", "list", long, "--format", "json")).steps;
  await store.close();
  console.log(
    `store: 10,000 threads + one of 500 steps, built in ${(Number(process.hrtime.bigint() - built) / 1e9).toFixed(1)} s`,
  );
  console.log(
    `N0 = node -e 0: ${base.toFixed(1)} ms; medians of ${runs} requests after 2 warm-ups\n`,
  );

  dash = await startDashboard();
  console.log(
    `${"uwf dashboard: start to URL printed".padEnd(52)} ${dash.ms.toFixed(1)} ms  ${(dash.ms / base).toFixed(2)}× N0`,
  );
  const list = await measure(dash, "/threads");
  const css = await measure(dash, "/assets/style.css");
  const js = await measure(dash, "/assets/app.js");
  row("first paint: thread list page (/threads), 10,000", list);
  row("  + /assets/style.css", css);
  row("  + /assets/app.js", js);
  const total = {
    server: list.server + css.server + js.server,
    wall: list.wall + css.wall + js.wall,
    bytes: list.bytes + css.bytes + js.bytes,
  };
  row("  = first paint in all (3 requests)", total);
  row("thread list as JSON (/api/threads), 10,000", await measure(dash, "/api/threads"));
  row(
    "thread list, status filter (?status=completed)",
    await measure(dash, "/threads?status=completed"),
  );
  row("thread list, text filter over all 10,000 (?q=…)", await measure(dash, "/threads?q=zzz"));
  row("thread page, 500 steps", await measure(dash, `/threads/${long}`));
  row("thread as JSON (/api/threads/<id>), 500 steps", await measure(dash, `/api/threads/${long}`));
  row(
    "step page (output, body, prompt)",
    await measure(dash, `/threads/${long}/steps/${steps[250].hash}`),
  );
  row("workflow page (graph, roles, versions)", await measure(dash, "/workflows/loop"));
} finally {
  dash?.child.kill("SIGINT");
  agent.destroy();
  rmSync(home, { recursive: true, force: true });
}
