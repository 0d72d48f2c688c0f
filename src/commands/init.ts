/** `sow init`: .sow/ at the root of the repository. */
import { command } from '../model/def.js';

export const init = command({
  name: 'init',
  examples: ['sow init', 'sow init --json'],
  description: 'Create .sow/ at the root of this git repository',
  async run(ctx) {
    const { initWorkspace } = await import('../app/init.js');
    const result = initWorkspace(ctx.app.cwd);
    const { warnings, ...data } = result;
    const done = [
      ...result.created.map((c) => `added ${c}`),
      ...result.repaired.map((r) => `added ${r}`),
      ...result.configured.map((k) => `set git config ${k}`),
    ];
    return {
      data,
      ...(warnings ? { warnings } : {}),
      message: result.alreadyInitialised
        ? done.length
          ? `Completed .sow/ in ${result.root} (${done.join(', ')})`
          : `.sow/ already initialised in ${result.root}`
        : `Initialised .sow/ in ${result.root}\nNext: sow project new <name> --description "..."`,
    };
  },
});
