import type { RoleExits } from "@united-workforce/engine/adapter";
import type { Usage } from "@united-workforce/protocol";
import { errorMessage } from "@united-workforce/util";
import { buildCorrection } from "../extract/correction.js";
import {
  checkCandidate,
  type Extraction,
  extractOutput,
  MAX_ANSWER_CHARS,
  type Validator,
} from "../extract/extract.js";
import { parseFrontmatter } from "../extract/frontmatter.js";
import type { ModelEndpoint } from "../extract/model-extract.js";
import type { AgentContext, AgentDefinition, AgentRunResult } from "./types.js";

/** One try at a valid output, kept in the detail node whatever its outcome. */
export interface AttemptRecord {
  attempt: number;
  kind: "run" | "continue" | "extract-model";
  rawOutput: string;
  valid: boolean;
  errors: string[];
  /** The correction that asked for this attempt. */
  correction?: string;
  usage?: Partial<Usage>;
}

export interface AttemptsOutcome {
  extraction: Extraction;
  records: AttemptRecord[];
  /** Every adapter result, in order, for the detail and usage. */
  results: AgentRunResult[];
  /** Usage of the extract model, when it was asked. */
  extractUsage: Partial<Usage> | undefined;
  /** The last answer the agent itself gave. */
  lastRawOutput: string;
}

export interface ExtractModel {
  alias: string;
  endpoint: ModelEndpoint;
  timeoutMs: number | undefined;
}

/**
 * Run the agent, then repair: up to `maxRepairs` corrections in the same session, then the
 * extract model if one is configured. Returns the first valid extraction or the last failure.
 */
export async function runAttempts(options: {
  definition: AgentDefinition;
  ctx: AgentContext;
  exits: RoleExits;
  validate: Validator;
  /** Looked up only when the agent's own attempts failed: a bad config matters only then. */
  extractModel: () => ExtractModel | null;
}): Promise<AttemptsOutcome> {
  const { definition, ctx, exits, validate } = options;
  const maxRepairs = definition.continue ? (definition.maxRepairs ?? 2) : 0;
  const maxAttempts = maxRepairs + 1;
  const records: AttemptRecord[] = [];
  const results: AgentRunResult[] = [];

  let result = await definition.run(ctx);
  let session = result.session;
  let correction: string | undefined;
  let extraction: Extraction;
  for (let attempt = 1; ; attempt++) {
    results.push(result);
    extraction = extractOutput(result.text, exits, validate);
    records.push(
      record(attempt, attempt === 1 ? "run" : "continue", result, extraction, correction),
    );
    if (extraction.ok || attempt >= maxAttempts || !definition.continue) break;
    ctx.progress(
      `output invalid (attempt ${attempt} of ${maxAttempts}): ${extraction.errors.join("; ")}`,
    );
    correction = buildCorrection({
      errors: extraction.errors,
      attempt,
      maxAttempts,
      outputFormat: ctx.outputFormat,
    });
    result = await definition.continue(ctx, session, correction);
    if (result.session !== undefined) session = result.session;
  }
  const lastRawOutput = kept(result.text);

  let extractUsage: Partial<Usage> | undefined;
  // An answer over the size limit is not a format problem an extract model could repair.
  if (!extraction.ok && result.text.length <= MAX_ANSWER_CHARS) {
    let model: ExtractModel | null = null;
    try {
      model = options.extractModel();
    } catch (error) {
      ctx.progress(`cannot use an extract model: ${errorMessage(error)}`);
    }
    if (model) {
      ctx.progress(
        `output still invalid after ${records.length} attempts; asking extract model "${model.alias}"`,
      );
      const asked = await askExtractModel(model, options, lastRawOutput, records.length + 1);
      records.push(asked.record);
      extractUsage = asked.usage;
      if (asked.extraction !== null) extraction = asked.extraction;
    }
  }
  return { extraction, records, results, extractUsage, lastRawOutput };
}

/**
 * The extract model's try at the agent's last answer: its record, its usage, and the
 * extraction when what it gave is valid (else null).
 */
async function askExtractModel(
  model: ExtractModel,
  options: { ctx: AgentContext; exits: RoleExits; validate: Validator },
  lastRawOutput: string,
  attempt: number,
): Promise<{
  record: AttemptRecord;
  usage: Partial<Usage> | undefined;
  extraction: Extraction | null;
}> {
  const { ctx, exits, validate } = options;
  const body = parseFrontmatter(lastRawOutput).body;
  let usage: Partial<Usage> | undefined;
  try {
    // The OpenAI client is loaded only when a step needs it (DESIGN §14).
    const { extractWithModel } = await import("../extract/model-extract.js");
    const answer = await extractWithModel({
      endpoint: model.endpoint,
      schema: ctx.schema,
      rawOutput: lastRawOutput,
      ...(model.timeoutMs === undefined ? {} : { timeoutMs: model.timeoutMs }),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    usage = answer.usage;
    const checked = checkCandidate(answer.data, exits, validate, body);
    const record: AttemptRecord = {
      attempt,
      kind: "extract-model",
      rawOutput: answer.reply,
      valid: checked.ok,
      errors: checked.ok ? [] : checked.errors,
      usage: answer.usage,
    };
    return { record, usage, extraction: checked.ok ? checked : null };
  } catch (error) {
    const record: AttemptRecord = {
      attempt,
      kind: "extract-model",
      rawOutput: "",
      valid: false,
      errors: [errorMessage(error)],
    };
    return { record, usage, extraction: null };
  }
}

function record(
  attempt: number,
  kind: AttemptRecord["kind"],
  result: AgentRunResult,
  extraction: Extraction,
  correction: string | undefined,
): AttemptRecord {
  return {
    attempt,
    kind,
    rawOutput: kept(result.text),
    valid: extraction.ok,
    errors: extraction.ok ? [] : extraction.errors,
    ...(correction === undefined ? {} : { correction }),
    ...(result.usage ? { usage: result.usage } : {}),
  };
}

/** What the detail keeps of an answer: all of it, or the start of one over the size limit. */
function kept(text: string): string {
  if (text.length <= MAX_ANSWER_CHARS) return text;
  const head = 64 * 1024;
  return `${text.slice(0, head)}\n… [${text.length - head} more characters not kept: the answer was over the size limit]`;
}
