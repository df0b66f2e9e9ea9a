import { stringifyFlatYaml } from "@united-workforce/agent-kit/entry";
import { stringify as stringifyYaml } from "yaml";
import type { MockAnswer } from "./scenario.js";

/** An output object becomes `---\n<yaml>---\n<body>`; a string is sent exactly as written. */
export function renderAnswer(answer: MockAnswer, body = ""): string {
  if (typeof answer === "string") return answer;
  // A flat answer is written without the yaml library (the same text): see parseFlatYaml.
  return `---\n${stringifyFlatYaml(answer) ?? stringifyYaml(answer)}---\n${body}`;
}
