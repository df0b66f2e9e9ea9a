/**
 * JSON Schemas of the `--format json` documents (DESIGN §13). They pin the stable keys: a
 * document may gain keys (`additionalProperties` stays open), never lose or rename one. A test
 * validates real command output against them.
 */
import { usageSchema as usage } from "./nodes.js";

const hash = { type: "string", pattern: "^[0-9A-HJKMNP-TV-Z]{13}$" } as const;
const nullableHash = { anyOf: [hash, { type: "null" }] } as const;
const isoTime = {
  type: "string",
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$",
} as const;
const str = { type: "string" } as const;
const nullableStr = { type: ["string", "null"] } as const;
const int = { type: "integer" } as const;
const strings = { type: "array", items: str } as const;
const threadStatus = {
  enum: ["idle", "running", "suspended", "completed", "cancelled", "corrupt"],
} as const;

function object(properties: Record<string, unknown>, required: string[] = Object.keys(properties)) {
  return { type: "object", required, properties } as const;
}

export const DOCUMENT_SCHEMAS = {
  error: object({ error: object({ code: str, message: str, hint: nullableStr }) }),

  "workflow add": object(
    {
      name: str,
      hash,
      description: nullableStr,
      roles: strings,
      warnings: strings,
      changed: { type: "boolean" },
    },
    ["name", "hash", "roles", "warnings"],
  ),
  "workflow show": object(
    {
      name: str,
      hash,
      description: nullableStr,
      roles: strings,
      warnings: strings,
      graph: { type: "object" },
    },
    ["name", "hash", "roles", "graph"],
  ),
  "workflow validate": object({
    valid: { type: "boolean" },
    name: nullableStr,
    hash: nullableHash,
    errors: strings,
    warnings: strings,
    source: str,
  }),
  "workflow list": object({
    workflows: {
      type: "array",
      items: object({ name: str, hash, updatedAt: isoTime, versions: int }),
    },
  }),
  "workflow history": object({
    name: str,
    current: hash,
    history: { type: "array", items: object({ hash, at: isoTime }) },
  }),
  "workflow rollback": object({ name: str, current: hash, history: { type: "array" } }),
  "workflow rm": object({ name: str, removed: { type: "boolean" } }),

  "cas get": object({ hash, type: str, payload: {} }),
  "cas put": object({ hash, type: str }),
  "cas put-text": object({ hash, type: hash }),
  "cas has": object({ hash, exists: { type: "boolean" } }),
  "cas refs": object({ hash, refs: { type: "array", items: hash } }),
  "cas walk": object({
    root: hash,
    nodes: { type: "array", items: object({ hash, type: str, depth: int }) },
  }),
  "cas verify": object({
    checked: int,
    ok: int,
    corrupt: { type: "array", items: object({ hash: str, file: str, problem: str }) },
  }),
  "cas gc": object({
    dryRun: { type: "boolean" },
    roots: int,
    reachable: int,
    unreachable: { type: "array", items: hash },
    deleted: int,
    bytes: int,
  }),

  "thread start": object({ thread: str, workflow: str, head: hash, status: threadStatus }),
  "thread show": object({
    thread: str,
    workflow: str,
    head: hash,
    status: threadStatus,
    currentRole: nullableStr,
    suspended: {
      anyOf: [
        { type: "null" },
        object({ role: str, reason: str, kind: { enum: ["question", "failure"] } }),
      ],
    },
    steps: int,
    usage,
  }),
  "thread exec": object({
    thread: str,
    status: threadStatus,
    stoppedBecause: {
      enum: ["completed", "suspended", "count", "failed", "cancelled", "stopped", "background"],
    },
    steps: { type: "array", items: object({ hash, role: str, status: str }) },
  }),
  "thread list": object({
    threads: {
      type: "array",
      items: object({
        thread: str,
        workflow: str,
        status: threadStatus,
        currentRole: nullableStr,
        createdAt: str,
        updatedAt: str,
      }),
    },
    total: int,
  }),
  "step list": object({
    thread: str,
    workflow: str,
    steps: {
      type: "array",
      items: object({
        hash,
        role: str,
        status: str,
        agent: str,
        startedAt: isoTime,
        durationMs: int,
        usage,
      }),
    },
  }),
  "step fork": object({ thread: str, forkedFrom: hash }),
} as const;

export type DocumentName = keyof typeof DOCUMENT_SCHEMAS;
