import { basename, dirname } from "node:path";
import type { RegistryStore } from "@united-workforce/store";

/** The folder a workflow file sits in when it is a `.workflows/` copy, else null. */
export function workflowsDirOf(path: string): string | null {
  const parent = dirname(path);
  if (basename(parent) === ".workflows") return parent;
  // `.workflows/<name>/index.yaml`
  if (/^index\.ya?ml$/i.test(basename(path)) && basename(dirname(parent)) === ".workflows") {
    return dirname(parent);
  }
  return null;
}

/**
 * A warning when a `.workflows/` copy and a registered workflow share a name: a name is
 * resolved to the nearest `.workflows/` file before the registry (DESIGN §5), so under that
 * folder the registered version is never used. Null for other files and unregistered names.
 */
export async function shadowWarning(
  registry: Pick<RegistryStore, "get">,
  path: string,
  name: string,
  hash: string,
): Promise<string | null> {
  const folder = workflowsDirOf(path);
  if (folder === null) return null;
  const entry = await registry.get(name);
  if (entry === null) return null;
  const where = `commands run under ${dirname(folder)} that name "${name}" use this file`;
  if (entry.current === hash) {
    return `${path} shadows the registered workflow "${name}" (same content, ${hash}): ${where}, not versions added to the registry later`;
  }
  return `${path} (${hash}) shadows the registered workflow "${name}" (${entry.current}): ${where}, not the registered one; run \`uwf workflow add ${path}\` to register it, or remove the file to use the registry`;
}
