import type { CasGcDocument, CasVerifyDocument } from "@united-workforce/protocol";
import { errorMessage, isUwfError, UwfError } from "@united-workforce/util";
import type {
  GcOptions,
  LeaseStore,
  RegistryBackend,
  RegistryStore,
  Store,
  ThreadsStore,
} from "./api.js";
import { Cas, VERIFY_HINT } from "./cas/cas.js";
import type { CasBackend } from "./cas/cas-backend.js";
import { collectGarbage } from "./cas/gc.js";
import { collectGcRoots } from "./gc-roots.js";
import { Registry } from "./registry/registry.js";

/** What a backend provides; the shared rules (CAS, registry, gc) are layered on top here. */
export interface StoreParts {
  kind: Store["kind"];
  location: string;
  home: string;
  host: string;
  cas: CasBackend;
  threads: ThreadsStore;
  registry: RegistryBackend;
  leases: LeaseStore;
  validatorCacheDir?: string;
  close(): Promise<void>;
}

/** A store assembled from a backend's parts: the one place gc and verify are defined. */
export function assembleStore(parts: StoreParts): Store {
  const cas = new Cas(parts.cas, {
    ...(parts.validatorCacheDir ? { validatorCacheDir: parts.validatorCacheDir } : {}),
  });
  const registry: RegistryStore = new Registry(parts.registry);
  const refused = (hash: string, error: unknown) =>
    new UwfError(
      "GC_REFUSED",
      `gc refused: reachable node ${hash} cannot be read (${errorMessage(error)})`,
      {
        hint: `nothing was deleted; ${VERIFY_HINT}, then repair or remove what points to ${hash}`,
        cause: error,
        details: { hash },
      },
    );
  const refs = async (
    hashes: readonly string[],
    upTo: number,
  ): Promise<Map<string, readonly string[]>> => {
    let found: Map<string, readonly string[]>;
    try {
      found = (await parts.cas.recordedRefs?.(hashes, upTo)) ?? new Map();
    } catch (error) {
      const details = isUwfError(error) ? error.details : undefined;
      const hash = typeof details?.hash === "string" ? details.hash : hashes.join(", ");
      throw refused(hash, error);
    }
    // Not recorded (the filesystem), or not stored: parsed, or CAS_NOT_FOUND (a built-in schema
    // that was never written has no refs).
    for (const hash of hashes) {
      if (found.has(hash)) continue;
      try {
        found.set(hash, await cas.refs(hash));
      } catch (error) {
        throw refused(hash, error);
      }
    }
    return found;
  };
  return {
    kind: parts.kind,
    location: parts.location,
    home: parts.home,
    // Read when asked: a filesystem store learns its host name only if something needs it.
    get host() {
      return parts.host;
    },
    cas,
    threads: parts.threads,
    registry,
    leases: parts.leases,
    gc(options: GcOptions): Promise<CasGcDocument> {
      return collectGarbage(
        { backend: parts.cas, refs },
        () => collectGcRoots(parts.threads, registry),
        options,
      );
    },
    verify(): Promise<CasVerifyDocument> {
      return cas.verify();
    },
    close: parts.close,
  };
}

export function isStoreError(error: unknown): boolean {
  return isUwfError(error) && error.code === "STORE_UNAVAILABLE";
}
