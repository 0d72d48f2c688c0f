import type { Command } from 'commander';
import { respond } from './output.js';
import { UsageError } from '../domain/errors.js';

export default function register(program: Command): void {
  program
    .command('prompt')
    .description('Print embedded guidance for agents (e.g. guidance/implementer/base) or an orchestrator prompt')
    .argument('[path]', 'the prompt to print (see --list)')
    .option('-l, --list', 'list every prompt')
    .action(async (path: string | undefined, opts: { list?: boolean }) => {
      const { listPrompts, readPrompt } = await import('../app/prompts.js');
      if (opts.list) {
        const all = listPrompts();
        respond({ data: all, text: all.join('\n') });
        return;
      }
      if (path === undefined) throw new UsageError('which prompt?', "run 'sow prompt --list', then 'sow prompt <path>'");
      const text = readPrompt(path);
      respond({ data: { path, text }, text });
    });
}
