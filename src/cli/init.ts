import type { Command } from 'commander';
import { cwd, respond } from './output.js';

export default function register(program: Command): void {
  program
    .command('init')
    .description('Create .sow/ at the root of this git repository')
    .action(async () => {
      const { initWorkspace } = await import('../app/init.js');
      const result = initWorkspace(cwd());
      respond({
        data: result,
        message: result.alreadyInitialised
          ? result.created.length || result.repaired.length
            ? `Completed .sow/ in ${result.root} (${[...result.created.map((c) => `added ${c}`), ...result.repaired.map((r) => `added ${r}`)].join(', ')})`
            : `.sow/ already initialised in ${result.root}`
          : `Initialised .sow/ in ${result.root}\nNext: sow project new <name> --description "..."`,
      });
    });
}
