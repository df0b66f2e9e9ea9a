import type { Store, UwfConfig } from "@united-workforce/store";
import {
  createEventStream,
  eventLogWriter,
  makePrivateDir,
  resolveHome,
} from "@united-workforce/util";
import type { CliIo } from "./cli-io.js";
import type { CommandContext, CommandSpec, OutputFormat } from "./commands/command.js";
import { configWarning } from "./output/config-warning.js";
import { takeoverNote } from "./output/takeover-note.js";
import { storeBackends } from "./store-backends.js";
import { attachLiveExport } from "./tracing/live-export.js";
import { otlpSettings } from "./tracing/otel-env.js";

/**
 * What a command's handler is given, made from the CLI's io: config.yaml is read and the store
 * opened on first use only, once each. `close` closes the store if it was opened.
 */
export function openCommandContext(
  spec: CommandSpec,
  io: CliIo,
  format: OutputFormat,
): { context: CommandContext; close(): Promise<void> } {
  const home = resolveHome(io.env);
  try {
    // Transcripts, prompts and logs are private: the root is made 0700 before any writer
    // creates it with the umask's mode. An existing root is left as its owner set it.
    makePrivateDir(home);
  } catch {
    // A command that needs to write there reports the problem, naming the file.
  }
  let config: UwfConfig | undefined;
  let store: Promise<Store> | undefined;
  let notifications: { settled(): Promise<void> } | undefined;
  const readConfigOnce = async (): Promise<UwfConfig> => {
    if (config === undefined) {
      const { loadConfig } = await import("@united-workforce/store");
      const loaded = loadConfig(home);
      for (const warning of loaded.warnings) io.stderr(configWarning(warning, loaded.file));
      config = loaded.config;
      // Only a config with `notify:` loads the notifier: without it, nothing listens.
      if (loaded.config.notify?.length) {
        const { attachNotifier } = await import("./notify/notifier.js");
        const publicUrl = loaded.config.dashboard?.publicUrl;
        // With a public URL, a wait's notification links to its answer form.
        const links = publicUrl ? await import("./dashboard/answer-link.js") : null;
        notifications = attachNotifier({
          entries: loaded.config.notify,
          events: context.events,
          readPointer: async (thread) => (await context.store()).threads.get(thread),
          cwd: io.cwd,
          env: io.env,
          ...(publicUrl && links
            ? {
                answerLink: links.answerLinkMaker(
                  home,
                  publicUrl,
                  loaded.config.dashboard?.linkHours ?? links.DEFAULT_LINK_HOURS,
                ),
              }
            : {}),
        });
      }
    }
    return config;
  };
  const context: CommandContext = {
    home,
    get cwd() {
      return io.cwd;
    },
    env: io.env,
    format,
    events: createEventStream(eventLogWriter(home, { command: spec.path.join(" ") }), (event) => {
      if (event.event === "thread.takeover") io.stderr(takeoverNote(event));
    }),
    progress: (text) => io.stderr(text.endsWith("\n") ? text : `${text}\n`),
    columns: (fd) => io.columns?.(fd),
    output: (text) => io.stdout(text),
    signal: io.signal,
    self: io.self,
    commands: allCommands,
    config: readConfigOnce,
    store: () => {
      store ??= (async () => {
        const { openStore, readStoreConfig, storeOptionsFrom } = await import(
          "@united-workforce/store"
        );
        const options = storeOptionsFrom(home, readStoreConfig(home), io.env);
        // A signal ends a wait on a server that does not answer at once, not at its timeout.
        return openStore({ ...options, backends: storeBackends, signal: io.signal });
      })();
      return store;
    },
  };
  // Live OpenTelemetry export, when the standard variables name a collector: a listener on
  // the event stream; nothing of OpenTelemetry is loaded until there is a span to send.
  const otlp = otlpSettings(io.env);
  const { url } = otlp;
  const traces =
    url === null
      ? null
      : attachLiveExport({
          settings: { ...otlp, url },
          events: context.events,
          store: context.store,
          stderr: io.stderr,
          signal: io.signal,
        });
  const close = async (): Promise<void> => {
    // Notifications and spans still in flight are sent before the store closes and the
    // command exits; each is bounded by its timeout, and spans by SIGINT too.
    await Promise.all([notifications?.settled(), traces?.settled()]);
    if (store !== undefined) await (await store.catch(() => null))?.close();
  };
  return { context, close };
}

/** Every command's spec: for help, and for the commands that describe the CLI itself. */
export async function allCommands(): Promise<readonly CommandSpec[]> {
  return (await import("./commands/index.js")).COMMANDS;
}
