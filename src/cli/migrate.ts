import type { Command } from 'commander';
import { cwd, respond } from './output.js';

export default function register(program: Command): void {
  program
    .command('migrate')
    .description('Upgrade .sow/ from the layout an older sow wrote (a backup is kept in .sow/.backup/)')
    .option('-n, --dry-run', 'list every change and write nothing')
    .action(async (opts: { dryRun?: boolean }) => {
      const { migrate } = await import('../app/migrate.js');
      const r = await migrate(cwd(), opts.dryRun === true);
      const lines = r.changes.map((c) => `${c.file}: ${c.change}`);
      respond({
        data: r,
        text: lines.join('\n'),
        message: r.changes.length === 0
          ? `.sow/ is already at layout ${r.to}; nothing to do`
          : r.dryRun
            ? `Would migrate .sow/ from layout ${r.from} to ${r.to} (${r.changes.length} changes); nothing written. Run 'sow migrate' to apply.`
            : `Migrated .sow/ from layout ${r.from} to ${r.to}; the old files are in ${r.backup}/`,
      });
    });
}
