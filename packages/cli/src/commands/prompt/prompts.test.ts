import { spawnSync } from "node:child_process";
import { isPlainObject } from "@united-workforce/protocol";
import { UWF_MOCK_BIN } from "@united-workforce/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { GLOBAL_OPTIONS } from "../../help/globals.js";
import { COMMANDS } from "../index.js";
import { renderAdapterDeveloping } from "./texts/adapter-developing.js";
import { renderBootstrap } from "./texts/bootstrap.js";
import { configKeys, isConfigKey } from "./texts/config-keys.js";
import { markedBlocks } from "./texts/markdown.js";
import { renderUsage } from "./texts/usage.js";
import { renderWorkflowAuthoring } from "./texts/workflow-authoring.js";

const GUIDES = {
  usage: () => renderUsage(COMMANDS),
  "workflow-authoring": renderWorkflowAuthoring,
  "adapter-developing": renderAdapterDeveloping,
  bootstrap: renderBootstrap,
};

/** `"-c, --count <n>"` → `["-c", "--count"]`. */
function flagsOf(flags: string): string[] {
  return flags.match(/(?<![\w-])--?[A-Za-z][\w-]*/g) ?? [];
}

const GLOBAL_FLAGS = GLOBAL_OPTIONS.flatMap((o) => flagsOf(o.flags));
const GROUPS = new Set(COMMANDS.map((c) => c.path[0]!));
const FILE_NAME = /\.(ya?ml|json|md|mjs|js|ts|env)$/;
/** Dotted names in the guides that are not config keys: the adapter's `ctx` object. */
const NOT_CONFIG_ROOTS = ["ctx"];

/** The flags an agent-kit adapter accepts, as `uwf-mock --help` prints them. */
let adapterFlags: string[] = [];

/**
 * Everything a guide names that must exist: `uwf …` command lines (in code spans and code
 * blocks) with their options, every `--flag` anywhere, config keys in code spans, in
 * `uwf config` arguments and in the config.yaml examples. Returns one line per problem.
 */
