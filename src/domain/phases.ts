/** Pure operations on a project's phases, shared by every project type. */
import { PhaseNotActiveError, PhaseNotFoundError } from '../errors.js';
import type { Phase, ProjectState, TaskSummary } from '../schemas.js';

export function phaseOf(project: ProjectState, name: string): Phase {
  const phase = project.phases[name];
  if (!phase) throw new PhaseNotFoundError(name, Object.keys(project.phases));
  return phase;
}

export function withPhase(project: ProjectState, name: string, phase: Phase): ProjectState {
  return { ...project, phases: { ...project.phases, [name]: phase } };
}

export function tasksOf(project: ProjectState): readonly TaskSummary[] {
  return project.phases['implementation']?.tasks ?? [];
}

/** Entering a phase: in_progress, started now; a phase entered again counts an iteration. */
export function startPhase(project: ProjectState, name: string, now: string): ProjectState {
  const phase = phaseOf(project, name);
  if (phase.status === 'in_progress') return project;
  const { completed_at: _done, ...rest } = phase;
  return withPhase(project, name, {
    ...rest,
    status: 'in_progress',
    iteration: phase.started_at ? phase.iteration + 1 : phase.iteration,
    started_at: now,
  });
}

export function completePhase(project: ProjectState, name: string, now: string): ProjectState {
  const phase = phaseOf(project, name);
  return withPhase(project, name, { ...phase, status: 'completed', completed_at: now });
}

export function requirePhaseActive(project: ProjectState, phase: string, action: string): void {
  const p = project.phases[phase];
  if (!p || p.status !== 'in_progress') {
    throw new PhaseNotActiveError(
      `${action} needs the ${phase} phase in progress, but the project is in ${project.statechart.current_state}`,
      "run 'sow project continue' to see what this state expects, or 'sow advance' to move on",
    );
  }
}
