import type { Command } from 'commander';
import { cwd, respond } from '../output.js';
import { renderValue } from '../../domain/fields.js';
import { toJson } from '../../domain/json.js';

export default function register(program: Command): void {
  const phase = program.command('phase').description('Read and set fields of a phase (default: the phase in progress)');

  phase
    .command('set')
    .description('Set a phase field (enabled, iteration) or metadata (tasks_approved, project_deleted, metadata.a.b …)')
    .argument('<field>')
    .argument('<value>')
    .option('-p, --phase <name>', 'the phase (default: the one in progress)')
    .action(async (field: string, value: string, opts: { phase?: string }) => {
      const { setPhaseField } = await import('../../app/phase.js');
      const r = await setPhaseField(cwd(), field, value, opts.phase);
      respond({ data: r, message: `Set ${r.phase} ${r.field} = ${toJson(r.value)}` });
    });

  phase
    .command('get')
    .description('Print a phase field or metadata value (bare, for scripts)')
    .argument('<field>')
    .option('-p, --phase <name>', 'the phase (default: the one in progress)')
    .action(async (field: string, opts: { phase?: string }) => {
      const { getPhaseField } = await import('../../app/phase.js');
      const r = await getPhaseField(cwd(), field, opts.phase);
      respond({ data: r, text: renderValue(r.value) });
    });
}
