/** `sow migrate`: .sow/ from an older layout to this one. */
import { command } from '../model/def.js';

export const migrate = command({
  name: 'migrate',
  description: 'Upgrade .sow/ from the layout an older sow wrote (a backup is kept in .git/sow/backup/)',
  options: [{ flags: '-n, --dry-run', description: 'list every change and write nothing' }],
  async run(ctx, { opts }) {
    const { migrate } = await import('../app/migrate.js');
    const r = await migrate(ctx.app, opts.dryRun === true);
    const lines = r.changes.map((c) => `${c.file}: ${c.change}`);
    return {
      data: r,
      text: lines.join('\n'),
      message:
        r.changes.length === 0
          ? `.sow/ is already at layout ${r.to}; nothing to do`
          : r.dryRun
            ? `Would migrate .sow/ from layout ${r.from} to ${r.to} (${r.changes.length} changes); nothing written. ` +
              `Run 'sow migrate' to apply.`
            : `Migrated .sow/ from layout ${r.from} to ${r.to}; the old files are in ${r.backup}/`,
    };
  },
});
