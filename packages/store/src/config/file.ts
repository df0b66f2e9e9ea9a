import { readFileSync } from "node:fs";
import { isPlainObject } from "@united-workforce/protocol";
import { errorMessage, UwfError } from "@united-workforce/util";
import { type Document, isMap, isScalar } from "yaml";
import { checkConfig } from "./check.js";
import { configInvalid, configPath, writeConfigText } from "./config.js";
import { formatKeyPath } from "./keys.js";
import { configDocumentValue, FIX_BY_HAND_HINT, parseConfigDocument } from "./yaml.js";

/**
 * config.yaml opened for editing. The YAML document is kept as parsed, so a change touches only
 * its key: other keys (other tools' too), their order and most comments stay as they were.
 */
export interface ConfigFile {
  file: string;
  exists: boolean;
  document: Document;
}

export function openConfigFile(home: string): ConfigFile {
  const file = configPath(home);
  let text = "";
  let exists = true;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new UwfError("CONFIG_INVALID", `cannot read ${file}: ${errorMessage(error)}`, {
        hint: "Check the file's permissions (it should be yours, mode 0600).",
      });
    }
    exists = false;
  }
  const document = parseConfigDocument(file, text);
  if (document.contents !== null && !isMap(document.contents)) {
    throw new UwfError("CONFIG_INVALID", `${file} must be a YAML mapping`, {
      hint: FIX_BY_HAND_HINT,
    });
  }
  return { file, exists, document };
}

/** The whole config as plain data (`{}` for an empty file). */
export function configData(config: ConfigFile): Record<string, unknown> {
  return (configDocumentValue(config.file, config.document) ?? {}) as Record<string, unknown>;
}

/** The value at a key path, or `undefined` when it is not set. */
export function getConfigValue(config: ConfigFile, path: readonly string[]): unknown {
  let value: unknown = configData(config);
  for (const segment of path) {
    if (!isPlainObject(value)) return undefined;
    if (!Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** Set a value, making the mappings on its way (an empty `agents:` counts as none). */
export function setConfigValue(config: ConfigFile, path: readonly string[], value: unknown): void {
  const { document } = config;
  for (let i = 1; i < path.length; i++) {
    const prefix = path.slice(0, i);
    const node = document.getIn(prefix, true);
    if (node === undefined || (isScalar(node) && node.value === null)) {
      document.setIn(prefix, document.createNode({}));
    } else if (!isMap(node)) {
      throw new UwfError(
        "CONFIG_INVALID",
        `cannot set ${formatKeyPath(path)}: ${formatKeyPath(prefix)} in ${config.file} is not a mapping`,
        { hint: `Set ${formatKeyPath(prefix)} as a whole, or fix it by hand.` },
      );
    }
  }
  document.setIn(path, document.createNode(value));
}

/** Remove a key; false when it was not set. */
export function deleteConfigValue(config: ConfigFile, path: readonly string[]): boolean {
  if (getConfigValue(config, path) === undefined) return false;
  return config.document.deleteIn(path);
}

/**
 * Check the whole config as it would be written, then write it (`writeConfigText`: atomically,
 * mode 0600, through a symbolic link). A config uwf would refuse to read is never written.
 */
export function saveConfigFile(config: ConfigFile): { warnings: string[] } {
  const { errors, warnings } = checkConfig(configData(config));
  if (errors.length > 0) throw configInvalid(config.file, errors);
  writeConfigText(config.file, config.document.toString());
  config.exists = true;
  return { warnings };
}
