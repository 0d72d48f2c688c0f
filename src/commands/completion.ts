/** `sow completion bash|zsh|fish`: the script that completes sow's words in a shell. */
import { choiceOf } from '../model/args.js';
import { command } from '../model/def.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

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
    const { completionScript } = await import('../cli/completion-script.js');
    const script = completionScript(shell);
    return { data: { shell, script }, text: script };
  },
});
