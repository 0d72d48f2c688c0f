/** `sow config …`: your agent configuration (which agent CLI runs which role). */
import { command, type CommandDef } from '../model/def.js';
import { writeText } from '../cli/output.js';

export const commands: readonly CommandDef[] = [
  command({
    name: 'config init',
    description: 'Create the configuration file from a commented template (never overwrites without asking)',
    options: [{ flags: '-y, --yes', description: 'replace an existing file without asking' }],
    async run(ctx, { opts }) {
      const { initConfig } = await import('../app/config.js');
      const { askYesNo, interactive } = await import('../cli/confirm.js');
      const r = await initConfig(ctx.app, opts.yes === true, interactive(), askYesNo);
      return {
        data: r,
        text: r.path,
        message: `${r.overwritten ? 'Replaced' : 'Created'} ${r.path}\nNext: sow config edit, then sow config validate`,
      };
    },
  }),
  command({
    name: 'config path',
    description: 'Print where the configuration file is (or would be)',
    options: [{ flags: '--exists', description: 'print true or false: whether the file exists' }],
    writes: false,
    async run(ctx, { opts }) {
      const { configPath } = await import('../app/config.js');
      const r = configPath(ctx.app);
      return { data: r, text: opts.exists ? String(r.exists) : r.path };
    },
  }),
  command({
    name: 'config validate',
    description:
      'Check YAML, unknown keys, schema, executor types, bindings and settings (and .sow/config.yaml inside a sow ' +
      'workspace); warn about CLIs missing from PATH',
    writes: false,
    async run(ctx) {
      const { validateConfig, ConfigInvalidError } = await import('../app/config.js');
      const { renderValidation } = await import('../cli/render.js');
      const r = await validateConfig(ctx.app);
      if (!r.valid) {
        // The whole report first (stdout, as when valid), then the refusal: exit 4.
        if (!ctx.json) writeText(process.stdout, renderValidation(r));
        throw new ConfigInvalidError(r, 'sow config validate');
      }
      return { data: r, text: renderValidation(r) };
    },
  }),
  command({
    name: 'config show',
    description: 'Print the effective configuration with the source of every value',
    writes: false,
    async run(ctx) {
      const { showConfig } = await import('../app/config.js');
      const { path, exists, effective, text } = await showConfig(ctx.app);
      const { executors, bindings, overrides } = effective;
      return { data: { path, exists, executors, bindings, overrides }, text };
    },
  }),
  command({
    name: 'config edit',
    description: 'Open the configuration in $VISUAL or $EDITOR (creating it from the template), then validate it',
    async run(ctx) {
      const { editConfig, ConfigInvalidError } = await import('../app/config.js');
      const { renderValidation } = await import('../cli/render.js');
      const r = await editConfig(ctx.app);
      if (!r.report.valid) {
        if (!ctx.json) writeText(process.stderr, renderValidation(r.report));
        throw new ConfigInvalidError(r.report, 'sow config edit');
      }
      return { data: r, message: renderValidation(r.report) };
    },
  }),
  command({
    name: 'config reset',
    description: 'Remove the configuration file (a .backup copy is kept) and go back to the defaults',
    options: [{ flags: '-y, --yes', description: 'do not ask' }],
    async run(ctx, { opts }) {
      const { resetConfig } = await import('../app/config.js');
      const { askYesNo, interactive } = await import('../cli/confirm.js');
      const r = await resetConfig(ctx.app, opts.yes === true, interactive(), askYesNo);
      return {
        data: r,
        message: r.removed
          ? `Removed ${r.path} (backup: ${r.backup})`
          : `No configuration file at ${r.path}; the defaults are in use`,
      };
    },
  }),
];
