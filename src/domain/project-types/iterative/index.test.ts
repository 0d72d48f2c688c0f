import { describe, expect, it } from 'vitest';
import { placeholdersIn } from '../../artifacts.js';
import { advance } from '../../lifecycle.js';
import type { Artifact, ProjectState } from '../../schemas.js';
import { iterative } from './index.js';
import type { WorkPhase } from './work-phases.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const phase = (over: Record<string, unknown> = {}) => ({
  status: 'pending' as const,
  enabled: true,
  iteration: 1,
  created_at: T0,
  metadata: {} as Record<string, unknown>,
  inputs: [] as Artifact[],
  outputs: [] as Artifact[],
  ...over,
});
const work = (id: string, over: Partial<WorkPhase> = {}): WorkPhase => ({
  id,
  title: id,
  criteria: 'c',
  output: `outputs/${id}.md`,
  max: 3,
  after: [],
  status: 'done',
  iterations: 1,
  confirmations: 1,
  ...over,
});
function project(
  state: string,
  opts: { plan?: Artifact[]; verify?: Artifact[]; phases?: WorkPhase[]; domain?: string } = {},
): ProjectState {
  return {
    name: 'survey',
    type: 'iterative',
    description: 'Survey',
    branch: 'iter/survey',
    created_at: T0,
    updated_at: T0,
    statechart: { current_state: state, updated_at: T0, history: [] },
    phases: {
      discover: phase({ metadata: opts.domain ? { domain: opts.domain } : {} }),
      plan: phase({ outputs: opts.plan ?? [] }),
      execute: phase({ metadata: { work_phases: opts.phases ?? [] } }),
      verify: phase({ status: 'in_progress', started_at: T0, outputs: opts.verify ?? [] }),
      deliver: phase(),
    },
  };
}
const planOut = (approved: boolean): Artifact => ({ type: 'plan', path: 'plan.md', approved, created_at: T0 });
const review = (assessment: string, phases?: string): Artifact => ({
  type: 'review',
  path: 'r.md',
  approved: true,
  created_at: T1,
  metadata: { assessment, ...(phases ? { phases } : {}) },
});
const g = iterative.guards;

