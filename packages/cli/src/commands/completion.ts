import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "./command.js";

const SHELLS = ["bash", "zsh", "fish"];

export default defineCommand({
  path: ["completion"],
  summary: "print a shell completion script (bash, zsh or fish) for uwf's commands and options",
  description:
    "The script is generated from the same command table as --help: commands, sub-commands, options and the choices of options that have them. bash: `source <(uwf completion bash)` (or save it as ~/.local/share/bash-completion/completions/uwf). zsh: `source <(uwf completion zsh)` (or save it as _uwf in a folder of $fpath). fish: `uwf completion fish > ~/.config/fish/completions/uwf.fish`.",
  args: [{ name: "shell", description: "bash, zsh or fish" }],
  examples: [
    "source <(uwf completion bash)",
    "uwf completion fish > ~/.config/fish/completions/uwf.fish",
  ],
  async run(ctx, [shell]) {
    if (shell !== "bash" && shell !== "zsh" && shell !== "fish") {
      throw new UwfError("USAGE", `no completion for shell ${JSON.stringify(shell)}`, {
        hint: `pass one of ${SHELLS.join(", ")}`,
      });
    }
    const [commands, { GLOBAL_OPTIONS, GROUP_SUMMARIES, FORMATS }, model, scripts] =
      await Promise.all([
        ctx.commands(),
        import("../help/globals.js"),
        import("../completion/model.js"),
        import("../completion/scripts.js"),
      ]);
    const global = GLOBAL_OPTIONS.map((option) =>
      option.flags.startsWith("--format") ? { ...option, choices: FORMATS } : option,
    );
    const script = scripts.completionScript(
      shell,
      model.completionModel(commands, GROUP_SUMMARIES, global),
    );
    return result({ shell, script }, (d) => d.script);
  },
});
