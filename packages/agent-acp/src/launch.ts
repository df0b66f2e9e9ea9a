import { basename, join } from "node:path";
import { minimalEnv } from "@united-workforce/agent-kit";
import { readConfig, resolveModel } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { PRESET_NAMES, PRESETS, type Preset } from "./presets.js";

/** How to start the agent for this step. */
export interface LaunchPlan {
  /** `gemini` for a preset, else the command's file name. */
  label: string;
  preset: Preset | null;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The session mode to set, or null to keep the agent's. */
  mode: string | null;
  /** The model name the agent was pointed at, when uwf chose it. */
  model: string | null;
}

export interface LaunchInputs {
  preset: string | undefined;
  /** The agent command after `--`. */
  passthrough: string[];
  /** `--bin`: run this binary instead of the preset's. */
  bin: string | undefined;
  model: string | undefined;
  mode: string | undefined;
  /** `--pass-env`: more variable names the agent may see. */
  passEnv: string | undefined;
  home: string;
  env: Record<string, string | undefined>;
  progress: (line: string) => void;
}

export function planLaunch(inputs: LaunchInputs): LaunchPlan {
  const preset = choosePreset(inputs);
  const words = preset ? [inputs.bin ?? preset.command, ...preset.args] : inputs.passthrough;
  const [command, ...args] = words as [string, ...string[]];
  if (inputs.bin && !preset) {
    throw usage("--bin replaces a preset's binary; with `-- <agent command…>` put the path there");
  }
  if (preset && inputs.passthrough.length > 0) args.push(...inputs.passthrough);

  // The toolkit's rule (where things are, locale, network, TERM=dumb), plus the agent's own
  // login variables and what --pass-env names; never the rest of the parent's environment.
  const env = minimalEnv(inputs.env, {
    passThrough: [...(preset?.passEnv ?? []), ...splitNames(inputs.passEnv)],
    extra: preset?.env ?? {},
  });

  let model: string | null = null;
  if (inputs.model) {
    const setup = modelSetup(inputs, preset);
    args.push(...setup.args);
    Object.assign(env, setup.env);
    model = setup.model;
  }
  return {
    label: preset?.name ?? basename(command),
    preset,
    command,
    args,
    env,
    mode: inputs.mode ?? preset?.mode ?? null,
    model,
  };
}

function choosePreset(inputs: LaunchInputs): Preset | null {
  if (inputs.preset === undefined) {
    if (inputs.passthrough.length === 0) {
      throw usage("say which agent to run: --preset <name> or -- <agent command…>", {
        hint: `Presets: ${PRESET_NAMES.join(", ")}. Example: uwf-acp --preset gemini, or uwf-acp -- my-agent --acp`,
      });
    }
    return null;
  }
  const preset = PRESETS[inputs.preset];
  if (!preset) {
    throw usage(`unknown preset "${inputs.preset}"`, {
      hint: `Presets: ${PRESET_NAMES.join(", ")}; any other ACP agent runs as uwf-acp -- <agent command…>.`,
    });
  }
  return preset;
}

/**
 * A configured model alias points the agent at that provider; a name that is not an alias goes
 * to the agent as its own model name (the agent's own login is used), where the preset knows how.
 */
function modelSetup(
  inputs: LaunchInputs,
  preset: Preset | null,
): { args: string[]; env: Record<string, string>; model: string } {
  const alias = inputs.model!;
  const who = preset ? `preset "${preset.name}"` : "an agent given as `-- <command>`";
  const config = readConfig(inputs.home);
  if (config.models?.[alias]) {
    if (!preset?.model) {
      throw usage(`--model ${alias}: uwf-acp cannot point ${who} at a configured provider`, {
        hint: preset
          ? `Configure the model in ${preset.name} itself and drop --model.`
          : "Configure the model in the agent itself (its flags after `--`, or --pass-env) and drop --model.",
      });
    }
    const endpoint = resolveModel(config, alias, inputs.env);
    const setup = preset.model(endpoint, join(inputs.home, "acp", preset.name));
    return { ...setup, model: endpoint.model };
  }
  if (!preset?.modelName) {
    const known = Object.keys(config.models ?? {});
    throw usage(`unknown model alias "${alias}"`, {
      hint: known.length
        ? `Known models: ${known.join(", ")}.`
        : "Add it under `models:` in config.yaml (with its provider under `providers:`).",
    });
  }
  inputs.progress(
    `model "${alias}" is not a configured alias: ${preset.name} gets it as its own model name`,
  );
  return { ...preset.modelName(alias), model: alias };
}

function splitNames(list: string | undefined): string[] {
  if (!list) return [];
  const names = list
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw usage(`--pass-env: "${name}" is not an environment variable name`);
    }
  }
  return names;
}

function usage(message: string, options: { hint?: string } = {}): UwfError {
  return new UwfError("USAGE", message, { hint: options.hint ?? "Run uwf-acp --help." });
}
