import type { CompletionModel, CompletionOption } from "./model.js";

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

export function completionScript(shell: Shell, model: CompletionModel): string {
  switch (shell) {
    case "bash":
      return bashScript(model);
    case "zsh":
      return zshScript(model);
    case "fish":
      return fishScript(model);
  }
}

/** A word as a single-quoted shell string (bash, zsh and fish read it alike). */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}

/** fish reads `\'` inside single quotes, not the POSIX `'"'"'`. */
function fishQuote(word: string): string {
  return `'${word.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

function spellings(option: CompletionOption): string[] {
  return [option.long, option.short].filter((flag): flag is string => flag !== null);
}

/** Options that take a value: their next word is the value, not a command word. */
function valueFlags(model: CompletionModel): string[] {
  const flags = new Set<string>();
  for (const option of [...model.global, ...model.commands.flatMap((c) => c.options)]) {
    if (option.takesValue) for (const flag of spellings(option)) flags.add(flag);
  }
  return [...flags].sort();
}

function bashScript(model: CompletionModel): string {
  const words = (list: readonly string[]) => list.join(" ");
  const optionCases = model.commands.map((command) => {
    const flags = [...command.options, ...model.global].flatMap(spellings);
    return `    ${quote(command.key)}) opts=${quote(words(flags))} ;;`;
  });
  const choiceCases = bashChoiceCases(model);
  const groupCases = model.groups.map(
    (group) =>
      `    ${quote(group.name)}) subs=${quote(words(group.commands.map((c) => c.name)))} ;;`,
  );
  const globalFlags = words(model.global.flatMap(spellings));
  return `# bash completion for uwf, generated from its command table by \`uwf completion bash\`.
# Load it in this shell:  source <(uwf completion bash)
# Or for every shell:     uwf completion bash > ~/.local/share/bash-completion/completions/uwf
_uwf_completion() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" i word key="" opts="" choices="" subs=""
  local -a found=()
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for (( i = 1; i < COMP_CWORD; i++ )); do
    word="\${COMP_WORDS[i]}"
    case "$word" in
      ${valueFlags(model).map(quote).join("|")}) (( i++ )) ;;
      -*) ;;
      *) found+=("$word") ;;
    esac
  done
  case "\${found[0]:-}" in
${groupCases.join("\n")}
  esac
  if [[ -n "$subs" ]]; then key="\${found[0]} \${found[1]:-}"; else key="\${found[0]:-}"; fi
  key="\${key% }"
  case "$key:$prev" in
${choiceCases.join("\n")}
  esac
  if [[ -n "$choices" ]]; then
    COMPREPLY=( $(compgen -W "$choices" -- "$cur") )
    return 0
  fi
  case "$prev" in
    ${valueFlags(model).map(quote).join("|")})
      COMPREPLY=( $(compgen -f -- "$cur") )
      return 0 ;;
  esac
  if [[ "$cur" == -* ]]; then
    opts=${quote(globalFlags)}
    case "$key" in
${optionCases.join("\n")}
    esac
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
  elif (( \${#found[@]} == 0 )); then
    COMPREPLY=( $(compgen -W ${quote(words(model.top.map((t) => t.name)))} -- "$cur") )
  elif [[ "\${found[0]}" == help ]]; then
    case "\${#found[@]}" in
      1) COMPREPLY=( $(compgen -W ${quote(words(model.top.map((t) => t.name).filter((n) => n !== "help")))} -- "$cur") ) ;;
      2) case "\${found[1]}" in
${model.groups.map((g) => `           ${quote(g.name)}) COMPREPLY=( $(compgen -W ${quote(words(g.commands.map((c) => c.name)))} -- "$cur") ) ;;`).join("\n")}
         esac ;;
    esac
  elif [[ -n "$subs" && \${#found[@]} -eq 1 ]]; then
    COMPREPLY=( $(compgen -W "$subs" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
  return 0
}
complete -o filenames -F _uwf_completion uwf
`;
}

/** bash `case "$key:$prev"` arms: the choices of an option, after the command and the flag. */
function bashChoiceCases(model: CompletionModel): string[] {
  const words = (list: readonly string[]) => list.join(" ");
  const cases: string[] = [];
  for (const command of model.commands) {
    for (const option of [...command.options, ...model.global]) {
      if (option.choices.length === 0) continue;
      const pattern = spellings(option)
        .map((flag) => quote(`${command.key}:${flag}`))
        .join("|");
      cases.push(`    ${pattern}) choices=${quote(words(option.choices))} ;;`);
    }
  }
  for (const option of model.global) {
    if (option.choices.length === 0) continue;
    const pattern = spellings(option)
      .map((flag) => quote(`:${flag}`))
      .join("|");
    cases.push(`    ${pattern}) choices=${quote(words(option.choices))} ;;`);
  }
  return cases;
}

function zshScript(model: CompletionModel): string {
  const described = (items: readonly { name: string; summary: string }[]) =>
    items.map((item) => quote(`${item.name}:${item.summary.replaceAll(":", "\\:")}`)).join(" ");
  const optionCases = model.commands.map((command) => {
    const lines = [...command.options, ...model.global].flatMap((option) =>
      spellings(option).map((flag) =>
        quote(`${flag}:${option.description.replaceAll(":", "\\:")}`),
      ),
    );
    return `    ${quote(command.key)}) opts=(${lines.join(" ")}) ;;`;
  });
  const choiceCases = zshChoiceCases(model);
  const groupCases = model.groups.map(
    (group) => `    ${quote(group.name)}) subs=(${described(group.commands)}) ;;`,
  );
  return `#compdef uwf
# zsh completion for uwf, generated from its command table by \`uwf completion zsh\`.
# Load it in this shell:  source <(uwf completion zsh)
# Or for every shell:     uwf completion zsh > "\${fpath[1]}/_uwf"   (then restart zsh)
_uwf() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}" word key
  local -a found opts choices subs
  local i
  for (( i = 2; i < CURRENT; i++ )); do
    word="\${words[i]}"
    case "$word" in
      ${valueFlags(model).map(quote).join("|")}) (( i++ )) ;;
      -*) ;;
      *) found+=("$word") ;;
    esac
  done
  case "\${found[1]}" in
