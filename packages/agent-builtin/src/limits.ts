import type { AgentOptionSpec, AgentOptionValues, RetryPolicy } from "@united-workforce/agent-kit";
import { UwfError } from "@united-workforce/util";

/** What bounds one step of uwf-builtin; every figure has a flag. */
export interface Limits {
  /** Model answers per step, repairs included. */
  maxTurns: number;
  /** The whole step, repairs included. */
  maxMs: number;
  /** Bytes of one tool result given back to the model. */
  maxOutputBytes: number;
  /** One model request. */
  requestTimeoutMs: number;
  /** One run_command. */
  commandTimeoutMs: number;
  retry: RetryPolicy;
  runCommand: boolean;
}

const DEFAULTS = {
  maxTurns: 50,
  maxSeconds: 1_500,
  maxOutputBytes: 20_000,
  requestTimeoutSeconds: 300,
  commandTimeoutSeconds: 120,
  retries: 4,
};

/** The retry waits: 1 s, 2 s, 4 s… (with jitter), never more than a minute. */
const RETRY_DELAYS = { baseDelayMs: 1_000, maxDelayMs: 60_000 };

export const LIMIT_OPTIONS: Record<string, AgentOptionSpec> = {
  "max-turns": {
    description: `model answers per step, repairs included (default ${DEFAULTS.maxTurns})`,
    valueName: "n",
  },
  "max-seconds": {
    description: `time for the whole step (default ${DEFAULTS.maxSeconds})`,
    valueName: "s",
  },
  "max-output-bytes": {
    description: `bytes of one tool result the model gets back (default ${DEFAULTS.maxOutputBytes})`,
    valueName: "n",
  },
  "request-timeout": {
    description: `seconds one model request may take (default ${DEFAULTS.requestTimeoutSeconds})`,
    valueName: "s",
  },
  "command-timeout": {
    description: `seconds one run_command may take (default ${DEFAULTS.commandTimeoutSeconds})`,
    valueName: "s",
  },
  retries: {
    description: `retries of a model request after a 429, a 5xx or a network error (default ${DEFAULTS.retries})`,
    valueName: "n",
  },
  "no-run-command": {
    description: "do not offer the run_command tool",
    type: "boolean",
  },
};

export function readLimits(options: AgentOptionValues): Limits {
  const number = (name: string, fallback: number, min: number): number => {
    const value = options[name];
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (typeof value !== "string" || !Number.isFinite(parsed) || parsed < min) {
      throw new UwfError(
        "USAGE",
        `option "--${name}" must be a number ≥ ${min}, got "${String(value)}"`,
        {
          hint: "Run uwf-builtin --help to see the options.",
        },
      );
    }
    return parsed;
  };
  const whole = (name: string, fallback: number, min: number): number => {
    const value = number(name, fallback, min);
    if (!Number.isInteger(value)) {
      throw new UwfError(
        "USAGE",
        `option "--${name}" must be a whole number, got "${String(options[name])}"`,
        {
          hint: "Run uwf-builtin --help to see the options.",
        },
      );
    }
    return value;
  };
  return {
    maxTurns: whole("max-turns", DEFAULTS.maxTurns, 1),
    maxMs: number("max-seconds", DEFAULTS.maxSeconds, 0.001) * 1000,
    maxOutputBytes: whole("max-output-bytes", DEFAULTS.maxOutputBytes, 256),
    requestTimeoutMs: number("request-timeout", DEFAULTS.requestTimeoutSeconds, 0.001) * 1000,
    commandTimeoutMs: number("command-timeout", DEFAULTS.commandTimeoutSeconds, 0.001) * 1000,
    retry: { attempts: whole("retries", DEFAULTS.retries, 0) + 1, ...RETRY_DELAYS },
    runCommand: options["no-run-command"] !== true,
  };
}
