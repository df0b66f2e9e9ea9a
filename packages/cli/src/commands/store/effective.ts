import type { UwfConfig } from "@united-workforce/store";
import { maskValue } from "../config/values.js";

/** The store this run uses, as `uwf doctor` and `uwf config list` show it. */
export interface EffectiveStore {
  /** `fs`, a `postgres://` URL, or whatever was written there (checked when it is opened). */
  url: string;
  /** The URL with its password masked as `uwf config list` masks it. */
  shown: string;
  /** What chose it: UWF_STORE overrides config.yaml's `store:`, which overrides the default. */
  source: "UWF_STORE" | "config.yaml" | "default";
}

/** Which store commands open, and why: the same precedence as the store's own options. */
export async function effectiveStore(
  home: string,
  config: Record<string, unknown>,
  env: Record<string, string | undefined>,
): Promise<EffectiveStore> {
  const { storeOptionsFrom } = await import("@united-workforce/store");
  const url = storeOptionsFrom(home, config as UwfConfig, env).url;
  if (url === undefined) return { url: "fs", shown: "fs", source: "default" };
  return { url, shown: maskStore(url), source: env.UWF_STORE ? "UWF_STORE" : "config.yaml" };
}

/**
 * A line for `uwf config list` when UWF_STORE decides the store instead of config.yaml (which
 * the list shows), or null when it does not.
 */
export async function storeOverrideNote(
  home: string,
  config: Record<string, unknown>,
  env: Record<string, string | undefined>,
): Promise<string | null> {
  const store = await effectiveStore(home, config, env);
  if (store.source !== "UWF_STORE" || store.url === config.store) return null;
  return typeof config.store === "string"
    ? `store: overridden by UWF_STORE=${store.shown}`
    : `store: set by UWF_STORE=${store.shown} (config.yaml has no store:)`;
}

function maskStore(url: string): string {
  return String(maskValue(["store"], url));
}
