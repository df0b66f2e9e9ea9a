import { stringify as stringifyYaml } from "yaml";
import type { MockAnswer } from "./scenario.js";

/** An output object becomes `---\n<yaml>---\n<body>`; a string is sent exactly as written. */
export function renderAnswer(answer: MockAnswer, body = ""): string {
  if (typeof answer === "string") return answer;
  return `---\n${stringifyYaml(answer)}---\n${body}`;
}
