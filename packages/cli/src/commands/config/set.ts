import { readFileSync } from "node:fs";
import { docsUrl, errorMessage, sanitizeTerminalText, UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { reportWarnings, saveChange } from "./report.js";
import { inlineText, maskValue, parseConfigValue, schemaAt, unknownKeyHint } from "./values.js";

export default defineCommand({
  path: ["config", "set"],
  summary: "change one setting; the whole config is checked before it is written (mode 0600)",
  description: `A key that takes text gets the value as typed; any other value is read as YAML or JSON (30, true, [--x, y], { baseUrl: … }). Give \`-\` as the value to read it from stdin, so a secret stays out of your shell history. The file is rewritten atomically with mode 0600; other keys (another tool's too) and most comments are kept. Only keys uwf knows can be set (${docsUrl("config.md")} lists them).`,
  args: [
    { name: "key", description: "a dotted key, e.g. agents.claude.timeoutSeconds", required: true },
    { name: "value", description: "the new value, or - to read it from stdin", required: true },
  ],
  examples: [
    "uwf config set defaultAgent claude",
    "uwf config set agents.claude.timeoutSeconds 900",
    "uwf config set agents.claude.args '[--permission-mode, acceptEdits]'",
    'printf %s "$KEY" | uwf config set providers.openai.apiKey -',
  ],
  async run(ctx, [key, text]) {
    const { checkConfig, configData, formatKeyPath, openConfigFile, parseKeyPath, setConfigValue } =
      await import("@united-workforce/store");
    const path = parseKeyPath(key!);
    const schema = schemaAt(path);
    if (schema === null) {
      throw new UwfError("USAGE", `unknown config key ${key}`, { hint: unknownKeyHint(path) });
    }
    const value = parseConfigValue(text === "-" ? readStdinValue(key!) : text!, schema);
    const config = openConfigFile(ctx.home);
    const before = checkConfig(configData(config)).errors;
    setConfigValue(config, path, value);
    const entry = path.length < 3 ? null : formatKeyPath(path.slice(0, -1));
    const warnings = await saveChange(config, before, (problems) =>
      refusedValue(key!, config.file, problems, entry),
    );
    reportWarnings(ctx, config.file, warnings);
    ctx.events.emit("config.set", { key: key! });
    return result({ file: config.file, key: key!, value: maskValue(path, value) }, (d) =>
      sanitizeTerminalText(`${d.key} = ${inlineText(d.value)} (saved to ${d.file})`),
    );
  },
});

/**
 * The value given is what is wrong, not the file (which is left as it was): a usage error
 * naming the key. A new entry set one key at a time is refused for the keys it still lacks, so
 * the hint then says how to set it whole.
 */
function refusedValue(key: string, file: string, problems: string[], entry: string | null) {
  const lacksKeys = entry !== null && problems.some((problem) => problem.includes(" is required"));
  return new UwfError(
    "USAGE",
    `refused the value for ${key}, nothing was written to ${file}: ${problems.join("; ")}`,
    {
      hint: lacksKeys
        ? `A new entry needs its required keys at once: uwf config set '${entry}' '{ key: value, … }' (${docsUrl("config.md")} lists each entry's keys).`
        : `Give ${key} a value that fits (${docsUrl("config.md")} lists each key's type and what it may name).`,
      details: { key, file, errors: problems },
    },
  );
}

/**
 * The value from stdin, without the line break a shell or `echo` adds. Nothing there is a
 * mistake (an unset variable, a closed pipe), never a value to save.
 */
function readStdinValue(key: string): string {
  let value: string;
  try {
    value = readFileSync(0, "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    throw new UwfError("IO", `cannot read the value from stdin: ${errorMessage(error)}`, {
      hint: 'Pipe the value in, e.g. printf %s "$KEY" | uwf config set <key> -',
    });
  }
  if (value === "") {
    throw new UwfError("USAGE", `no value on stdin for ${key} (given as -)`, {
      hint: `Pipe the value in, e.g. printf %s "$KEY" | uwf config set ${key} - (check that $KEY is set); uwf config unset ${key} removes a setting.`,
    });
  }
  return value;
}
