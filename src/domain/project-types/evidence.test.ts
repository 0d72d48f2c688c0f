import { describe, expect, it } from 'vitest';
import { advance } from '../lifecycle.js';
import { TransitionBlockedError } from '../errors.js';
import type { Artifact, ProjectState } from '../schemas.js';
import { checkStatuses, evidenceNeeded, newestEvidence, placeArtifact } from './evidence.js';
import { standard } from './standard/index.js';
import type { CheckStatus, ProjectView } from '../project-type.js';

const T0 = '2026-01-01T00:00:00.000Z';
const TREE = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);
const UNIT = { name: 'unit', run: 'npm test' };
const LINT = { name: 'lint', run: 'npm run lint' };

const evidence = (
  check: string,
  exit: number | null,
  tree = TREE,
  run = check === 'unit' ? UNIT.run : LINT.run,
): Artifact => ({
  type: 'evidence',
  path: `evidence/20260101T000000.000Z-${check}.log`,
  created_at: T0,
  metadata: { check, run, exit_code: exit, duration_ms: 10, commit: null, dirty: false, tree },
});

function project(state: string, finalizeOutputs: Artifact[] = []): ProjectState {
  const phase = () => ({
    status: 'pending' as const,
    enabled: true,
    iteration: 1,
    created_at: T0,
    metadata: {},
    inputs: [] as Artifact[],
    outputs: [] as Artifact[],
  });
  return {
    name: 'demo',
    type: 'standard',
    description: '',
    branch: 'feat/demo',
    created_at: T0,
    updated_at: T0,
    statechart: { current_state: state, updated_at: T0, history: [] },
    phases: {
      planning: phase(),
      implementation: phase(),
      review: phase(),
      finalize: { ...phase(), status: 'in_progress', outputs: finalizeOutputs },
    },
  };
}

const status = (outputs: Artifact[], tree = TREE, declared = [UNIT]) => checkStatuses(declared, outputs, tree);

describe('checkStatuses: a check stands by its newest evidence', () => {
  it('missing: no evidence of that check (evidence of another check does not count)', () => {
    expect(status([])).toEqual([{ name: 'unit', state: 'missing' }]);
    expect(status([evidence('lint', 0)])).toEqual([{ name: 'unit', state: 'missing' }]);
    // Another type with the same metadata is not evidence.
    expect(status([{ ...evidence('unit', 0), type: 'documentation' }])[0]!.state).toBe('missing');
  });
  it('failed: a non-zero exit, or none at all (timed out)', () => {
    expect(status([evidence('unit', 2)])).toEqual([
      { name: 'unit', state: 'failed', exit_code: 2, evidence: evidence('unit', 2).path },
    ]);
    expect(status([evidence('unit', null)])[0]).toMatchObject({ state: 'failed', exit_code: null });
  });
  it('stale: it passed on another tree, or with another command', () => {
    expect(status([evidence('unit', 0, OTHER)])[0]).toMatchObject({ state: 'stale', changed: 'code' });
    expect(status([evidence('unit', 0, TREE, 'true')])[0]).toMatchObject({ state: 'stale', changed: 'command' });
  });
  it('fresh-pass: exit 0 on this tree with this command', () => {
    expect(status([evidence('unit', 0)])[0]).toMatchObject({ state: 'fresh-pass', exit_code: 0 });
  });
  it(
    'only evidence of the checkout judged counts: a worker checkout’s for it, the project checkout’s for it, ' +
      'whatever the tree',
    () => {
      const CHECKOUT = '.sow/worktrees/.workers/feat/demo--task-010';
      const inCheckout = (exit: number, tree = TREE): Artifact => ({
        ...evidence('unit', exit, tree),
        metadata: { ...evidence('unit', exit, tree).metadata, checkout: CHECKOUT },
      });
      expect(checkStatuses([UNIT], [inCheckout(0)], TREE, CHECKOUT)[0]!.state).toBe('fresh-pass');
      expect(checkStatuses([UNIT], [inCheckout(0)], TREE)[0]!.state).toBe('missing');
      expect(checkStatuses([UNIT], [evidence('unit', 0)], TREE, CHECKOUT)[0]!.state).toBe('missing');
      expect(
        checkStatuses([UNIT], [inCheckout(0)], TREE, '.sow/worktrees/.workers/feat/demo--task-020')[0]!.state,
      ).toBe('missing');
      // A newer run elsewhere does not hide the checkout's own newest one.
      expect(
        checkStatuses([UNIT], [inCheckout(1), inCheckout(0, OTHER), evidence('unit', 0)], TREE, CHECKOUT)[0],
      ).toMatchObject({ state: 'stale', changed: 'code' });
      expect(newestEvidence([inCheckout(0), evidence('unit', 1)], CHECKOUT).get('unit')!.metadata!['exit_code']).toBe(
        0,
      );
    },
  );
  it('the newest evidence of a check wins, either way', () => {
    expect(status([evidence('unit', 0), evidence('unit', 1)])[0]!.state).toBe('failed');
    expect(status([evidence('unit', 1), evidence('unit', 0)])[0]!.state).toBe('fresh-pass');
    expect(
      newestEvidence([evidence('unit', 1), evidence('lint', 0), evidence('unit', 0)]).get('unit')!.metadata![
        'exit_code'
      ],
    ).toBe(0);
  });
});

