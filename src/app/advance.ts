/** `sow advance`: the only command that moves the state machine. */
import { advance, listTransitions, type TransitionOption } from '../domain/lifecycle.js';
import { withCheckStatuses } from './checks.js';
import { actor, AGENT_OUTPUTS, PROJECT_DIR, Reader, update } from './workspace.js';

export interface AdvanceOutcome {
  from: string;
  to: string;
  event: string;
  dryRun: boolean;
  projectRemoved: boolean;
}

export async function advanceProject(cwd: string, event: string | undefined, dryRun: boolean): Promise<AdvanceOutcome> {
  if (dryRun) {
    return Reader.read(cwd, async (reader) => {
      const view = await withCheckStatuses(reader.root, reader.type, await reader.view());
      const result = advance(reader.type, view, new Date().toISOString(), actor(), event);
      return { from: result.from, to: result.to, event: result.event, dryRun: true, projectRemoved: false };
    });
  }
  return update(cwd, async (uow) => {
    const type = await uow.type();
    // The checks' evidence against the code as it is now (in a state whose guard needs it).
    const result = advance(type, await withCheckStatuses(uow.root, type, await uow.view()), uow.now, uow.actor, event);
    // Reaching a final state completes the project: its folder is removed and a new one can start.
    const removed = type.states[result.to]?.final === true;
    if (removed) uow.tx.removeTree(PROJECT_DIR).removeTree(AGENT_OUTPUTS);
    else uow.setProject(result.project);
    return { from: result.from, to: result.to, event: result.event, dryRun: false, projectRemoved: removed };
  });
}

export async function listAdvanceOptions(cwd: string): Promise<{ state: string; transitions: TransitionOption[] }> {
  return Reader.read(cwd, async (reader) => ({
    state: reader.project.statechart.current_state,
    transitions: listTransitions(reader.type, await withCheckStatuses(reader.root, reader.type, await reader.view())),
  }));
}
