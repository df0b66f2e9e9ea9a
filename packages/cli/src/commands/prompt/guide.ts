import type { PromptDocument } from "@united-workforce/protocol";
import { type CommandResult, result } from "../command.js";

/** A guide's document: its name and markdown; the text form is the markdown itself. */
export function guide(name: string, text: string): CommandResult<PromptDocument> {
  return result({ name, text }, (d) => d.text);
}