describe('the finalizeChecksPassed guard (FinalizeChecks → FinalizeDelete)', () => {
  const guard = standard.guards['finalizeChecksPassed']!;
  const view = (checks: CheckStatus[] | undefined): ProjectView => ({
    project: project('FinalizeChecks'),
    tasks: [],
    ...(checks ? { checks } : {}),
  });
  const c = (name: string, state: CheckStatus['state'], extra: Partial<CheckStatus> = {}): CheckStatus => ({
    name,
    state,
    ...extra,
  });

  it('is the guard of checks_done, and reads the finalize evidence of the finalize phase', () => {
    expect(standard.transitions.find((t) => t.event === 'checks_done')?.guard).toBe('finalizeChecksPassed');
    expect(guard.evidence).toEqual({ moment: 'finalize', phase: 'finalize' });
  });
  it('holds when every finalize check passed on the current code, and when none is declared', () => {
    expect(guard.check(view([c('unit', 'fresh-pass'), c('lint', 'fresh-pass')]))).toBe(true);
    expect(guard.check(view([]))).toBe(true);
  });
  it('is blocked by a missing, failed or stale check, naming each with what is wrong', () => {
    for (const state of ['missing', 'failed', 'stale'] as const) {
      expect(guard.check(view([c('unit', 'fresh-pass'), c('lint', state)])), state).toBe(false);
    }
    const hint = guard.hint(
      view([
        c('unit', 'fresh-pass'),
        c('lint', 'failed', { exit_code: 2, evidence: 'evidence/x-lint.log' }),
        c('e2e', 'missing'),
        c('build', 'stale', { changed: 'code' }),
        c('fmt', 'stale', { changed: 'command' }),
      ]),
    );
    expect(hint).toContain('lint: failed (exit 2; log .sow/project/evidence/x-lint.log)');
    expect(hint).toContain('e2e: never run');
    expect(hint).toContain('build: stale (the code changed since it passed)');
    expect(hint).toContain('fmt: stale (its command in .sow/config.yaml changed since it passed)');
    expect(hint).toContain("run 'sow check run lint e2e build fmt'");
    expect(hint).not.toContain('unit');
  });
  it('is blocked when the checks were not read (a view built without them)', () => {
    expect(guard.check(view(undefined))).toBe(false);
  });
  it('advance from FinalizeChecks: blocked (with the reasons) or moves on', () => {
    const blocked = () => advance(standard, view([c('unit', 'stale', { changed: 'code' })]), T0, { by: 'user' });
    expect(blocked).toThrow(TransitionBlockedError);
    expect(blocked).toThrow(
      expect.objectContaining({ hint: expect.stringContaining('unit: stale (the code changed since it passed)') }),
    );
    expect(advance(standard, view([c('unit', 'fresh-pass')]), T0, { by: 'user' }).to).toBe('FinalizeDelete');
  });
});

describe('evidenceNeeded: only where a guard reads evidence', () => {
  it('is FinalizeChecks in the standard type', () => {
    for (const state of Object.keys(standard.states)) {
      expect(evidenceNeeded(standard, { project: project(state) }), state).toEqual(
        state === 'FinalizeChecks' ? { moment: 'finalize', phase: 'finalize' } : undefined,
      );
    }
  });
  it('every type that declares evidence outputs has a place for the finalize evidence it reads', () => {
    expect(standard.phases.find((p) => p.name === 'finalize')!.outputs.map((t) => t.name)).toContain('evidence');
    for (const p of standard.phases)
      expect(
        p.outputs.map((t) => t.name),
        p.name,
      ).toContain('evidence');
    expect(standard.taskOutputs.map((t) => t.name)).toContain('evidence');
  });
});

describe('placeArtifact: documents first, evidence last', () => {
  const doc = (type: string, path: string): Artifact => ({ type, path, created_at: T0 });
  const types = (list: Artifact[]) => list.map((a) => `${a.type}:${a.path}`);

  it('a document goes before the evidence a check run recorded, so it keeps the index people approve it by', () => {
    const runs = [evidence('unit', 0), evidence('lint', 1)];
    const placed = placeArtifact(runs, doc('task_list', 'planning/tasks.md'));
    expect(placed.index).toBe(0);
    expect(types(placed.list)).toEqual([
      'task_list:planning/tasks.md',
      `evidence:${runs[0]!.path}`,
      `evidence:${runs[1]!.path}`,
    ]);
    const second = placeArtifact(placed.list, doc('task_list', 'planning/more.md'));
    expect(second.index).toBe(1);
  });

  it('evidence goes last, so the newest run of a check is still the last one', () => {
    const list = [doc('review', 'review/report.md'), evidence('unit', 1)];
    const placed = placeArtifact(list, evidence('unit', 0));
    expect(placed.index).toBe(2);
    expect(newestEvidence(placed.list).get('unit')?.metadata?.['exit_code']).toBe(0);
  });

  it('an order written before (evidence between documents) is kept: the document goes after the last document', () => {
    const list = [doc('review', 'a.md'), evidence('unit', 0), doc('review', 'b.md'), evidence('lint', 0)];
    const placed = placeArtifact(list, doc('review', 'c.md'));
    expect(placed.index).toBe(3);
    expect(placeArtifact([], doc('review', 'x.md')).index).toBe(0);
  });
});
