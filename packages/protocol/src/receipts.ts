/**
 * A thread's receipt (issue 30): an in-toto Statement v1 whose subjects are the git commits and
 * trees its steps recorded and whose predicate is each step as evidence (role, agent, model,
 * usage, the step's and its prompt's hashes, the working tree before and after, the diff
 * stat). It is derived from the chain alone, so deriving it twice, on any machine, from the
 * store or from an export bundle, gives the same bytes (docs/receipts.md).
 */
import type { FromSchema } from "./from-schema.js";
import { stepGitSchema, usageSchema } from "./nodes.js";
import { hashSchema, isoTimeSchema, threadIdSchema } from "./string-schemas.js";

export const IN_TOTO_STATEMENT_TYPE = "https://in-toto.io/Statement/v1";

/** What uwf's receipt predicate is; the page it names describes it. */
export const RECEIPT_PREDICATE_TYPE =
  "https://github.com/united-workforce/uwf/blob/main/docs/receipts.md#predicate-v1";

const str = { type: "string" } as const;
const nullableStr = { type: ["string", "null"] } as const;

/** A subject: a commit (`gitCommit`) or a tree (`gitTree`) some step recorded. */
const subjectSchema = {
  type: "object",
  required: ["name", "digest"],
  properties: {
    name: { enum: ["git-commit", "git-tree"] },
    digest: {
      type: "object",
      properties: { gitCommit: str, gitTree: str },
      minProperties: 1,
      maxProperties: 1,
    },
  },
} as const;

/** One step as evidence, oldest first; `git` is null for a step outside a git working tree. */
const receiptStepSchema = {
  type: "object",
  required: [
    "number",
    "step",
    "role",
    "status",
    "agent",
    "model",
    "usage",
    "prompt",
    "output",
    "startedAt",
    "completedAt",
    "git",
  ],
  properties: {
    number: { type: "integer", minimum: 1 },
    step: hashSchema,
    role: str,
    status: str,
    // The agent as the step names it; its version when its adapter recorded one.
    agent: {
      type: "object",
      required: ["name", "version"],
      properties: { name: str, version: nullableStr },
    },
    model: nullableStr,
    usage: usageSchema,
    // The exact prompt the agent was given, and its validated output, as CAS hashes.
    prompt: hashSchema,
    output: hashSchema,
    startedAt: isoTimeSchema,
    completedAt: isoTimeSchema,
    git: { anyOf: [stepGitSchema, { type: "null" }] },
  },
} as const;

export const receiptPredicateSchema = {
  type: "object",
  required: ["thread", "workflow", "start", "head", "steps"],
  properties: {
    thread: threadIdSchema,
    workflow: {
      type: "object",
      required: ["name", "hash"],
      properties: { name: str, hash: hashSchema },
    },
    start: hashSchema,
    head: hashSchema,
    steps: { type: "array", items: receiptStepSchema },
  },
} as const;

export const receiptStatementSchema = {
  type: "object",
  required: ["_type", "subject", "predicateType", "predicate"],
  properties: {
    _type: { const: IN_TOTO_STATEMENT_TYPE },
    subject: { type: "array", minItems: 1, items: subjectSchema },
    predicateType: { const: RECEIPT_PREDICATE_TYPE },
    predicate: receiptPredicateSchema,
  },
} as const;

export type ReceiptStatement = FromSchema<typeof receiptStatementSchema>;
export type ReceiptPredicate = FromSchema<typeof receiptPredicateSchema>;
export type ReceiptStep = FromSchema<typeof receiptStepSchema>;
export type ReceiptSubject = FromSchema<typeof subjectSchema>;
