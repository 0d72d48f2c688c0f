/** The scripts `sow completion <shell>` prints: each asks `sow __complete` for the candidates on every Tab. */

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

export function completionScript(shell: 'bash' | 'zsh' | 'fish'): string {
  return { bash: BASH, zsh: ZSH, fish: FISH }[shell];
}
