// The live values `sow __complete` offers; each reads only what it needs and never warns about the branch.
import { guardSentence, listTransitions } from '../domain/lifecycle.js';
import { selectPhase } from '../domain/phases.js';
import type { ProjectType } from '../domain/project-type.js';
import type { ProjectState } from '../domain/schemas.js';
import { readRepoConfig } from '../adapters/repo-config.js';
import { findWorkspaceRoot } from '../adapters/repo.js';
import { processContext } from './context.js';
import { refInfos } from './refs.js';
import { Reader } from './workspace.js';

export type Candidate = { value: string; description?: string };

const quietly = <T>(cwd: string, fn: (reader: Reader) => Promise<T> | T): Promise<T> =>
  Reader.read(processContext(cwd), fn, { otherBranch: 'quiet' });

export function taskIdCandidates(cwd: string): Promise<Candidate[]> {
  return quietly(cwd, async (r) =>
    (await r.tasks()).map((t) => ({ value: t.id, description: `${t.name} (${t.status})` })),
  );
}

/** Every event out of the current state (what `sow advance --list` shows), blocked or not. */
export function eventCandidates(cwd: string): Promise<Candidate[]> {
  return quietly(cwd, async (r) => {
    const options = listTransitions(r.type, await r.view());
    return options
      .filter((t, i) => options.findIndex((o) => o.event === t.event) === i)
      .map((t) => {
        const until = t.blocked && t.guardDescription ? ` (${guardSentence.blockedUntil([t.guardDescription])})` : '';
        return { value: t.event, description: `→ ${t.to}${until}` };
      });
  });
}

/** The phase `--phase` names, else the one in progress, else the current state's. */
function phaseFor(type: ProjectType, project: ProjectState, requested: string | undefined): string | undefined {
  try {
    return selectPhase(type, project, requested);
  } catch {
    return type.states[project.statechart.current_state]?.phase ?? undefined;
  }
}

/** The artifact types `input|output add` takes for a phase (the current one) or a task; not those only sow records. */
export function artifactTypeCandidates(
  cwd: string,
  owner: 'phase' | 'task',
  direction: 'inputs' | 'outputs',
  phase?: string,
) {
  return quietly(cwd, (r) => {
    let defs;
    if (owner === 'task') defs = direction === 'inputs' ? r.type.taskInputs : r.type.taskOutputs;
    else {
      const name = phaseFor(r.type, r.project, phase);
      defs = r.type.phases.find((p) => p.name === name)?.[direction] ?? [];
    }
    return defs.filter((d) => d.recordedBy === undefined).map((d) => ({ value: d.name, description: d.description }));
  });
}

export function phaseCandidates(cwd: string): Promise<Candidate[]> {
  return quietly(cwd, (r) =>
    r.type.phases.map((p) => ({ value: p.name, description: r.project.phases[p.name]?.status ?? '' })),
  );
}

export async function checkCandidates(cwd: string): Promise<Candidate[]> {
  const { config } = await readRepoConfig(findWorkspaceRoot(cwd));
  return (config.checks ?? []).map((c) => ({ value: c.name, description: c.run }));
}

export function refCandidates(cwd: string): Candidate[] {
  return refInfos(processContext(findWorkspaceRoot(cwd))).map((r) => ({
    value: r.link,
    ...(r.description ? { description: r.description } : {}),
  }));
}