describe('iterative guards', () => {
  it('planReady: the plan approved and complete, naming the first gaps', () => {
    expect(
      g['planReady']!.check({
        project: project('PlanActive', { plan: [planOut(true)], phases: [work('R1', { status: 'pending' })] }),
        tasks: [],
      }),
    ).toBe(true);
    const gap = project('PlanActive', { plan: [planOut(true)], phases: [work('R1', { status: 'pending', max: 0 })] });
    expect(g['planReady']!.check({ project: gap, tasks: [] })).toBe(false);
    expect(g['planReady']!.hint({ project: gap, tasks: [] })).toContain(
      "R1 has no maximum of iterations ('sow iter phase set R1 max 5')",
    );
    const unapproved = project('PlanActive', { plan: [planOut(false)], phases: [work('R1', { status: 'pending' })] });
    expect(g['planReady']!.hint({ project: unapproved, tasks: [] })).toContain(
      "'sow output set --phase plan --index 0 approved true'",
    );
  });

  it(
    'a failed review reopens the phases it names and goes back to ExecuteActive; without names it is blocked ' +
      'and says so',
    () => {
      const phases = [work('R1'), work('R2')];
      const unnamed = project('VerifyActive', { phases, verify: [review('fail')] });
      expect(() => advance(iterative, { project: unnamed, tasks: [] }, T1, { by: 'user' })).toThrow(
        /names the work phases/,
      );
      expect(g['reviewFailed']!.hint({ project: unnamed, tasks: [] })).toContain(
        "'sow output set --index 0 phases R1,R2'",
      );
      const named = project('VerifyActive', { phases, verify: [review('fail', 'R2, R9')] });
      const r = advance(iterative, { project: named, tasks: [] }, T1, { by: 'user' });
      expect(r.to).toBe('ExecuteActive');
      const after = r.project.phases['execute']!;
      expect((after.metadata['work_phases'] as WorkPhase[]).map((p) => p.status)).toEqual(['done', 'in_progress']);
      expect([after.status, after.iteration, after.inputs.length]).toEqual(['in_progress', 2, 1]);
      expect(r.project.phases['verify']!.status).toBe('failed');
      expect(
        advance(iterative, { project: project('VerifyActive', { phases, verify: [review('pass')] }), tasks: [] }, T1, {
          by: 'user',
        }).to,
      ).toBe('DeliverActive');
    },
  );

  it("outputsWritten: every phase's output exists, the missing ones named", () => {
    const p = project('DeliverActive', { phases: [work('R1'), work('R2')] });
    const exists = (have: string[]) => (rel: string) => have.includes(rel);
    expect(
      g['outputsWritten']!.check({
        project: p,
        tasks: [],
        docExists: exists(['.sow/project/outputs/R1.md', '.sow/project/outputs/R2.md']),
      }),
    ).toBe(true);
    expect(
      g['outputsWritten']!.check({ project: p, tasks: [], docExists: exists(['.sow/project/outputs/R1.md']) }),
    ).toBe(false);
    expect(
      g['outputsWritten']!.hint({ project: p, tasks: [], docExists: exists(['.sow/project/outputs/R1.md']) }),
    ).toBe('write .sow/project/outputs/R2.md (R2)');
    expect(g['outputsWritten']!.check({ project: p, tasks: [] })).toBe(false);
  });

  it("the archive keeps the spec's documents (and each phase's output), not reviews or logs", () => {
    const p = project('Complete', { phases: [work('R1', { output: 'deliverables/r1.md' })] });
    const plan = iterative.archive!(
      {
        project: p,
        tasks: [],
        config: {},
        documents: [
          'brief.md',
          'plan.md',
          'context.md',
          'progress.md',
          'guardrails.md',
          'sources/.gitkeep',
          'sources/a.md',
          'outputs/.gitkeep',
          'outputs/x.md',
          'deliverables/r1.md',
          'review/r.md',
          'notes.md',
        ],
      },
      T1,
    )!;
    expect(plan.files.map((f) => f.from)).toEqual([
      'brief.md',
      'plan.md',
      'context.md',
      'progress.md',
      'guardrails.md',
      'sources/a.md',
      'outputs/x.md',
      'deliverables/r1.md',
    ]);
    expect(plan.files[0]!.to).toBe('.sow/knowledge/iterative/survey/brief.md');
    expect(plan.entry).toMatchObject({
      type: 'iterative',
      name: 'survey',
      phases: [{ id: 'R1', iterations: 1, output: 'deliverables/r1.md' }],
    });
  });

  it("the scaffold writes the spec's documents and folders, and records the brief", () => {
    const started = project('DiscoverActive');
    const { project: p, files } = iterative.scaffold!(started, T0);
    expect(Object.keys(files)).toEqual([
      'brief.md',
      'context.md',
      'progress.md',
      'guardrails.md',
      'sources/.gitkeep',
      'outputs/.gitkeep',
    ]);
    expect([files['sources/.gitkeep'], files['outputs/.gitkeep']]).toEqual(['', '']);
    expect(files['brief.md']).toContain('## Outcome Needed');
    expect(files['context.md']).toMatch(/\*\*Patterns to follow:\*\*\n- .+\n\n\*\*Phase signals:\*\*\n- \{R1: .+\}\n$/);
    expect(p.phases['discover']!.outputs).toEqual([
      { type: 'brief', path: 'brief.md', approved: false, created_at: T0 },
    ]);
  });

  it(
    "the brief's placeholders are the template's own: each one found while it is left, none in a filled brief or in " +
      'braces a person writes',
    () => {
      const def = iterative.phases.find((x) => x.name === 'discover')!.outputs.find((t) => t.name === 'brief')!;
      const template = iterative.scaffold!(project('DiscoverActive'), T0).files['brief.md']!;
      expect(placeholdersIn(def, template)).toEqual(def.placeholders);
      expect(def.placeholders).toHaveLength(6);
      const filled =
        '# Survey\n\n**Domain:** research\n\n## Outcome Needed\nA pick, e.g. `{"alg": "ES256"}` or ${ALG}.\n\n## ' +
        'Done When\n- {3 libraries} compared\n';
      expect(placeholdersIn(def, filled)).toEqual([]);
      expect(placeholdersIn(def, `${filled}- {Criterion 2} and a summary\n`)).toEqual(['{Criterion 2}']);
    },
  );

  it(
    'plan.md is drawn from the work phases once there are any, ' + 'with the domain set, else the one the brief names',
    () => {
      const read = (brief?: string) => (rel: string) => (rel === '.sow/project/brief.md' ? brief : undefined);
      expect(iterative.renders!(project('PlanActive'), read())).toEqual({});
      const phases = [work('R1', { status: 'pending' })];
      expect(iterative.renders!(project('PlanActive', { phases }), read())['plan.md']).toContain(
        '**Domain:** (not set)',
      );
      expect(
        iterative.renders!(project('PlanActive', { phases }), read('# x\n**Domain:** Writing\n'))['plan.md'],
      ).toContain('**Domain:** writing');
      expect(
        iterative.renders!(
          project('PlanActive', { phases }),
          read('**Domain:** {research|writing|analysis|planning|software}\n'),
        )['plan.md'],
      ).toContain('**Domain:** (not set)');
      expect(
        iterative.renders!(project('PlanActive', { phases, domain: 'research' }), read('**Domain:** writing\n'))[
          'plan.md'
        ],
      ).toContain('**Domain:** research');
      // Once written, plan.md stays drawn even when the last phase is removed.
      expect(
        iterative.renders!(project('PlanActive'), (rel) => (rel === '.sow/project/plan.md' ? 'old' : undefined))[
          'plan.md'
        ],
      ).toContain('(none yet)');
    },
  );

  it("a review's phases are checked when it is recorded: an unknown one is refused", () => {
    const def = iterative.phases.find((x) => x.name === 'verify')!.outputs.find((t) => t.name === 'review')!;
    const p = project('VerifyActive', { phases: [work('R1'), work('R2')] });
    expect(() => def.check!(review('fail', 'R2'), p)).not.toThrow();
    expect(() => def.check!(review('fail', 'R2,R3'), p)).toThrow("the review names 'R3', which is not a work phase");
  });

  it(
    'advancing on a failed review says which phases are reopened, and that one with no iteration left ' +
      'needs extend',
    () => {
      const phases = [work('R1', { iterations: 3, max: 3 }), work('R2', { iterations: 1, max: 3 })];
      const r = advance(
        iterative,
        { project: project('VerifyActive', { phases, verify: [review('fail', 'R1,R2')] }), tasks: [] },
        T1,
        { by: 'user' },
      );
      expect((r.project.phases['execute']!.metadata['work_phases'] as WorkPhase[]).map((x) => x.status)).toEqual([
        'timeout',
        'in_progress',
      ]);
      expect(iterative.advanceNotes!(r.event, r.project)).toEqual([
        'R1 was reopened by the failed review, but it has used its 3 of 3 iterations: raise its maximum before work ' +
          "on it can go on ('sow iter extend R1 --max 6').",
        "R2 is in progress again: iteration 2 of 3 is next ('sow iter next').",
      ]);
      expect(iterative.advanceNotes!('plan_approved', r.project)).toEqual([]);
    },
  );
});
