import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.js";

/** A throwaway PostgreSQL server for tests, listening on 127.0.0.1 only. */
export interface PostgresServer {
  /** `postgres://uwf@127.0.0.1:<port>/postgres` (trust authentication, superuser `uwf`). */
  url: string;
  port: number;
  /** Its temp directory (data, socket); removed by stop(). */
  dir: string;
  /** The server's major version, e.g. "15". */
  version: string;
  /**
   * A new database, empty or a copy of `template` (which must have no open connections);
   * returns its URL. Gives each test file (or test) its own tables.
   */
  createDatabase(options?: { template?: string }): Promise<string>;
  /**
   * Drop a database `createDatabase` made, closing its sessions: a file of many tests keeps the
   * server small, so stopping it (and removing its folder) stays quick.
   */
  dropDatabase(url: string): Promise<void>;
  /**
   * What the sessions of database `url` (every process's) did since the last call for it: the
   * connections they opened and the statements they ran, each as its first line. Only for a
   * server started with `{ countStatements: true }`, which logs every statement. Counting is
   * exact: the server logs a statement before it answers it, and this waits for a mark it runs
   * after them.
   */
  activity(url: string): Promise<DatabaseActivity>;
  /** Stop the server and remove its directory. Safe to call twice. */
  stop(): Promise<void>;
}

export interface DatabaseActivity {
  connections: number;
  /** Connection attempts the server refused for want of a slot ("too many clients", 53300). */
  refused: number;
  statements: string[];
}

export interface PostgresOptions {
  /** Log every connection and statement so that `activity` can count them. */
  countStatements?: boolean;
  /** The server's `max_connections` (default 200). */
  maxConnections?: number;
}

/** Where the binaries are: `UWF_TEST_PG_BIN`, or the newest `/usr/lib/postgresql/<v>/bin`. */
export function findPostgresBin(): { bin: string; version: string } {
  const override = process.env.UWF_TEST_PG_BIN;
  if (override) {
    if (!existsSync(join(override, "initdb"))) throw missingBinaries(`${override}/initdb`);
    return { bin: override, version: versionOf(override) };
  }
  const root = "/usr/lib/postgresql";
  let versions: string[] = [];
  try {
    versions = readdirSync(root).filter((name) => existsSync(join(root, name, "bin", "initdb")));
  } catch {
    // No PostgreSQL at all: reported below.
  }
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) throw missingBinaries(`${root}/*/bin/initdb`);
  return { bin: join(root, newest, "bin"), version: newest };
}

function missingBinaries(where: string): Error {
  return new Error(
    `PostgreSQL server binaries not found (looked for ${where}). These tests need a real server: ` +
      "install Debian's package (`apt-get install --no-install-recommends postgresql`; .ci/run " +
      "does this) or point UWF_TEST_PG_BIN at a folder holding initdb and postgres.",
  );
}

function versionOf(bin: string): string {
  const match = /\/(\d+)\/bin\/?$/.exec(bin);
  return match?.[1] ?? "unknown";
}

// ─── Running as the server's user ──────────────────────────────────────────────────────────

/** initdb and postgres refuse to run as root: as root, run them as the `postgres` user. */
interface RunAs {
  uid: number;
  gid: number;
}

let runAsCache: RunAs | null | undefined;
function serverUser(): RunAs | null {
  if (runAsCache !== undefined) return runAsCache;
  if (process.getuid?.() !== 0) {
    runAsCache = null;
    return runAsCache;
  }
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error(
      "running as root, and there is no `postgres` user to run the PostgreSQL server as " +
        "(initdb refuses root): install Debian's postgresql package, which creates it, or run the tests as another user",
    );
  }
  runAsCache = { uid: Number(uid), gid: Number(gid) };
  return runAsCache;
}

function giveToServerUser(path: string): void {
  const user = serverUser();
  if (user !== null) chownSync(path, user.uid, user.gid);
}

