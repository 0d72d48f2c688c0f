/** `sow init`: .sow/ at the root of the repository. */
import type { CommandDef } from '../cli/def.js';

export const init: CommandDef = {
  name: 'init',
  description: 'Create .sow/ at the root of this git repository',
  writes: true,
  async run(ctx) {
    const { initWorkspace } = await import('../app/init.js');
    const result = initWorkspace(ctx.app.cwd);
    return {
      data: result,
      message: result.alreadyInitialised
        ? result.created.length || result.repaired.length
          ? `Completed .sow/ in ${result.root} (${[...result.created.map((c) => `added ${c}`), ...result.repaired.map((r) => `added ${r}`)].join(', ')})`
          : `.sow/ already initialised in ${result.root}`
        : `Initialised .sow/ in ${result.root}\nNext: sow project new <name> --description "..."`,
    };
  },
};