function problemsIn(markdown: string): string[] {
  const problems: string[] = [];
  const code = codeSegments(markdown);
  for (const segment of code) {
    for (const match of segment.matchAll(/(?<![\w-])uwf(?= )(.*)$/gm)) {
      problems.push(...checkCommandLine(tokens(match[1]!)));
    }
    for (const match of segment.matchAll(/(?<![\w-])uwf-mock\b(.*)$/gm)) {
      for (const flag of tokens(match[1]!).filter(isFlag)) {
        if (!adapterFlags.includes(flagName(flag))) problems.push(`uwf-mock has no option ${flag}`);
      }
    }
  }
  // Prose names commands too ("run uwf thread exec"); "uwf runs …" is not a command.
  const prose = markdown.replace(/^```[\w-]*\n[\s\S]*?^```$/gm, "").replace(/`[^`\n]+`/g, "");
  for (const [, group, sub] of prose.matchAll(/\buwf ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)) {
    // A group alone ("a uwf workflow", "### uwf thread: …") names no command.
    if (GROUPS.has(group!) && sub) problems.push(...checkCommandLine([group!, sub]));
  }
  const allFlags = new Set([
    ...GLOBAL_FLAGS,
    ...adapterFlags,
    ...COMMANDS.flatMap((c) => (c.options ?? []).flatMap((o) => flagsOf(o.flags))),
  ]);
  for (const [flag] of markdown.matchAll(/(?<![\w-])--[a-z][\w-]*/g)) {
    if (!allFlags.has(flag)) problems.push(`no command or adapter has the option ${flag}`);
  }
  for (const span of inlineSpans(markdown)) {
    const path = span.trim();
    const dotted = /^[a-z][A-Za-z0-9]*(\.(<[a-z-]+>|[A-Za-z0-9_-]+))+$/.test(path);
    if (!dotted || FILE_NAME.test(path) || NOT_CONFIG_ROOTS.includes(path.split(".")[0]!)) continue;
    if (!isConfigKey(path)) problems.push(`config.yaml has no key ${path}`);
  }
  for (const block of markedBlocks(markdown)) {
    if (block.marker !== "file config.yaml") continue;
    for (const path of keyPaths(parseYaml(block.body))) {
      if (!isConfigKey(path)) problems.push(`config.yaml has no key ${path}`);
    }
  }
  return problems;
}

/** Problems of one `uwf …` line (the words after `uwf`). */
function checkCommandLine(words: string[]): string[] {
  const [first, second] = words;
  if (first === undefined || isFlag(first)) {
    return words
      .filter(isFlag)
      .flatMap((flag) =>
        GLOBAL_FLAGS.includes(flagName(flag)) ? [] : [`uwf has no global option ${flag}`],
      );
  }
  if (!GROUPS.has(first)) return [`no command "uwf ${first}"`];
  const spec =
    COMMANDS.find((c) => c.path.length === 2 && c.path[0] === first && c.path[1] === second) ??
    COMMANDS.find((c) => c.path.length === 1 && c.path[0] === first);
  if (!spec) return [`no command "uwf ${first}${second ? ` ${second}` : ""}"`];
  const problems: string[] = [];
  const rest = words.slice(spec.path.length);
  const known = [...GLOBAL_FLAGS, ...(spec.options ?? []).flatMap((o) => flagsOf(o.flags))];
  for (const flag of rest.filter(isFlag)) {
    if (!known.includes(flagName(flag)))
      problems.push(`"uwf ${spec.path.join(" ")}" has no option ${flag}`);
  }
  if (spec.path[0] === "config" && (spec.path[1] === "get" || spec.path[1] === "set")) {
    const key = rest.find((word) => !isFlag(word));
    if (key !== undefined && !key.startsWith("<") && !isConfigKey(key))
      problems.push(`config.yaml has no key ${key}`);
  }
  return problems;
}

/** Shell words up to the end of the command (`|`, `;`, `&&`, `)`, a comment). */
function tokens(line: string): string[] {
  const words: string[] = [];
  for (const [word] of line.matchAll(/"[^"]*"|'[^']*'|[^\s"']+/g)) {
    if (/^(\||\|\||&&|;|#)/.test(word!) || word === ")") break;
    words.push(word!.replace(/^\[/, "").replace(/[\])`]+$/, ""));
    if (/[)`]$/.test(word!)) break;
  }
  return words;
}

function isFlag(word: string): boolean {
  return /^--?[A-Za-z]/.test(word);
}

/** `--to=x` → `--to`. */
function flagName(word: string): string {
  return word.split("=")[0]!;
}

/** Fenced block bodies and inline code spans. */
function codeSegments(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```[\w-]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  return [...blocks, ...inlineSpans(markdown)];
}

function inlineSpans(markdown: string): string[] {
  const prose = markdown.replace(/^```[\w-]*\n[\s\S]*?^```$/gm, "");
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
}

/** Dotted paths of every key in a parsed YAML document; lists are values. */
function keyPaths(value: unknown, prefix = ""): string[] {
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return [path, ...keyPaths(child, path)];
  });
}

beforeAll(() => {
  const help = spawnSync(process.execPath, [UWF_MOCK_BIN, "--help"], { encoding: "utf8" });
  expect(help.status, help.stderr).toBe(0);
  adapterFlags = flagsOf(help.stdout);
  expect(adapterFlags).toEqual(expect.arrayContaining(["--thread", "--role", "--prompt"]));
});