function run(command: string, args: string[], asServer: boolean): Promise<string> {
  const user = asServer ? serverUser() : null;
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { ...(user ?? {}), maxBuffer: 16 * 1024 * 1024, env: { ...process.env, LC_ALL: "C" } },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${command} ${args.join(" ")} failed: ${stderr || error.message}`));
        } else {
          resolve(stdout);
        }
      },
    );
  });
}

// ─── The template data directory ────────────────────────────────────────────────────────────

const templates = new Map<string, Promise<string>>();

/**
 * A freshly initialised data directory to copy: initdb takes most of a second, a copy a few
 * hundredths. It is kept in the temp folder (per server version and user) for later runs and is
 * created under a temporary name and renamed, so concurrent test processes never see half of one.
 */
function templateDir(bin: string, version: string): Promise<string> {
  let pending = templates.get(bin);
  if (pending === undefined) {
    pending = makeTemplate(bin, version);
    templates.set(bin, pending);
    pending.catch(() => templates.delete(bin));
  }
  return pending;
}

const TEMPLATE_MARK = "uwf-template-ready";

async function makeTemplate(bin: string, version: string): Promise<string> {
  const dir = join(tmpdir(), `uwf-pg-template-${version}-uid${process.getuid?.() ?? "x"}`);
  if (existsSync(join(dir, TEMPLATE_MARK))) return dir;
  const building = mkdtempSync(`${dir}.building-`);
  giveToServerUser(building);
  const data = join(building, "data");
  try {
    await run(
      join(bin, "initdb"),
      [
        "-D",
        data,
        "-U",
        "uwf",
        "-A",
        "trust",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
        "--no-instructions",
      ],
      true,
    );
    writeFileSync(join(building, TEMPLATE_MARK), `${new Date().toISOString()}\n`);
    try {
      renameSync(building, dir);
    } catch {
      // Another process finished first: use its template.
      rmSync(building, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
  return dir;
}

// ─── Counting statements ───────────────────────────────────────────────────────────────────

/** Each log line starts with the database and the session's pid: `<db>|<pid>| `. */
const LOG_PREFIX = "%d|%p| ";
const LOG_LINE =
  /^([^|\n]*)\|(\d+)\| (?:LOG: {2}(connection authorized|statement: |execute [^:]*: )(.*))?/;

/** How the server refuses a connection when every slot is taken (SQLSTATE 53300). */
const OUT_OF_SLOTS =
  /FATAL: {2}(?:sorry, too many clients already|remaining connection slots are reserved)/;

/** The server's log as lines, kept until `takeUntil` has counted them. */
class LogLines {
  #pending = "";
  #lines: string[] = [];
  #waiters: (() => void)[] = [];

  add(text: string): void {
    const parts = (this.#pending + text).split("\n");
    this.#pending = parts.pop() ?? "";
    this.#lines.push(...parts);
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /**
   * Connections and statements of `database` up to the statement that selects `mark` (run by
   * the caller after the work it counts), whose own session is left out; those lines are used up.
   */
  async takeUntil(database: string, mark: string): Promise<DatabaseActivity> {
    for (;;) {
      const at = this.#lines.findIndex((line) => line.includes(`select '${mark}'`));
      if (at >= 0) {
        const markPid = LOG_LINE.exec(this.#lines[at] ?? "")?.[2];
        const activity: DatabaseActivity = { connections: 0, refused: 0, statements: [] };
        const kept: string[] = [];
        for (const line of this.#lines.slice(0, at + 1)) {
          const match = LOG_LINE.exec(line);
          // Continuation lines and sessions not yet in a database count for nobody.
          if (!match?.[1]) continue;
          if (match[1] !== database) {
            kept.push(line);
            continue;
          }
          if (OUT_OF_SLOTS.test(line)) activity.refused++;
          if (match[2] === markPid || !match[3]) continue;
          if (match[3] === "connection authorized") activity.connections++;
          else activity.statements.push((match[4] ?? "").trim());
        }
        this.#lines = [...kept, ...this.#lines.slice(at + 1)];
        return activity;
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }
}

// ─── Servers ────────────────────────────────────────────────────────────────────────────────

const running = new Set<{ child: ChildProcess; dir: string }>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A test process that exits without calling stop() (a crash, process.exit) still stops its
  // servers; a SIGKILLed one is covered by each server's watchdog.
  process.on("exit", () => {
    for (const server of running) {
      server.child.kill("SIGQUIT");
      rmSync(server.dir, { recursive: true, force: true });
    }
  });
}

/**
 * Start a PostgreSQL server from this machine's binaries in a temp directory: no fsync, no
 * full-page writes, 127.0.0.1 and a socket in the directory only. Throws (so the test fails,
 * never skips) when the binaries are missing.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const { bin, version } = findPostgresBin();
  const template = await templateDir(bin, version);
  const dir = mkdtempSync(join(tmpdir(), "uwf-pg-"));
  giveToServerUser(dir);
  try {
    // cp -a keeps the owner and the 0700 mode postgres insists on.
    await run("cp", ["-a", join(template, "data"), join(dir, "data")], false);
    return await startIn(bin, version, dir, options);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function startIn(
  bin: string,
  version: string,
  dir: string,
  options: PostgresOptions,
): Promise<PostgresServer> {
  let lastError: unknown;
  // A free port can be taken by someone else between choosing it and binding it: try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    try {
      return await launch(bin, version, dir, port, options);
    } catch (error) {
      lastError = error;
      if (!String((error as Error).message).includes("could not bind")) break;
    }
  }
  throw lastError;
}

function launch(
  bin: string,
  version: string,
  dir: string,
  port: number,
  options: PostgresOptions,
): Promise<PostgresServer> {
  const user = serverUser();
  const counting = options.countStatements === true;
  const args = [
    "-D",
    join(dir, "data"),
    "-p",
    String(port),
    "-k",
    dir,
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "shared_buffers=32MB",
    "-c",
    `max_connections=${options.maxConnections ?? 200}`,
    "-c",
    "log_min_messages=warning",
    "-c",
    "log_min_error_statement=panic",
    ...(counting
      ? [
          "-c",
          "log_statement=all",
          "-c",
          "log_connections=on",
          "-c",
          `log_line_prefix=${LOG_PREFIX}`,
        ]
      : []),
  ];
  const child = spawn(join(bin, "postgres"), args, {
    ...(user ?? {}),
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, LC_ALL: "C" },
  });
  const server = { child, dir };
  running.add(server);
  installExitHook();
  let log = "";
  const lines = counting ? new LogLines() : null;
  return new Promise<PostgresServer>((resolve, reject) => {
    let ready = false;
    const onData = (chunk: Buffer) => {
      // Keep reading for the server's whole life (a full pipe would block it); keep a tail.
      const text = chunk.toString("utf8");
      log = (log + text).slice(-8_000);
      lines?.add(text);
      if (!ready && log.includes("ready to accept connections")) {
        ready = true;
        child.unref();
        (child.stderr as unknown as { unref?: () => void }).unref?.();
        resolve(serverHandle(bin, version, dir, port, server, watchdog(child, dir), lines));
      }
    };
    child.stderr?.on("data", onData);
    child.once("error", (error) => {
      running.delete(server);
      reject(new Error(`could not start ${bin}/postgres: ${error.message}`));
    });
    child.once("exit", (code, signal) => {
      running.delete(server);
      if (!ready) {
        reject(
          new Error(
            `postgres exited before accepting connections (${signal ?? `code ${code}`}):\n${log}`,
          ),
        );
      }
    });
  });
}

/**
 * A small detached shell that stops the server and removes its folder when this process dies
 * without cleaning up (even by SIGKILL): it waits for end-of-file on a pipe only this process
 * holds open.
 */
function watchdog(server: ChildProcess, dir: string): ChildProcess {
  const script =
    'read _ignored; kill -QUIT "$1" 2>/dev/null; ' +
    'while kill -0 "$1" 2>/dev/null; do sleep 0.1; done; rm -rf "$2"';
  const dog = spawn("sh", ["-c", script, "uwf-pg-watchdog", String(server.pid), dir], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  dog.unref();
  (dog.stdin as unknown as { unref?: () => void }).unref?.();
  return dog;
}

function serverHandle(
  bin: string,
  version: string,
  dir: string,
  port: number,
  server: { child: ChildProcess; dir: string },
  dog: ChildProcess,
  lines: LogLines | null,
): PostgresServer {
  const base = `postgres://uwf@127.0.0.1:${port}`;
  const psql = (sql: string) => {
    const connection = ["-h", "127.0.0.1", "-p", String(port), "-U", "uwf", "-d", "postgres"];
    return run(
      join(bin, "psql"),
      ["-X", "-q", "-v", "ON_ERROR_STOP=1", ...connection, "-c", sql],
      false,
    );
  };
  let databases = 0;
  let marks = 0;
  let stopped: Promise<void> | null = null;
  return {
    url: `${base}/postgres`,
    port,
    dir,
    version,
    async createDatabase(options = {}) {
      const name = `uwf_test_${process.pid}_${++databases}`;
      const template = options.template === undefined ? "" : ` template ${options.template}`;
      // A template's last session may still be ending on the server after its client closed.
      for (let attempt = 0; ; attempt++) {
        try {
          await psql(`create database ${name}${template}`);
          break;
        } catch (error) {
          const busy = String((error as Error).message).includes(
            "is being accessed by other users",
          );
          if (!busy || attempt >= 100) throw error;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      return `${base}/${name}`;
    },
    async dropDatabase(url) {
      const name = new URL(url).pathname.slice(1);
      if (!/^uwf_test_\d+_\d+$/.test(name))
        throw new Error(`${url} was not made by createDatabase`);
      await psql(`drop database if exists ${name} with (force)`);
    },
    async activity(url) {
      if (lines === null) throw new Error("start the server with { countStatements: true }");
      const database = new URL(url).pathname.slice(1);
      const mark = `uwf-activity-mark-${++marks}`;
      await run(
        join(bin, "psql"),
        [
          "-X",
          "-q",
          "-h",
          "127.0.0.1",
          "-p",
          String(port),
          "-U",
          "uwf",
          "-d",
          database,
          "-c",
          `select '${mark}'`,
        ],
        false,
      );
      return lines.takeUntil(database, mark);
    },
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        const { child } = server;
        // The watchdog goes first: once the server is reaped its pid may be reused.
        dog.kill("SIGKILL");
        const finish = () => {
          running.delete(server);
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) {
          finish();
          return;
        }
        child.once("exit", finish);
        // Unref'd while running; waiting for its exit must keep this process alive.
        child.ref();
        // Immediate shutdown: the data is thrown away anyway.
        child.kill("SIGQUIT");
      });
      return stopped;
    },
  };
}
