/** `sow completion bash|zsh|fish`: the script that completes sow's words in a shell. */
import { choiceOf } from '../model/args.js';
import { command } from '../model/def.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

// The scripts ask `sow __complete` for the candidates on every Tab.
const BASH = `# bash completion for sow, printed by: sow completion bash
# Install: add  source <(sow completion bash)  to ~/.bashrc
_sow_complete() {
  local cur words cword
  if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
    _get_comp_words_by_ref -n =: cur words cword
  else
    cur="\${COMP_WORDS[COMP_CWORD]}"
    words=("\${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  fi
  local -a args=("\${words[@]:0:cword}")
  # --flag=value: readline completes what follows the '=', so ask for the value alone.
  if [[ $cur == --*=* ]]; then
    args+=("\${cur%%=*}")
    cur="\${cur#*=}"
  elif [[ $cur == = ]]; then
    cur=
  fi
  local out line
  out="$(sow __complete --shell bash -- "\${args[@]}" "$cur" 2>/dev/null)"
  COMPREPLY=()
  while IFS= read -r line; do
    [[ -n $line ]] && COMPREPLY+=("$line")
  done <<<"$out"
}
complete -o default -F _sow_complete sow
`;

const ZSH = `#compdef sow
# zsh completion for sow, printed by: sow completion zsh
# Install: add  source <(sow completion zsh)  to ~/.zshrc after compinit,
# or write it to a folder of $fpath as _sow.
_sow() {
  local out
  local -a candidates
  out="$(sow __complete --shell zsh -- "\${(@)words[1,CURRENT-1]}" "\${words[CURRENT]}" 2>/dev/null)"
  candidates=("\${(@f)out}")
  candidates=(\${candidates:#})
  if (( \${#candidates} )); then
    _describe -t sow-candidates sow candidates
  else
    _files
  fi
}
if [[ "\${funcstack[1]}" == _sow ]]; then
  _sow "$@"
elif (( $+functions[compdef] )); then
  compdef _sow sow
else
  print -u2 "sow completion needs compinit first: autoload -Uz compinit && compinit"
fi
`;

const FISH = `# fish completion for sow, printed by: sow completion fish
# Install: sow completion fish > ~/.config/fish/completions/sow.fish
function __sow_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out (sow __complete --shell fish -- $tokens "$current" 2>/dev/null)
    if test (count $out) -gt 0
        printf '%s\\n' $out
    else
        __fish_complete_path "$current"
    end
end
complete -c sow -f -a '(__sow_complete)'
`;

const INSTALL = `Install (each new shell then completes commands, flags, task ids, agents, artifact types and events):
  bash  add to ~/.bashrc:   source <(sow completion bash)
        or, with bash-completion:  sow completion bash > ~/.local/share/bash-completion/completions/sow
  zsh   add to ~/.zshrc, after compinit:   source <(sow completion zsh)
        or write it to a folder of $fpath:  sow completion zsh > "\${fpath[1]}/_sow"
  fish  sow completion fish > ~/.config/fish/completions/sow.fish`;

export const completion = command({
  name: 'completion',
  description: 'Print the shell completion script for bash, zsh or fish',
  args: [{ name: 'shell', description: 'the shell to complete in', choices: SHELLS, parse: choiceOf('shell', SHELLS) }],
  help: INSTALL,
  writes: false,
  async run(_ctx, { args }) {
    const shell = args[0] as (typeof SHELLS)[number];
    const script = { bash: BASH, zsh: ZSH, fish: FISH }[shell];
    return { data: { shell, script }, text: script };
  },
});