describe("uwf prompt guides", () => {
  for (const [name, render] of Object.entries(GUIDES)) {
    it(`${name} names only commands, options and config keys that exist`, () => {
      expect(problemsIn(render())).toEqual([]);
    });
  }

  it("are listed by uwf prompt list, each a command of its own", () => {
    const guides = COMMANDS.filter((c) => c.path[0] === "prompt" && c.path[1] !== "list");
    expect(guides.map((c) => c.path[1]).sort()).toEqual(Object.keys(GUIDES).sort());
  });

  it("usage documents every public command with its options", () => {
    const text = renderUsage(COMMANDS);
    for (const spec of COMMANDS.filter((c) => !c.hidden)) {
      expect(text).toContain(`\`uwf ${spec.path.join(" ")}`);
      for (const option of (spec.options ?? []).filter((o) => !o.hidden)) {
        expect(text, `uwf ${spec.path.join(" ")} ${option.flags}`).toContain(`\`${option.flags}\``);
      }
    }
  });

  it("usage heads each group with its name and, when it has one, its summary", () => {
    const headings = renderUsage(COMMANDS)
      .split("\n")
      .filter((line) => line.startsWith("### uwf "));
    expect(headings).toContain("### uwf setup");
    expect(headings).toContain("### uwf config: read and change config.yaml");
    expect(headings.filter((line) => /:\s*$/.test(line))).toEqual([]);
  });

  it("adapter-developing names every flag agent-kit adapters accept", () => {
    // `uwf-mock --help` prints agent-kit's flags plus the mock's own.
    const mockOnly = ["--scenario", "--mock-data", "-h", "--help"];
    const text = renderAdapterDeveloping();
    for (const flag of adapterFlags.filter((f) => !mockOnly.includes(f))) {
      const named = new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(text);
      expect(named, `the adapter argv has ${flag}: say what it does`).toBe(true);
    }
  });

  it("adapter-developing lists every config key the schema defines", () => {
    const text = renderAdapterDeveloping();
    for (const key of configKeys()) expect(text).toContain(`| \`${key.path}\` |`);
  });

  it("the check catches commands, options and config keys that do not exist", () => {
    const bad = [
      "Run `uwf thread exce <id>` or `uwf thred list`, then uwf thread shwo.",
      "```sh",
      'thread=$(uwf thread start x.yaml --promt "hi")',
      "uwf workflow validate x.yaml --strict",
      "uwf --verbose",
      "uwf-mock --scenarios s.yaml",
      "```",
      "Set `agents.<alias>.comand` and `defaultAgents.x`.",
      "<!-- uwf:file config.yaml -->",
      "```yaml",
      "agents:",
      "  mine: { command: node, timeout: 5 }",
      "defaultAgnet: mine",
      "```",
    ].join("\n");
    expect(problemsIn(bad)).toEqual([
      '"uwf thread start" has no option --promt',
      '"uwf workflow validate" has no option --strict',
      "uwf has no global option --verbose",
      "uwf-mock has no option --scenarios",
      'no command "uwf thread exce"',
      'no command "uwf thred"',
      'no command "uwf thread shwo"',
      "no command or adapter has the option --promt",
      "no command or adapter has the option --strict",
      "no command or adapter has the option --verbose",
      "no command or adapter has the option --scenarios",
      "config.yaml has no key agents.<alias>.comand",
      "config.yaml has no key defaultAgents.x",
      "config.yaml has no key agents.mine.timeout",
      "config.yaml has no key defaultAgnet",
    ]);
  });

  it("config keys resolve through maps, not through placeholders in place of names", () => {
    expect(isConfigKey("agents.<alias>.timeoutSeconds")).toBe(true);
    expect(isConfigKey("agents.mine.command")).toBe(true);
    expect(isConfigKey("agentOverrides.solve-issue.reviewer")).toBe(true);
    expect(isConfigKey("modelOverrides.extract")).toBe(true);
    expect(isConfigKey("<x>.command")).toBe(false);
    expect(isConfigKey("agents.mine.command.more")).toBe(false);
  });

  it("bootstrap installs from a checkout, and names the registry install for once published", () => {
    const text = renderBootstrap();
    const install = text.slice(text.indexOf("## 1. Install"), text.indexOf("## 2. Configure"));
    expect(install).toContain("npm run setup");
    expect(install).toContain("npm run install-cli");
    expect(install).toContain(
      "Once the packages are published,\n`npm i -g @united-workforce/cli @united-workforce/agent-mock`",
    );
    // install-cli brings every adapter: the table names only the agent CLIs they drive.
    const rows = install.split("\n").filter((line) => line.startsWith("| `"));
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) expect(row).not.toContain("@united-workforce/");
    expect(rows).toContainEqual(expect.stringContaining("`npm i -g @anthropic-ai/claude-code`"));
    expect(rows).toContainEqual(expect.stringContaining("`pip install 'hermes-agent[acp]'`"));
  });

  it("the marked blocks are where the suite finds them", () => {
    const markers = (text: string) => markedBlocks(text).map((b) => b.marker);
    expect(markers(renderBootstrap())).toContain("verify");
    expect(markers(renderWorkflowAuthoring())).toEqual([
      "file draft-review.yaml",
      "file draft-review-mock.yaml",
      "verify",
    ]);
    expect(markers(renderAdapterDeveloping())).toEqual(["file my-adapter.mjs", "file config.yaml"]);
  });
});