${groupCases.join("\n")}
  esac
  if (( \${#subs} )); then key="\${found[1]} \${found[2]}"; else key="\${found[1]}"; fi
  key="\${key% }"
  case "$key:$prev" in
${choiceCases.join("\n")}
  esac
  if (( \${#choices} )); then
    compadd -- "\${choices[@]}"
    return
  fi
  case "$prev" in
    ${valueFlags(model).map(quote).join("|")}) _files; return ;;
  esac
  if [[ "$cur" == -* ]]; then
    opts=(${model.global.flatMap((option) => spellings(option).map((flag) => quote(`${flag}:${option.description.replaceAll(":", "\\:")}`))).join(" ")})
    case "$key" in
${optionCases.join("\n")}
    esac
    _describe -t options option opts
  elif (( \${#found} == 0 )); then
    local -a top=(${described(model.top)})
    _describe -t commands command top
  elif [[ -n "$subs" && \${#found} -eq 1 ]]; then
    _describe -t commands command subs
  else
    _files
  fi
}
compdef _uwf uwf
`;
}

/** zsh `case "$key:$prev"` arms: the choices of an option, after the command and the flag. */
function zshChoiceCases(model: CompletionModel): string[] {
  const cases: string[] = [];
  for (const command of model.commands) {
    for (const option of command.options) {
      if (option.choices.length === 0) continue;
      const pattern = spellings(option)
        .map((flag) => quote(`${command.key}:${flag}`))
        .join("|");
      cases.push(`    ${pattern}) choices=(${option.choices.map(quote).join(" ")}) ;;`);
    }
  }
  for (const option of model.global) {
    if (option.choices.length === 0) continue;
    // Unquoted: a quoted `*` in a case pattern is a literal star.
    const pattern = spellings(option)
      .map((flag) => `*:${flag}`)
      .join("|");
    cases.push(`    ${pattern}) choices=(${option.choices.map(quote).join(" ")}) ;;`);
  }
  return cases;
}

function fishScript(model: CompletionModel): string {
  const lines = [
    "# fish completion for uwf, generated from its command table by `uwf completion fish`.",
    "# Load it in this shell:  uwf completion fish | source",
    "# Or for every shell:     uwf completion fish > ~/.config/fish/completions/uwf.fish",
    "complete -c uwf -f",
  ];
  const topNames = model.top.map((t) => t.name).join(" ");
  for (const item of model.top) {
    lines.push(
      `complete -c uwf -n ${fishQuote(`not __fish_seen_subcommand_from ${topNames}`)} -a ${fishQuote(item.name)} -d ${fishQuote(item.summary)}`,
    );
  }
  const optionLine = (condition: string, option: CompletionOption): string => {
    const parts = ["complete -c uwf"];
    if (condition !== "") parts.push(`-n ${fishQuote(condition)}`);
    if (option.long) parts.push(`-l ${option.long.slice(2)}`);
    if (option.short) parts.push(`-s ${option.short.slice(1)}`);
    if (option.choices.length > 0) parts.push(`-x -a ${fishQuote(option.choices.join(" "))}`);
    else if (option.takesValue) parts.push("-r -F");
    parts.push(`-d ${fishQuote(option.description)}`);
    return parts.join(" ");
  };
  for (const option of model.global) lines.push(optionLine("", option));
  for (const group of model.groups) {
    const subNames = group.commands.map((c) => c.name).join(" ");
    for (const command of group.commands) {
      lines.push(
        `complete -c uwf -n ${fishQuote(`__fish_seen_subcommand_from ${group.name}; and not __fish_seen_subcommand_from ${subNames}`)} -a ${fishQuote(command.name)} -d ${fishQuote(command.summary)}`,
      );
      for (const option of command.options) {
        lines.push(
          optionLine(
            `__fish_seen_subcommand_from ${group.name}; and __fish_seen_subcommand_from ${command.name}`,
            option,
          ),
        );
      }
    }
  }
  for (const command of model.commands) {
    if (command.key.includes(" ")) continue;
    for (const option of command.options) {
      lines.push(optionLine(`__fish_seen_subcommand_from ${command.name}`, option));
    }
  }
  return `${lines.join("\n")}\n`;
}
