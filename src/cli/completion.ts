/** The hidden `sow __complete` that the completion scripts call; complete.ts loads only on a Tab. */
import type { Command } from 'commander';
import type { Registry } from '../model/def.js';

/** Not a command of the registry: it reads the words of any command line, and answers in the shell's own form. */
export function registerComplete(program: Command, registry: Registry): void {
  program
    .command('__complete', { hidden: true })
    .description('The candidates for the word under the cursor, one per line (called by the completion scripts)')
    .option('--shell <shell>', 'print them as this shell reads them')
    .argument('[words...]', 'the words of the line up to the cursor, sow first, the word under the cursor last')
    .allowUnknownOption()
    .action(async (words: string[], opts: { shell?: string }, self: Command) => {
      // The shell waits on every Tab: nothing may reach the terminal, and no lock is worth waiting for.
      process.stderr.write = (() => true) as typeof process.stderr.write;
      process.env['SOW_LOCK_TIMEOUT'] = '0.3';
      let lines: string[] = [];
      try {
        const { complete, formatCandidates } = await import('./complete.js');
        lines = formatCandidates(await complete(words, process.cwd(), self.parent ?? self, registry), opts.shell);
      } catch {
        lines = [];
      }
      // Written here, not as a result: a `--json` among the words must not wrap the list.
      if (lines.length) process.stdout.write(`${lines.join('\n')}\n`);
    });
}
