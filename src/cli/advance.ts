import type { Command } from 'commander';
import { cwd, respond } from './output.js';

export default function register(program: Command): void {
  program
    .command('advance')
    .description('Move the project to its next state, if the guard holds (the only command that does)')
    .argument('[event]', 'fire this event instead of the automatic one (see --list)')
    .option('-l, --list', 'list every transition out of the current state, with its guard')
    .option('-n, --dry-run', 'check the guard and show the transition without writing')
    .action(async (event: string | undefined, opts: { list?: boolean; dryRun?: boolean }) => {
      const app = await import('../app/advance.js');
      if (opts.list) {
        const r = await app.listAdvanceOptions(cwd());
        const { renderTransitions } = await import('./render.js');
        const { paintFor } = await import('./colour.js');
        respond({ data: r, text: renderTransitions(r.state, r.transitions, paintFor()) });
        return;
      }
      const r = await app.advanceProject(cwd(), event, opts.dryRun === true);
      const arrow = `${r.from} → ${r.to} (${r.event})`;
      respond({
        data: r,
        text: r.to,
        message: r.dryRun
          ? `Would advance: ${arrow}; nothing written`
          : r.projectRemoved
            ? `Advanced: ${arrow}. The project is complete and .sow/project/ was removed; commit, then start the next with 'sow project new'`
            : [`Advanced: ${arrow}`, ...(r.notes ?? []), 'Next: sow project continue'].join('\n'),
      });
    });
}
