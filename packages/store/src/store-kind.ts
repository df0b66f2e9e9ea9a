import { isPostgresUrl } from "./store-url.js";

export type StoreKind = "fs" | "postgres";

/**
 * Which backend a `store:` value (or `UWF_STORE`) selects, or null for one uwf has none for.
 * `openStore` opens by it and the config check refuses by it, so a value `config set` accepts
 * is one every command can open.
 */
export function storeKind(url: string): StoreKind | null {
  if (url === "fs") return "fs";
  if (isPostgresUrl(url)) return "postgres";
  return null;
}
