import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { GithubEvent } from "@united-workforce/engine";
import { isPlainObject } from "@united-workforce/protocol";
import { errorMessage, UwfError } from "@united-workforce/util";

/**
 * The GitHub event of `thread start --event <file|->`: its JSON payload (a runner's
 * `GITHUB_EVENT_PATH`, a saved webhook body), its name from `--event-name` or the runner's
 * `GITHUB_EVENT_NAME`, and the delivery id from `--delivery` when there is one.
 */
export function readGithubEvent(
  cwd: string,
  options: { event: string; eventName?: string | undefined; delivery?: string | undefined },
  env: Record<string, string | undefined>,
  readStdin: () => string = () => readFileSync(0, "utf8"),
): GithubEvent {
  const source = options.event === "-" ? "stdin (--event -)" : `--event ${options.event}`;
  let text: string;
  try {
    text = options.event === "-" ? readStdin() : readFileSync(resolve(cwd, options.event), "utf8");
  } catch (error) {
    throw new UwfError("USAGE", `cannot read the event from ${source}: ${errorMessage(error)}`, {
      hint: 'Pass the event\'s JSON payload as a file (in GitHub Actions: --event "$GITHUB_EVENT_PATH") or on stdin with --event -.',
    });
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (error) {
    throw new UwfError("USAGE", `the event from ${source} is not JSON: ${errorMessage(error)}`, {
      hint: "Give the webhook's JSON body as it was delivered (GitHub Actions writes it to $GITHUB_EVENT_PATH).",
    });
  }
  if (!isPlainObject(payload)) {
    throw new UwfError("USAGE", `the event from ${source} is not a JSON object`, {
      hint: "A GitHub event payload is a JSON object ({ action, repository, sender, … }).",
    });
  }
  const name = (options.eventName ?? env.GITHUB_EVENT_NAME ?? "").trim();
  if (name === "") {
    throw new UwfError("USAGE", "the event's name is not known: give --event-name", {
      hint: "Name the event as GitHub does (--event-name issues, push, issue_comment, …); in GitHub Actions GITHUB_EVENT_NAME gives it.",
    });
  }
  const delivery = options.delivery?.trim();
  return { name, payload, ...(delivery ? { delivery } : {}) };
}
