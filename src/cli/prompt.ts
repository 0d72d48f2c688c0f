import type { Command } from 'commander';
import { cwd, respond } from './output.js';
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
      const r = await readPrompt(cwd(), path);
      const left = r.unfilled.map((k) => `{{${k}}}`).join(', ');
      respond({
        data: r,
        text: r.text,
        ...(r.unfilled.length
          ? { message: r.filled_from === null ? `Left unfilled: ${left} (there is no project here; inside one, sow fills them from it)` : `Left unfilled: ${left} (this project has no value for ${r.unfilled.length === 1 ? 'it' : 'them'})` }
          : {}),
      });
    });
}
