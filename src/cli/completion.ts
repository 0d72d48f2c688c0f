/** `sow completion bash|zsh|fish` and the hidden `sow __complete`, which the scripts call. */
import { Argument, type Command } from 'commander';
import { cwd, respond } from './output.js';
import { choiceOf } from './args.js';

type Groups = Readonly<Record<string, (program: Command) => void | Promise<void>>>;

const SHELLS = ['bash', 'zsh', 'fish'] as const;

const INSTALL = `
Install (each new shell then completes commands, flags, task ids, agents, artifact types and events):
  bash  add to ~/.bashrc:   source <(sow completion bash)
        or, with bash-completion:  sow completion bash > ~/.local/share/bash-completion/completions/sow
  zsh   add to ~/.zshrc, after compinit:   source <(sow completion zsh)
        or write it to a folder of $fpath:  sow completion zsh > "\${fpath[1]}/_sow"
  fish  sow completion fish > ~/.config/fish/completions/sow.fish`;

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS).argParser(choiceOf('shell', SHELLS)))
    .addHelpText('after', INSTALL)
    .action(async (shell: (typeof SHELLS)[number]) => {
      const { completionScript } = await import('./complete.js');
      const script = completionScript(shell);
      respond({ data: { shell, script }, text: script });
    });
}

/** `groups` is main's table of command groups, so completion knows every command there is. */
export function registerComplete(program: Command, groups: Groups): void {
  program
    .command('__complete', { hidden: true })
    .description('The candidates for the word under the cursor, one per line (called by the completion scripts)')
    .option('--shell <shell>', 'print them as this shell reads them')
    .argument('[words...]', 'the words of the line up to the cursor, sow first, the word under the cursor last')
    .allowUnknownOption()
    .action(async (words: string[], opts: { shell?: string }, self: Command) => {
      // The shell waits for this on every Tab: no warning may reach the terminal, no error may
      // show, and a lock another command holds is not worth waiting for.
      process.stderr.write = (() => true) as typeof process.stderr.write;
      process.env['SOW_LOCK_TIMEOUT'] = '0.3';
      let lines: string[] = [];
      try {
        const { complete, formatCandidates } = await import('./complete.js');
        lines = formatCandidates(await complete(groups, words, cwd(), self.parent ?? self), opts.shell);
      } catch {
        lines = [];
      }
      // Written here, not through respond(): a `--json` among the words must not wrap the list.
      if (lines.length) process.stdout.write(`${lines.join('\n')}\n`);
    });
}
