import type { Command } from 'commander';
import { cwd, respond, writeText } from './output.js';
import { askYesNo, interactive } from './confirm.js';

export default function register(program: Command): void {
  const config = program.command('config').description('Your agent configuration (which agent CLI runs which role)');

  config
    .command('init')
    .description('Create the configuration file from a commented template (never overwrites without asking)')
    .option('-y, --yes', 'replace an existing file without asking')
    .action(async (opts: { yes?: boolean }) => {
      const { initConfig } = await import('../app/config.js');
      const r = await initConfig(opts.yes === true, interactive(), askYesNo);
      respond({ data: r, text: r.path, message: `${r.overwritten ? 'Replaced' : 'Created'} ${r.path}\nNext: sow config edit, then sow config validate` });
    });

  config
    .command('path')
    .description('Print where the configuration file is (or would be)')
    .option('--exists', 'print true or false: whether the file exists')
    .action(async (opts: { exists?: boolean }) => {
      const { configPath } = await import('../app/config.js');
      const r = configPath();
      respond({ data: r, text: opts.exists ? String(r.exists) : r.path });
    });

  config
    .command('validate')
    .description('Check YAML, unknown keys, schema, executor types, bindings and settings (and .sow/config.yaml inside a sow workspace); warn about CLIs missing from PATH')
    .action(async () => {
      const { validateConfig, ConfigInvalidError } = await import('../app/config.js');
      const { renderValidation } = await import('./render.js');
      const r = await validateConfig(cwd());
      if (!r.valid) {
        // The whole report first (stdout, as when valid), then the refusal: exit 4.
        if (!process.argv.includes('--json')) writeText(process.stdout, renderValidation(r));
        throw new ConfigInvalidError(r, 'sow config validate');
      }
      respond({ data: r, text: renderValidation(r) });
    });

  config
    .command('show')
    .description('Print the effective configuration with the source of every value')
    .action(async () => {
      const { showConfig } = await import('../app/config.js');
      const r = await showConfig();
      respond({ data: { path: r.path, exists: r.exists, executors: r.effective.executors, bindings: r.effective.bindings, overrides: r.effective.overrides }, text: r.text });
    });

  config
    .command('edit')
    .description('Open the configuration in $VISUAL or $EDITOR (creating it from the template), then validate it')
    .action(async () => {
      const { editConfig, ConfigInvalidError } = await import('../app/config.js');
      const { renderValidation } = await import('./render.js');
      const r = await editConfig();
      if (!r.report.valid) {
        if (!process.argv.includes('--json')) writeText(process.stderr, renderValidation(r.report));
        throw new ConfigInvalidError(r.report, 'sow config edit');
      }
      respond({ data: r, message: renderValidation(r.report) });
    });

  config
    .command('reset')
    .description('Remove the configuration file (a .backup copy is kept) and go back to the defaults')
    .option('-y, --yes', 'do not ask')
    .action(async (opts: { yes?: boolean }) => {
      const { resetConfig } = await import('../app/config.js');
      const r = await resetConfig(opts.yes === true, interactive(), askYesNo);
      respond({ data: r, message: r.removed ? `Removed ${r.path} (backup: ${r.backup})` : `No configuration file at ${r.path}; the defaults are in use` });
    });
}
