// Shell completion, computed from the command tree by @bomb.sh/tab: `completion <shell>` prints the script, which
// calls the hidden `complete -- <words>` on each Tab. The bash script is our own: tab's needs the bash-completion
// package (`_get_comp_words_by_ref`) and fails without it, and declares readonly variables, so a second `source` of
// it fails; ours uses that package when it is loaded and bash's own COMP_WORDS when it is not.
import { script } from "@bomb.sh/tab";
import tab from "@bomb.sh/tab/commander";
import type { Command } from "commander";
import { examples } from "./options.js";
import type { Io } from "./output.js";

export function addCompletion(program: Command, io: Io): void {
  tab(program, { completionCommandName: "completion" });
  const completion = program.commands.find((command) => command.name() === "completion")!;
  const name = program.name();
  completion
    .action((shell: string) => (shell === "bash" ? void io.stdout.write(bashScript(name)) : script(shell, name, name)))
    .addHelpText(
      "after",
      `\nThe scripts call '${name} complete -- WORDS' on each Tab, so ${name} must be on the PATH. bash needs no bash-completion package.`,
    );
  examples(completion, [
    `source <(${name} completion bash)          # in ~/.bashrc`,
    `source <(${name} completion zsh)           # in ~/.zshrc`,
    `${name} completion fish > ~/.config/fish/completions/${name}.fish`,
  ]);
}

/** bash completion for `name`, with or without the bash-completion package; safe to source again. */
export function bashScript(name: string): string {
  const fn = `__${name.replace(/\W/g, "_")}_complete`;
  return `# bash completion for ${name}: source <(${name} completion bash)
${fn}() {
    local cur words cword
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref -n "=:" cur words cword
    else
        # Without the bash-completion package: bash's own words.
        words=("\${COMP_WORDS[@]}")
        cword=$COMP_CWORD
        cur=\${COMP_WORDS[COMP_CWORD]}
    fi
    local out
    out=$(${name} complete -- "\${words[@]:1:cword}" 2>/dev/null) || return
    # The last line is :DIRECTIVE, the others VALUE<tab>DESCRIPTION.
    local directive=\${out##*:}
    out=\${out%:*}
    (( directive & 1 )) && return
    (( directive & 2 )) && compopt -o nospace 2>/dev/null
    (( directive & 4 )) && compopt +o default 2>/dev/null
    local values=() line
    while IFS= read -r line; do
        [[ -n $line ]] && values+=("\${line%%$'\\t'*}")
    done <<< "$out"
    local IFS=$'\\n'
    COMPREPLY=($(compgen -W "\${values[*]}" -- "$cur"))
}
complete -F ${fn} ${name}
`;
}
