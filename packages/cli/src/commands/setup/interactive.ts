import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { PROVIDER_APIS, type ProviderApi } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { SetupRequest } from "./plan.js";
import { AGENT_PRESETS, findProviderPreset, PROVIDER_PRESETS } from "./presets.js";

/** How setup talks to a person: questions out (stderr), answers in (stdin). */
export interface Prompter {
  /** One answer; `fallback` when the answer is empty. Rejects when the input has ended. */
  ask(question: string, fallback?: string): Promise<string>;
  /** Like `ask`, without echoing what is typed on a terminal. */
  askSecret(question: string): Promise<string>;
  say(text: string): void;
}

/**
 * Ask for what the flags did not give. Every question has a default or may be skipped with an
 * empty answer, except a model name and a base URL for a provider that is not a preset.
 */
export async function askSetup(prompter: Prompter, given: SetupRequest): Promise<SetupRequest> {
  const request: SetupRequest = { ...given };
  prompter.say("uwf setup: a model provider and an agent. Press Enter to take the [default].");
  if (request.provider === undefined) {
    prompter.say(
      `Provider presets:\n${PROVIDER_PRESETS.map((p) => `  ${p.name.padEnd(17)} ${p.label}`).join("\n")}`,
    );
    const provider = await prompter.ask(
      "Provider (a preset, another name, or - to skip)",
      "openrouter",
    );
    if (provider !== "-") request.provider = provider;
  }
  if (request.provider !== undefined) {
    const preset = findProviderPreset(request.provider);
    if (request.baseUrl === undefined) {
      request.baseUrl = await askRequired(prompter, "Base URL", preset?.baseUrl);
    }
    if (request.api === undefined) {
      request.api = await askChoice(
        prompter,
        `API (${PROVIDER_APIS.join(", ")})`,
        PROVIDER_APIS,
        preset?.api ?? "openai-chat",
      );
    }
    if (request.apiKey === undefined && request.apiKeyEnv === undefined) {
      const fromEnv = preset?.apiKeyEnv;
      const key = await prompter.askSecret(
        `API key (or $VARIABLE to read it from the environment${fromEnv ? `; empty: $${fromEnv}` : "; empty: none"})`,
      );
      if (key.startsWith("$")) request.apiKeyEnv = key.slice(1);
      else if (key !== "") request.apiKey = key;
      else if (fromEnv) request.apiKeyEnv = fromEnv;
    }
    if (request.model === undefined) {
      request.model = await askRequired(prompter, `Model name at ${request.provider}`);
    }
  }
  if (request.agent === undefined) {
    prompter.say(
      `Agents:\n${AGENT_PRESETS.map((a) => `  ${a.alias.padEnd(12)} ${a.label}`).join("\n")}`,
    );
    const agent = await prompter.ask(
      "Agent (a name above, a command, or - to skip)",
      defaultAgentFor(request.api),
    );
    if (agent !== "-") request.agent = agent;
  }
  return request;
}

function defaultAgentFor(api: ProviderApi | undefined): string {
  if (api === "anthropic") return "claude-code";
  if (api === "openai-responses") return "codex";
  if (api === "gemini") return "gemini";
  return "builtin";
}

async function askRequired(
  prompter: Prompter,
  question: string,
  fallback?: string,
): Promise<string> {
  for (;;) {
    const answer = await prompter.ask(question, fallback);
    if (answer !== "") return answer;
    prompter.say(`${question} is needed.`);
  }
}

async function askChoice<T extends string>(
  prompter: Prompter,
  question: string,
  choices: readonly T[],
  fallback: T,
): Promise<T> {
  for (;;) {
    const answer = await prompter.ask(question, fallback);
    if ((choices as readonly string[]).includes(answer)) return answer as T;
    prompter.say(`"${answer}" is not one of ${choices.join(", ")}.`);
  }
}

/**
 * Questions on `output`, answers from `input` line by line. On a terminal, a secret's echo is
 * swallowed; piped input (`uwf setup --interactive < answers`) works the same way, which is
 * how the tests drive it.
 */
export function streamPrompter(
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: NodeJS.WritableStream,
): Prompter & { close(): void } {
  let muted = false;
  const echo = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) output.write(chunk);
      done();
    },
  });
  const lines = createInterface({ input, output: echo, terminal: Boolean(input.isTTY) });
  const queue: string[] = [];
  const waiting: { resolve(line: string): void; reject(error: Error): void }[] = [];
  let ended = false;
  let interrupted = false;
  lines.on("line", (line) => {
    const next = waiting.shift();
    if (next) next.resolve(line);
    else queue.push(line);
  });
  lines.on("SIGINT", () => {
    interrupted = true;
    lines.close();
  });
  lines.on("close", () => {
    ended = true;
    for (const next of waiting.splice(0)) next.reject(endedError(interrupted));
  });
  const nextLine = (): Promise<string> => {
    const line = queue.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (ended) return Promise.reject(endedError(interrupted));
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };
  // On a terminal the question is readline's prompt, so editing the answer redraws it.
  const show = (query: string): void => {
    if (input.isTTY) {
      lines.setPrompt(query);
      lines.prompt();
    } else {
      output.write(query);
    }
  };
  return {
    async ask(question, fallback) {
      show(`${question}${fallback ? ` [${fallback}]` : ""}: `);
      const answer = (await nextLine()).trim();
      if (!input.isTTY) output.write("\n");
      return answer === "" ? (fallback ?? "") : answer;
    },
    async askSecret(question) {
      show(`${question}: `);
      muted = true;
      try {
        return (await nextLine()).trim();
      } finally {
        muted = false;
        output.write("\n");
      }
    },
    say(text) {
      output.write(`${text}\n`);
    },
    close() {
      lines.close();
    },
  };
}

function endedError(interrupted: boolean): UwfError {
  return interrupted
    ? new UwfError("INTERRUPTED", "setup interrupted: nothing was written")
    : new UwfError(
        "USAGE",
        "the input ended before setup had all its answers: nothing was written",
        {
          hint: "Answer every question, or pass flags: uwf setup --provider <p> --model <m> --agent <a>.",
        },
      );
}
