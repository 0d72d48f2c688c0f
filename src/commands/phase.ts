/** `sow phase …`: fields of a phase (default: the one in progress). */
import { renderValue } from '../cli/value.js';
import { toJson } from '../domain/json.js';
import { PHASE_OPTION as PHASE } from '../model/args.js';
import { command, type CommandDef } from '../model/def.js';

export const commands: readonly CommandDef[] = [
  command({
    name: 'phase set',
    description: 'Set a phase field (enabled, iteration) or metadata (tasks_approved, project_deleted, metadata.a.b …)',
    args: [{ name: 'field' }, { name: 'value' }],
    options: [PHASE],
    async run(ctx, { args, opts }) {
      const { setPhaseField } = await import('../app/phase.js');
      const r = await setPhaseField(ctx.app, args[0] as string, args[1] as string, opts.phase);
      return { data: r, message: `Set ${r.phase} ${r.field} = ${toJson(r.value)}` };
    },
  }),
  command({
    name: 'phase get',
    description: 'Print a phase field or metadata value (bare, for scripts)',
    args: [{ name: 'field' }],
    options: [PHASE],
    writes: false,
    async run(ctx, { args, opts }) {
      const { getPhaseField } = await import('../app/phase.js');
      const r = await getPhaseField(ctx.app, args[0] as string, opts.phase);
      return { data: r, text: renderValue(r.value) };
    },
  }),
];
