import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify as stringifyYaml } from "yaml";

/** One scripted step of uwf-mock (see packages/agent-mock/README.md). */
export interface MockScenarioStep {
  role: string;
  /** An output object, or the raw reply text. */
  output?: string | Record<string, unknown>;
  body?: string;
  attempts?: (string | Record<string, unknown>)[];
  delay_ms?: number;
  wait_for?: string;
  exit?: number;
  stdout?: string;
  stderr?: string;
  usage?: Record<string, number>;
  /** Fail this many tries transiently (exit 75) before answering. */
  transient?: number;
  retry_after?: number;
}

/** Write a uwf-mock scenario file (YAML) and return its path. */
export function writeScenario(
  dir: string,
  steps: MockScenarioStep[],
  name = "scenario.yaml",
): string {
  const path = join(dir, name);
  writeFileSync(path, stringifyYaml({ steps }));
  return path;
}
