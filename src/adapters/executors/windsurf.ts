/** Windsurf (`windsurf`): sow passes it only the user's custom_args, and it cannot resume a session. */
import { custom, NO_ACP, OWN_ARGV, viaStdin } from './shared.js';
import type { ExecutorModule } from './types.js';

const NO_PERMISSIONS = 'sow passes windsurf no permission flags; its custom_args decide';

export const windsurf: ExecutorModule = {
  type: 'windsurf',
  title: 'Windsurf',
  install: 'install Windsurf and put its windsurf command on PATH',
  sessionIds: 'none',
  binary: () => 'windsurf',
  supportsResumption: () => false,
  spawn: (ctx) => viaStdin('windsurf', ctx, { args: [...custom(ctx.config)] }),
  resume() {
    throw new Error('windsurf cannot resume sessions');
  },
  ignores: {
    permissions: NO_PERMISSIONS,
    yolo_mode: NO_PERMISSIONS,
    model: 'sow passes windsurf no model flag',
    ...OWN_ARGV,
    transport: NO_ACP,
  },
  // Its permissions are its custom_args' (sow grants nothing); its folder is kept from other workers.
  widening: {
    files: ['.windsurf/**'],
    settings: ['its own configuration'],
    how: 'sow passes windsurf no permissions at all: its custom_args and its own configuration decide',
  },
  doctor: 'flags',
  // No `sow install windsurf`: sow has no integration for Windsurf's own rules.
  integration: null,
};
