import { UwfError } from "@united-workforce/util";
import type { Store } from "../api.js";

/** Placeholder until the PostgreSQL backend lands: says so instead of failing obscurely. */
export async function openPostgresStore(
  _url: string,
  _options: { home: string; host: string; ttlMs: number },
): Promise<Store> {
  throw new UwfError("STORE_UNAVAILABLE", "this build of uwf has no PostgreSQL backend yet", {
    hint: "remove `store:` from config.yaml (and UWF_STORE) to use the filesystem store",
  });
}
