import type { GrepMatch, StepPayload } from "@united-workforce/protocol";
import type { Cas, ThreadsStore } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { stringify as toYaml } from "yaml";
import { ChainReadAhead, withPrefetchedHeads } from "./batched-walk.js";

/** What a search looks at in each step: its output (as YAML), its body, its assembled prompt. */
export type GrepScope = "outputs" | "bodies" | "prompts";
export const GREP_SCOPES: readonly GrepScope[] = ["outputs", "bodies", "prompts"];

const WHERE = { outputs: "output", bodies: "body", prompts: "prompt" } as const;
const FIELD = { outputs: "output", bodies: "body", prompts: "assembledPrompt" } as const;

export interface GrepOptions {
  /** The threads to search; every thread in the store when undefined. */
  threads?: readonly string[] | undefined;
  in: readonly GrepScope[];
  /** Whether one line matches (see `grepMatcher`). */
  matches: LineMatcher;
}

export interface GrepResult {
  threads: number;
  steps: number;
  nodes: number;
  matches: GrepMatch[];
}

export interface GrepSource {
  cas: Cas;
  threads: Pick<ThreadsStore, "get" | "all">;
}

/**
 * Search the recorded steps of threads, line by line. Forks share their chain and steps share
 * bodies, prompts and outputs, so each node is read and searched once per run: a walk from a
 * head stops at the first step an earlier walk reached (a step shared by forks is reported
 * once, under the first thread that reached it), and a node's matching lines are remembered
 * by its hash for every other step that holds it.
 */
export async function grepThreads(source: GrepSource, options: GrepOptions): Promise<GrepResult> {
  const { cas } = source;
  const seenSteps = new Set<string>();
  const nodeLines = new Map<string, GrepMatch["lines"]>();
  const matches: GrepMatch[] = [];
  let threads = 0;

  const linesOf = async (scope: GrepScope, hash: string): Promise<GrepMatch["lines"]> => {
    let lines = nodeLines.get(hash);
    if (lines === undefined) {
      const payload = await cas.getPayload<unknown>(hash);
      const text = scope === "outputs" ? toYaml(payload) : String(payload);
      lines = matchingLines(text, options.matches);
      nodeLines.set(hash, lines);
    }
    return lines;
  };

  const search = async (thread: string, head: string | null, count: number): Promise<void> => {
    threads++;
    const found: GrepMatch[] = [];
    let number = count;
    const readAhead = new ChainReadAhead(cas);
    for (let hash = head; hash !== null && !seenSteps.has(hash); number--) {
      seenSteps.add(hash);
      await readAhead.before(hash);
      const step = await cas.getPayload<StepPayload>(hash, "step");
      // Newest first while walking back; each step's scopes stay in their given order.
      const here: GrepMatch[] = [];
      for (const scope of options.in) {
        const lines = await linesOf(scope, step[FIELD[scope]]);
        if (lines.length > 0) {
          here.push({ thread, step: number, hash, role: step.role, in: WHERE[scope], lines });
        }
      }
      found.unshift(...here);
      hash = step.prev;
    }
    matches.push(...found);
  };

  if (options.threads === undefined) {
    for await (const item of withPrefetchedHeads(cas, source.threads.all())) {
      const { pointer } = item;
      if (pointer === null) continue;
      await search(item.id, pointer.head === pointer.start ? null : pointer.head, pointer.steps);
    }
  } else {
    for (const id of options.threads) {
      const pointer = await source.threads.get(id);
      await search(id, pointer.head === pointer.start ? null : pointer.head, pointer.steps);
    }
  }
  return { threads, steps: seenSteps.size, nodes: seenSteps.size + nodeLines.size, matches };
}

function matchingLines(text: string, matches: LineMatcher): GrepMatch["lines"] {
  const found: GrepMatch["lines"] = [];
  if (matches.mayMatch && !matches.mayMatch(text)) return found;
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (matches(line)) found.push({ line: index + 1, text: line });
  }
  return found;
}

let linearEngine: boolean | null = null;

/**
 * Whether V8's linear-time regular expression engine (the `l` flag) is available. It is behind
 * a V8 flag that can be set at run time; it only applies to expressions that ask for it.
 * `node:v8` loads the stream modules, so it is imported only when a pattern needs it.
 */
async function hasLinearEngine(): Promise<boolean> {
  if (linearEngine === null) {
    try {
      const { setFlagsFromString } = await import("node:v8");
      setFlagsFromString("--enable-experimental-regexp-engine");
      // biome-ignore lint/complexity/useRegexLiterals: parsers do not know the `l` flag
      linearEngine = new RegExp("a", "l").test("a");
    } catch {
      linearEngine = false;
    }
  }
  return linearEngine;
}

/**
 * Whether a line matches; `mayMatch`, when given, tells at once from a node's whole text that
 * none of its lines can match (most nodes), sparing a call per line. `linear`: whether it runs
 * in linear time (a literal, or a regex V8's linear-time engine accepted).
 */
export type LineMatcher = ((line: string) => boolean) & {
  mayMatch?: (text: string) => boolean;
  linear: boolean;
};

/**
 * A line matcher for `pattern`: a literal with `fixedStrings`, else a JavaScript regular
 * expression. A user's expression runs over every stored line, so it is compiled for V8's
 * linear-time engine when that engine accepts it: such a pattern cannot backtrack
 * catastrophically (`(a+)+$` stays linear). On Node 20 that engine takes no `i` flag, no
 * backreferences and no lookaround; those patterns run on the ordinary backtracking engine,
 * one line at a time (see docs/history.md).
 */
export async function grepMatcher(
  pattern: string,
  options: { fixedStrings?: boolean; ignoreCase?: boolean } = {},
): Promise<LineMatcher> {
  if (pattern === "") {
    throw new UwfError("USAGE", "the pattern is empty", {
      hint: "give text to look for, e.g. uwf thread grep 'TODO'",
    });
  }
  // Text without metacharacters means itself: a substring search is much faster than a regex.
  if (options.fixedStrings || !/[\\^$.*+?()[\]{}|]/.test(pattern)) {
    return literalMatcher(pattern, options.ignoreCase === true);
  }
  const flags = options.ignoreCase ? "i" : "";
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, flags);
  } catch (error) {
    throw new UwfError("USAGE", `invalid regular expression ${JSON.stringify(pattern)}`, {
      hint: "fix the pattern (JavaScript syntax), or pass --fixed-strings to search for it literally",
      cause: error,
    });
  }
  // With `m`, the pattern matches somewhere in a text if it matches one of its lines (and
  // perhaps across lines too): a cheap first test of a whole node.
  let anywhere = new RegExp(pattern, `${flags}m`);
  let linear = false;
  if (await hasLinearEngine()) {
    try {
      regex = new RegExp(pattern, `${flags}l`);
      anywhere = new RegExp(pattern, `${flags}ml`);
      linear = true;
    } catch {
      // Not expressible in linear time: keep the backtracking one.
    }
  }
  const matcher = ((line: string) => regex.test(line)) as LineMatcher;
  matcher.mayMatch = (text) => anywhere.test(text);
  matcher.linear = linear;
  return matcher;
}

function literalMatcher(pattern: string, ignoreCase: boolean): LineMatcher {
  const lower = pattern.toLowerCase();
  const matcher = (
    ignoreCase
      ? (line: string) => line.toLowerCase().includes(lower)
      : (line: string) => line.includes(pattern)
  ) as LineMatcher;
  matcher.mayMatch = matcher;
  matcher.linear = true;
  return matcher;
}
