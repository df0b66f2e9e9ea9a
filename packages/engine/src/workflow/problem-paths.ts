/**
 * Where in a workflow a validation message points, and what kind of problem it is. Messages
 * open with the place they are about (`role "r"`, `graph[r][s]`, `edge r→s`, `"inputs"`, …),
 * a wording users and tests rely on (messages.ts); reading that opening here keeps every check
 * free of position bookkeeping, which is only wanted when something is wrong.
 */

export type ProblemCode =
  | "UNKNOWN_KEY"
  | "MISSING_FIELD"
  | "UNKNOWN_ROLE"
  | "UNREACHABLE"
  | "STATUS_KEYS"
  | "TEMPLATE"
  | "NAME_MISMATCH"
  | "SCHEMA"
  | "INVALID_VALUE";

export interface ProblemPath {
  code: ProblemCode;
  /** Keys from the top-level mapping to the node the message is about; null when it has none. */
  path: string[] | null;
}

const QUOTED = '"((?:[^"\\\\]|\\\\.)*)"';
const GRAPH_EDGE = /^graph\[([^\]]*)\]\[([^\]]*)\]/;

/** The path and code of a message from validateWorkflow or the schema checks. */
export function problemPath(message: string): ProblemPath {
  const code = problemCode(message);
  return { code, path: pathOf(message) };
}

function problemCode(message: string): ProblemCode {
  if (/unknown (?:top-level )?key "/.test(message)) return "UNKNOWN_KEY";
  if (/missing required field "/.test(message)) return "MISSING_FIELD";
  if (/unknown target role|is not a role declared under "roles"/.test(message)) {
    return "UNKNOWN_ROLE";
  }
  if (/is not reachable from \$START|can never reach \$END/.test(message)) return "UNREACHABLE";
  if (/graph (?:is missing|has) status keys|^\$START (?:must|may only)/.test(message)) {
    return "STATUS_KEYS";
  }
  if (
    /(?:prompt|location) variable "|mustache|Liquid filter|partial|\[object Object\]/.test(message)
  ) {
    return "TEMPLATE";
  }
  if (message.startsWith("workflow name mismatch")) return "NAME_MISMATCH";
  if (/JSON Schema|frontmatter/.test(message)) return "SCHEMA";
  return "INVALID_VALUE";
}

function pathOf(message: string): string[] | null {
  let match = new RegExp(
    `^(?:prompt|location) variable ${QUOTED} in graph\\[([^\\]]*)\\]\\[([^\\]]*)\\]`,
  ).exec(message);
  if (match !== null) {
    return ["graph", match[2]!, match[3]!, message.startsWith("location") ? "location" : "prompt"];
  }
  match = /^edge (.*?)\u2192(.*?): /.exec(message);
  if (match !== null) return ["graph", match[1]!, match[2]!, "role"];
  match = GRAPH_EDGE.exec(message);
  if (match !== null) return ["graph", match[1]!, match[2]!, ...edgeDetail(message)];
  match = /^graph\[([^\]]*)\]/.exec(message);
  if (match !== null) return ["graph", match[1]!];
  match = new RegExp(`^graph key ${QUOTED}`).exec(message);
  if (match !== null) return ["graph", match[1]!];
  if (message.startsWith("$START")) return ["graph", "$START"];
  match = new RegExp(`^role (?:name )?${QUOTED}`).exec(message);
  if (match !== null) return roleDetail(match[1]!, message.slice(match[0].length));
  match = new RegExp(`^unknown top-level key ${QUOTED}`).exec(message);
  if (match !== null) return [match[1]!];
  if (/^"?on\b/.test(message)) return onDetail(message);
  match = /^"?(inputs|maxSteps|name|description|worktree|version|roles|graph)\b/.exec(message);
  if (match !== null) return topLevelDetail(match[1]!, message);
  if (/^workflow name /.test(message)) return ["name"];
  if (/^missing required field "/.test(message)) return [];
  return null;
}

/** Inside `on:`: `on.github.events[1]: …`, `on.github: unknown key "x"`, `on: unknown key "x"`. */
function onDetail(message: string): string[] {
  const [, dotted = "", index, unknown] =
    /^"?on((?:\.[\w-]+)*)"?(?:\[(\d+)\])?(?::\s*unknown key "([^"]*)")?/.exec(message) ?? [];
  const path = ["on", ...dotted.split(".").filter((part) => part !== "")];
  if (index !== undefined) path.push(index);
  if (unknown !== undefined) path.push(unknown);
  return path;
}

/** Inside an edge: its fan-out, a key it names, or the template a message is about. */
function edgeDetail(message: string): string[] {
  const rest = message.replace(GRAPH_EDGE, "");
  if (rest.startsWith(".fanout") || /: fanout\./.test(rest)) {
    const key = /^\.fanout\.(\w+)/.exec(rest)?.[1] ?? /: fanout\.(\w+)/.exec(rest)?.[1];
    return key === undefined ? ["fanout"] : ["fanout", key];
  }
  const key = new RegExp(`^(?:: unknown key |: )${QUOTED}`).exec(rest)?.[1];
  if (key !== undefined) return [key];
  const template = /^: (prompt|location) /.exec(rest)?.[1];
  if (template !== undefined) return [template];
  if (rest.includes("unknown target role") || rest.includes('"role"')) return ["role"];
  return [];
}

function roleDetail(role: string, rest: string): string[] {
  if (/^ graph /.test(rest) || /^ can never reach/.test(rest)) return ["graph", role];
  if (/^ frontmatter/.test(rest)) return ["roles", role, "frontmatter", ...schemaDetail(rest)];
  if (/^: exitStatus\b/.test(rest)) return ["roles", role, "exitStatus"];
  // `: unknown key "x"`, `: "goal" must be …`, `: "agent: human" and "run" exclude …`
  const key = new RegExp(`^: (?:unknown key )?${QUOTED}`).exec(rest);
  if (key !== null) return ["roles", role, key[1]!.split(/[ :]/)[0]!];
  return ["roles", role];
}

function topLevelDetail(top: string, message: string): string[] {
  if (top !== "inputs") return [top];
  if (message.startsWith('"inputs": ')) return ["inputs", ...schemaDetail(message)];
  const properties = /^inputs\.properties\.([\w-]+)/.exec(message);
  if (properties !== null) return ["inputs", "properties", properties[1]!];
  if (/^"?inputs\.required/.test(message)) return ["inputs", "required"];
  return ["inputs"];
}

/**
 * Inside a JSON Schema, the keyword or format a schema warning names, at the place it names
 * (`at the top`, `at properties.title`; schema-lint writes an awkward name as `["a b"]`).
 */
function schemaDetail(message: string): string[] {
  const found = new RegExp(`(?:keyword ${QUOTED}|format ${QUOTED}) at (the top|[^\\s;(]+)`).exec(
    message,
  );
  if (found === null) return [];
  const place =
    found[3] === "the top"
      ? []
      : [...found[3]!.matchAll(/\["((?:[^"\\]|\\.)*)"\]|([^.[\]]+)/g)].map(
          (part) => part[1] ?? part[2]!,
        );
  return found[1] === undefined ? [...place, "format"] : [...place, found[1]];
}
