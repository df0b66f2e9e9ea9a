import type { Readable } from "node:stream";
import { errorMessage, UwfError } from "@united-workforce/util";

/** An adapter-specific command-line option, e.g. uwf-mock's `--scenario <file>`. */
export interface AgentOptionSpec {
  description: string;
  /** `string` takes a value (the default); `boolean` is a bare flag. */
  type?: "string" | "boolean";
  required?: boolean;
  /** An environment variable used when the flag is not given. */
  env?: string;
  /** The value's name in `--help`, e.g. `file`. */
  valueName?: string;
  /** May be given more than once: the value is then every one given, in order, as a list. */
  repeatable?: boolean;
}

export type AgentOptionValues = Record<string, string | string[] | boolean | undefined>;

export interface AgentArgs {
  thread: string;
  role: string;
  /** The edge prompt; `--prompt -` leaves "-" here until `readAgentArgs` reads stdin. */
  prompt: string;
  historyQuota: number | undefined;
  /** `--model <alias>`: a model alias from config.yaml; null: the agent's own default. */
  model: string | null;
  /** `--replace-head` (uwf thread poke): the new step replaces the head instead of following it. */
  replaceHead: boolean;
  options: AgentOptionValues;
  /** The words after `--` (uwf-acp's agent command); empty when there is no `--`. */
  passthrough: string[];
  help: boolean;
}

const COMMON: Record<string, AgentOptionSpec> = {
  thread: { description: "the thread id", required: true, valueName: "id" },
  role: { description: "the role to run", required: true, valueName: "role" },
  prompt: {
    description: 'the edge prompt from the moderator ("-": read it from stdin)',
    required: true,
    valueName: "text",
  },
  "history-quota": { description: "characters of earlier steps in the prompt", valueName: "chars" },
  model: { description: "a model alias from config.yaml (models:)", valueName: "alias" },
  "replace-head": {
    description: "the new step replaces the head (uwf thread poke)",
    type: "boolean",
  },
};

/**
 * `--name value`, `--name=value`, bare boolean flags; unknown or missing flags are usage errors.
 * With `passthrough`, the words after `--` are kept as they are, except the `--thread`, `--role`,
 * `--prompt` and `--history-quota` pairs at the very end: uwf appends those after the configured
 * args, so `args: [--, gemini, --acp]` still works from config.yaml.
 */
export function parseAgentArgs(
  argv: string[],
  specs: Record<string, AgentOptionSpec>,
  env: Record<string, string | undefined>,
  parsing: { passthrough?: boolean } = {},
): AgentArgs {
  const all = { ...COMMON, ...specs };
  let words = argv;
  let passthrough: string[] = [];
  const separator = argv.indexOf("--");
  if (separator !== -1) {
    if (!parsing.passthrough) throw usage('unexpected argument "--"');
    const split = splitTrailingCommon(argv.slice(separator + 1));
    passthrough = split.passthrough;
    words = [...argv.slice(0, separator), ...split.trailing];
  }
  const { values, help } = readFlags(words, all);
  if (help) {
    return {
      thread: "",
      role: "",
      prompt: "",
      historyQuota: undefined,
      model: null,
      replaceHead: false,
      options: {},
      passthrough,
      help,
    };
  }

  fillFromEnv(all, values, env);
  const historyQuota = parseHistoryQuota(values["history-quota"]);
  const options: AgentOptionValues = {};
  for (const name of Object.keys(specs)) options[name] = values[name];
  const model = values.model;
  return {
    thread: values.thread as string,
    role: values.role as string,
    prompt: values.prompt as string,
    historyQuota,
    model: typeof model === "string" && model !== "" ? model : null,
    replaceHead: values["replace-head"] === true,
    options,
    passthrough,
    help,
  };
}

