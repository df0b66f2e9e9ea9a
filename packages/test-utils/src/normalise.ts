import { tmpdir } from "node:os";
import { TEMP_PREFIX } from "./home.js";

const ULID = /\b[0-7][0-9A-HJKMNP-TV-Z]{25}\b/g;
const HASH = /\b[0-9A-HJKMNP-TV-Z]{13}\b/g;
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;
const DURATION = /\b\d+(?:\.\d+)?\s?ms\b/g;

/**
 * Make output stable for assertions: ULIDs → `<ULID>`, 13-character hashes → `<HASH>`, ISO
 * times → `<TIME>`, temp directories (the given ones and any `uwf-test-*`) → `<HOME>`, and
 * durations → `<N>ms`.
 */
export function normalise(text: string, options: { paths?: string[] } = {}): string {
  let out = text;
  const paths = [...(options.paths ?? [])].sort((a, b) => b.length - a.length);
  for (const path of paths) out = out.split(path).join("<HOME>");
  const tempRoot = escapeRegExp(tmpdir());
  out = out.replace(
    new RegExp(`(?:/private)?${tempRoot}/${TEMP_PREFIX}[A-Za-z0-9]+`, "g"),
    "<HOME>",
  );
  return out
    .replace(ULID, "<ULID>")
    .replace(HASH, "<HASH>")
    .replace(ISO_TIME, "<TIME>")
    .replace(DURATION, "<N>ms");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
