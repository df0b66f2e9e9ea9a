import { join } from "node:path";
import { nodeOs, UwfError } from "@united-workforce/util";
import type { Store, StoreOptions, StoreTimeouts } from "./api.js";
import { loadPostgresBackend } from "./backend-packages.js";
import { createFsCasBackend } from "./cas/fs-backend.js";
import type { UwfConfig } from "./config/config.js";
import { FsLeaseStore } from "./leases/fs-leases.js";
import { DEFAULT_LEASE_TTL_MS } from "./leases/liveness.js";
import { FsRegistryBackend } from "./registry/fs-registry.js";
import { assembleStore } from "./store.js";
import { storeKind } from "./store-kind.js";
import { maskUrl } from "./store-url.js";
import { FsThreadsStore } from "./threads/fs-threads.js";

/** Where compiled validators of a storage root are cached (safe to delete). */
export function validatorCacheDir(home: string): string {
  return join(home, "cache", "validators");
}

/**
 * The only way to the store. `url` absent or `fs` is the filesystem under `home` (nothing to
 * install); `postgres://…` is a PostgreSQL database shared by many machines, through the
 * `@united-workforce/store-postgres` package that `options.backends` loads, only then.
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  const url = options.url ?? "fs";
  const ttlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const kind = storeKind(url);
  if (kind === "fs") {
    // The host name is looked up when a lease needs it: loading `node:os` for it cost every
    // start ≈ 0.17 ms, and most commands (an adapter, `cas get`, `thread show`) take no lease.
    let host = options.host;
    return openFsStore(options.home, {
      get host() {
        host ??= nodeOs().hostname();
        return host;
      },
      ttlMs,
    });
  }
  if (kind === "postgres") {
    const backend = await loadPostgresBackend(url, options.backends?.postgres);
    const host = options.host ?? nodeOs().hostname();
    const parts = await backend.openPostgresParts(url, {
      host,
      leaseTtlMs: ttlMs,
      timeouts: options.timeouts,
      signal: options.signal,
    });
    // Config, logs and the compiled validator cache stay under the local home.
    return assembleStore({
      ...parts,
      home: options.home,
      validatorCacheDir: validatorCacheDir(options.home),
      close: () => parts.close(),
    });
  }
  throw new UwfError("CONFIG_INVALID", `unknown store ${JSON.stringify(maskUrl(url))}`, {
    hint: "set `store:` in config.yaml (or UWF_STORE) to `fs` or a postgres://user@host/db URL",
  });
}

export function openFsStore(
  home: string,
  options: { readonly host: string; ttlMs: number },
): Store {
  const leases: FsLeaseStore = new FsLeaseStore(home, options, () => threads);
  const threads = new FsThreadsStore(home, leases);
  return assembleStore({
    kind: "fs",
    location: home,
    home,
    get host() {
      return options.host;
    },
    cas: createFsCasBackend(join(home, "cas")),
    threads,
    registry: new FsRegistryBackend(home),
    leases,
    validatorCacheDir: validatorCacheDir(home),
    close: async () => {},
  });
}

/**
 * The store options a command runs with: `UWF_STORE` (the caller passes the environment in)
 * overrides config.yaml's `store:`; `host:`, `leaseSeconds:` and `postgres:` (how long the
 * server is waited on) come from config.yaml.
 */
export function storeOptionsFrom(
  home: string,
  config: UwfConfig,
  env: Record<string, string | undefined> = {},
): StoreOptions {
  const options: StoreOptions = { home };
  const url = env.UWF_STORE || (typeof config.store === "string" ? config.store : undefined);
  if (url) options.url = url;
  if (typeof config.host === "string" && config.host !== "") options.host = config.host;
  if (typeof config.leaseSeconds === "number" && config.leaseSeconds > 0) {
    options.leaseTtlMs = config.leaseSeconds * 1000;
  }
  const timeouts = storeTimeoutsFrom(config.postgres);
  if (timeouts !== undefined) options.timeouts = timeouts;
  return options;
}

/** config.yaml's `postgres:` as StoreTimeouts: only the keys it sets (the checker typed them). */
function storeTimeoutsFrom(section: unknown): Partial<StoreTimeouts> | undefined {
  if (section === null || typeof section !== "object") return undefined;
  const values = section as Record<string, unknown>;
  const timeouts: Partial<StoreTimeouts> = {};
  const ms = (key: string) =>
    typeof values[key] === "number" && values[key] > 0 ? values[key] * 1000 : undefined;
  const connect = ms("connectTimeoutSeconds");
  if (connect !== undefined) timeouts.connectTimeoutMs = connect;
  const statement = ms("statementTimeoutSeconds");
  if (statement !== undefined) timeouts.statementTimeoutMs = statement;
  const lock = ms("lockTimeoutSeconds");
  if (lock !== undefined) timeouts.lockTimeoutMs = lock;
  if (typeof values.connectAttempts === "number" && values.connectAttempts >= 1) {
    timeouts.connectAttempts = values.connectAttempts;
  }
  return timeouts;
}