/** `--name value`, `--name=value` and bare boolean flags, read by their specs. */
function readFlags(
  words: string[],
  all: Record<string, AgentOptionSpec>,
): { values: AgentOptionValues; help: boolean } {
  const values: AgentOptionValues = {};
  let help = false;
  for (let i = 0; i < words.length; i++) {
    const arg = words[i]!;
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    if (!arg.startsWith("--")) throw usage(`unexpected argument "${arg}"`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const spec = all[name];
    if (!spec) throw usage(`unknown option "--${name}"`);
    if (spec.type === "boolean") {
      if (eq !== -1) throw usage(`option "--${name}" takes no value`);
      values[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = words[i + 1];
      // The next argument is the value even when it starts with "--": an edge prompt may.
      if (value === undefined) throw usage(`option "--${name}" needs a value`);
      i++;
    }
    if (spec.repeatable) {
      const earlier = values[name];
      values[name] = Array.isArray(earlier) ? [...earlier, value] : [value];
    } else values[name] = value;
  }
  return { values, help };
}

/** Options not given take their environment variable; a required one missing is an error. */
function fillFromEnv(
  all: Record<string, AgentOptionSpec>,
  values: AgentOptionValues,
  env: Record<string, string | undefined>,
): void {
  for (const [name, spec] of Object.entries(all)) {
    if (values[name] === undefined && spec.env && env[spec.env]) {
      values[name] = spec.repeatable ? [env[spec.env]!] : env[spec.env];
    }
    if (spec.required && values[name] === undefined) {
      const fallback = spec.env ? ` (or set ${spec.env})` : "";
      throw usage(`missing required option "--${name}"${fallback}`);
    }
  }
}

/** `--history-quota`: a whole number of characters; undefined when not given. */
function parseHistoryQuota(quota: AgentOptionValues[string]): number | undefined {
  if (typeof quota !== "string") return undefined;
  const historyQuota = Number(quota);
  if (!Number.isInteger(historyQuota) || historyQuota < 0) {
    throw usage(`option "--history-quota" must be a whole number of characters, got "${quota}"`);
  }
  return historyQuota;
}

/**
 * `parseAgentArgs`, then the prompt from stdin when it is `--prompt -`: uwf sends an edge
 * prompt too long for one argument that way (docs/adapter-protocol.md). `process.stdin` is
 * touched only then: creating it loads the stream modules (≈ 3 ms of every start otherwise).
 */
export async function readAgentArgs(
  argv: string[],
  specs: Record<string, AgentOptionSpec>,
  env: Record<string, string | undefined>,
  parsing: { passthrough?: boolean } = {},
  stdin?: Readable,
): Promise<AgentArgs> {
  const args = parseAgentArgs(argv, specs, env, parsing);
  if (args.help || args.prompt !== "-") return args;
  let prompt: string;
  try {
    prompt = await readAll(stdin ?? process.stdin);
  } catch (error) {
    throw usage(`--prompt - could not read the prompt from stdin: ${errorMessage(error)}`);
  }
  if (prompt === "") throw usage("--prompt - found no prompt on stdin");
  return { ...args, prompt };
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer | string));
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Peel uwf's own flags off the end of the words after `--`: `--flag value` pairs, and the
 * boolean `--replace-head`, which uwf appends last.
 */
function splitTrailingCommon(words: string[]): { passthrough: string[]; trailing: string[] } {
  let end = words.length;
  const seen = new Set<string>();
  while (end >= 1) {
    const last = words[end - 1]!;
    const lastName = last.slice(2);
    if (last.startsWith("--") && COMMON[lastName]?.type === "boolean" && !seen.has(lastName)) {
      seen.add(lastName);
      end -= 1;
      continue;
    }
    if (end < 2) break;
    const flag = words[end - 2]!;
    const name = flag.slice(2);
    const spec = COMMON[name];
    if (!flag.startsWith("--") || !spec || spec.type === "boolean" || seen.has(name)) break;
    seen.add(name);
    end -= 2;
  }
  return { passthrough: words.slice(0, end), trailing: words.slice(end) };
}

export function usageText(
  name: string,
  specs: Record<string, AgentOptionSpec>,
  passthrough?: string,
): string {
  const all = { ...COMMON, ...specs };
  const rest = passthrough ? ` [-- <${passthrough}>]` : "";
  const lines = [
    `Usage: ${name} --thread <id> --role <role> --prompt <text|-> [options]${rest}`,
    "",
    "Options:",
  ];
  for (const [flag, spec] of Object.entries(all)) {
    const left = spec.type === "boolean" ? `--${flag}` : `--${flag} <${spec.valueName ?? "value"}>`;
    const env = spec.env ? ` (env ${spec.env})` : "";
    const again = spec.repeatable ? " (repeatable)" : "";
    lines.push(`  ${left.padEnd(26)}${spec.description}${again}${env}`);
  }
  lines.push(`  ${"-h, --help".padEnd(26)}show this help`);
  return `${lines.join("\n")}\n`;
}

function usage(message: string): UwfError {
  return new UwfError("USAGE", message, { hint: "Run with --help to see the options." });
}
