import { listTransitions, type TransitionOption } from '../domain/transitions.js';
import { PROJECT_DIR, Reader, update } from './workspace.js';

export interface AdvanceOutcome {
  from: string;
  to: string;
  event: string;
  dryRun: boolean;
  projectRemoved: boolean;
}

export async function advanceProject(cwd: string, event: string | undefined, dryRun: boolean): Promise<AdvanceOutcome> {
  if (dryRun) {
    const reader = await Reader.open(cwd);
    const { advance: fire } = await import('../domain/lifecycle.js');
    const result = fire(reader.type, reader.project, new Date().toISOString(), event);
    return { from: result.from, to: result.to, event: result.event, dryRun: true, projectRemoved: false };
  }
  const { advance: fire } = await import('../domain/lifecycle.js');
  return update(cwd, async (uow) => {
    const type = await uow.type();
    const result = fire(type, await uow.project(), uow.now, event);
    // Reaching a final state completes the project: its folder is removed and a new one can start.
    const removed = type.states[result.to]?.final === true;
    if (removed) uow.tx.removeTree(PROJECT_DIR).removeTree('.sow/.cache');
    else uow.setProject(result.project);
    return { from: result.from, to: result.to, event: result.event, dryRun: false, projectRemoved: removed };
  });
}

export async function listAdvanceOptions(cwd: string): Promise<{ state: string; transitions: TransitionOption[] }> {
  const reader = await Reader.open(cwd);
  return { state: reader.project.statechart.current_state, transitions: listTransitions(reader.type, reader.project) };
}

