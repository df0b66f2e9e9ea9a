import { UwfError } from "@united-workforce/util";

/** Why a chat-completions request failed. */
export type ModelFailureKind = "http" | "network" | "timeout" | "response";

/**
 * A model request that failed for good (after its retries). Its message names the model, the
 * URL, the HTTP status and the provider's own message; its hint says what to do. The code is
 * AGENT_FAILED: the step fails and uwf suspends the thread, to be resumed later.
 */
export class ModelRequestError extends UwfError {
  readonly kind: ModelFailureKind;
  /** The HTTP status, when the provider answered one. */
  readonly status: number | null;
  /** Tries made, the first included. */
  readonly attempts: number;
  /** The wait the provider asked for in its last answer (Retry-After), in ms. */
  readonly retryAfterMs: number | null;

  constructor(
    kind: ModelFailureKind,
    message: string,
    options: {
      status?: number | null;
      attempts: number;
      hint: string;
      cause?: unknown;
      retryAfterMs?: number | null;
    },
  ) {
    super("AGENT_FAILED", message, {
      hint: options.hint,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
      details: { kind, status: options.status ?? null, attempts: options.attempts },
    });
    this.name = "ModelRequestError";
    this.kind = kind;
    this.status = options.status ?? null;
    this.attempts = options.attempts;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

/** What to do about an HTTP status a provider answered. */
export function hintForStatus(status: number): string {
  if (status === 401 || status === 403) {
    return "The provider refused the API key: check the provider's apiKey (or the variable its apiKeyEnv names) in $UWF_HOME/config.yaml.";
  }
  if (status === 404) {
    return "Check the provider's baseUrl (OpenAI-compatible URLs usually end in /v1) and the model's name in $UWF_HOME/config.yaml.";
  }
  if (status === 429) {
    return "The provider is rate limiting: wait, then run `uwf thread resume <thread>`; or allow more retries.";
  }
  if (status >= 500) {
    return "The provider kept failing: try again later with `uwf thread resume <thread>`.";
  }
  return "The provider rejected the request: check the model's name and that it supports tool calls, fix $UWF_HOME/config.yaml if needed, then run `uwf thread resume <thread>`.";
}
