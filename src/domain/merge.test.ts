import { describe, expect, it } from 'vitest';
import { interleave, mergeData, mergeKindOf, mergeLog, splitLog } from './merge.js';
import { art, project, T, task } from '../../test/merge-fixtures.js';

describe('mergeKindOf', () => {
  it('knows the project, task, knowledge and log files, and nothing else', () => {
    expect(mergeKindOf('.sow/project/state.yaml')).toBe('project');
    expect(mergeKindOf('.sow/project/phases/implementation/tasks/010/state.yaml')).toBe('task');
    expect(mergeKindOf('.sow/project/phases/explore/tasks/1000/log.md')).toBe('log');
    expect(mergeKindOf('.sow/project/log.md')).toBe('log');
    expect(mergeKindOf('.sow/knowledge/index.yaml')).toBe('knowledge');
    for (const p of [
      '.sow/config.yaml',
      '.sow/project/planning/tasks.md',
      '.sow/project/phases/implementation/tasks/010/description.md',
      'state.yaml',
      '.sow/project/phases/a/b/tasks/010/state.yaml',
    ])
      expect(mergeKindOf(p), p).toBeUndefined();
  });
});

describe('mergeData: fields three-way', () => {
  it('takes the side that changed a field, and a value both sides set alike', () => {
    const base = task();
    const ours = task({ status: 'completed', assigned_agent: 'implementer' });
    const theirs = task({ name: 'renamed', assigned_agent: 'implementer' });
    const r = mergeData('task', base, ours, theirs);
    expect(r.conflicts).toEqual([]);
    expect(r.value).toMatchObject({ status: 'completed', name: 'renamed', assigned_agent: 'implementer' });
  });

  it('a field both sides changed differently is a conflict: ours is kept, both values reported', () => {
    const r = mergeData('task', task(), task({ status: 'completed' }), task({ status: 'abandoned' }));
    expect(r.value).toMatchObject({ status: 'completed' });
    expect(r.conflicts).toEqual([{ field: 'status', base: 'pending', ours: 'completed', theirs: 'abandoned' }]);
  });

  it(
    'a field one side removed and the other changed is a conflict; one side removed and the other left alone ' +
      'is removed',
    () => {
      const base = task({ session_id: 's1', assigned_agent: 'a' });
      const r = mergeData('task', base, task({ assigned_agent: 'a' }), task({ session_id: 's2' }));
      expect(r.conflicts).toEqual([{ field: 'session_id', base: 's1', theirs: 's2' }]);
      expect(r.value).not.toHaveProperty('session_id');
      expect(r.value).not.toHaveProperty('assigned_agent');
      expect(mergeData('task', base, task({ assigned_agent: 'a' }), base).value).not.toHaveProperty('session_id');
    },
  );

  it('keys only the other side added come after ours, in its order; nested metadata merges key by key', () => {
    const base = task({ metadata: { a: 1 } });
    const r = mergeData(
      'task',
      base,
      task({ metadata: { a: 1, b: 2 }, started_at: T(3) }),
      task({ metadata: { a: 1, c: { d: 3 } }, extra: 'x' }),
    );
    expect(r.conflicts).toEqual([]);
    expect((r.value as any).metadata).toEqual({ a: 1, b: 2, c: { d: 3 } });
    expect(Object.keys(r.value as object).slice(-2)).toEqual(['started_at', 'extra']);
  });

  it('stamps: updated_at and completed_at take the later time, created_at and started_at the earlier', () => {
    const r = mergeData(
      'task',
      task(),
      task({ updated_at: T(5), started_at: T(4), completed_at: T(9) }),
      task({ updated_at: T(7), started_at: T(2), completed_at: T(8) }),
    );
    expect(r.conflicts).toEqual([]);
    expect(r.value).toMatchObject({ updated_at: T(7), started_at: T(2), completed_at: T(9) });
    // Not a time on one side: a conflict like any other field.
    expect(
      mergeData('task', task(), task({ updated_at: 'soon' }), task({ updated_at: T(7) })).conflicts.map((c) => c.field),
    ).toEqual(['updated_at']);
  });

  it('both sides added the file (no base): equal fields merge, different ones conflict', () => {
    const r = mergeData('task', undefined, task({ name: 'a' }), task({ name: 'b' }));
    expect(r.conflicts.map((c) => c.field)).toEqual(['name']);
    expect(r.conflicts[0]).not.toHaveProperty('base');
  });

  it('a value of another shape on each side (a list and a map) is a conflict, not a mix', () => {
    const r = mergeData(
      'task',
      task({ metadata: { x: 1 } }),
      task({ metadata: { x: [1] } }),
      task({ metadata: { x: { y: 1 } } }),
    );
    expect(r.conflicts).toEqual([{ field: 'metadata.x', base: 1, ours: [1], theirs: { y: 1 } }]);
  });

  it('big integers are compared digit for digit, not as numbers', () => {
    const big = 2n ** 60n;
    expect(
      mergeData(
        'task',
        task({ metadata: { n: big } }),
        task({ metadata: { n: big } }),
        task({ metadata: { n: big + 1n } }),
      ).value,
    ).toMatchObject({ metadata: { n: big + 1n } });
    expect(
      mergeData('task', task(), task({ metadata: { n: big } }), task({ metadata: { n: Number(big) } })).conflicts,
    ).toHaveLength(1);
  });
});

describe('mergeData: lists', () => {
  it('artifacts: both sides’ additions are kept, in time order, after the shared ones', () => {
    const shared = art('modified', 'src/a.ts', 1);
    const r = mergeData(
      'task',
      task({ outputs: [shared] }),
      task({ outputs: [shared, art('modified', 'src/b.ts', 4), art('modified', 'src/d.ts', 8)] }),
      task({ outputs: [shared, art('modified', 'src/c.ts', 6)] }),
    );
    expect(r.conflicts).toEqual([]);
    expect((r.value as any).outputs.map((o: any) => o.path)).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts']);
  });

  it('artifacts: a change to one merges field by field; approved set on both sides alike is no conflict', () => {
    const a = art('task_list', 'planning/tasks.md', 1);
    const r = mergeData(
      'project',
      project({}, { planning: { outputs: [a] } }),
      project({}, { planning: { outputs: [{ ...a, approved: true }] } }),
      project({}, { planning: { outputs: [{ ...a, approved: true, metadata: { note: 'x' } }] } }),
    );
    expect(r.conflicts).toEqual([]);
    expect((r.value as any).phases.planning.outputs).toEqual([{ ...a, approved: true, metadata: { note: 'x' } }]);
    const c = mergeData(
      'project',
      project({}, { planning: { outputs: [a] } }),
      project({}, { planning: { outputs: [{ ...a, approved: true }] } }),
      project({}, { planning: { outputs: [{ ...a, approved: false }] } }),
    );
    expect(c.conflicts).toEqual([{ field: 'phases.planning.outputs.0.approved', ours: true, theirs: false }]);
  });

  it('artifacts: removed on one side and left alone on the other is removed; removed and changed is a conflict', () => {
    const a = art('reference', 'a.md', 1);
    const b = art('reference', 'b.md', 2);
    const removed = mergeData(
      'task',
      task({ inputs: [a, b] }),
      task({ inputs: [b] }),
      task({ inputs: [a, b, art('reference', 'c.md', 3)] }),
    );
    expect(removed.conflicts).toEqual([]);
    expect((removed.value as any).inputs.map((i: any) => i.path)).toEqual(['b.md', 'c.md']);
    const removedThere = mergeData(
      'task',
      task({ inputs: [a, b] }),
      task({ inputs: [a, b, art('reference', 'd.md', 4)] }),
      task({ inputs: [b] }),
    );
    expect(removedThere.conflicts).toEqual([]);
    expect((removedThere.value as any).inputs.map((i: any) => i.path)).toEqual(['b.md', 'd.md']);
    const changed = mergeData(
      'task',
      task({ inputs: [a, b] }),
      task({ inputs: [b] }),
      task({ inputs: [{ ...a, approved: true }, b] }),
    );
    expect(changed.conflicts).toEqual([
      { field: 'inputs.(reference a.md)', base: a, theirs: { ...a, approved: true } },
    ]);
    expect((changed.value as any).inputs.map((i: any) => i.path)).toEqual(['b.md']);
    const changedHere = mergeData(
      'task',
      task({ inputs: [a, b] }),
      task({ inputs: [{ ...a, approved: true }, b] }),
      task({ inputs: [b] }),
    );
    expect(changedHere.conflicts).toEqual([{ field: 'inputs.0', base: a, ours: { ...a, approved: true } }]);
    expect((changedHere.value as any).inputs.map((i: any) => i.path)).toEqual(['a.md', 'b.md']);
  });

  it('artifacts: the same one added on both sides is kept once, with the earlier time', () => {
    const r = mergeData(
      'task',
      task(),
      task({ outputs: [art('modified', 'x.ts', 5)] }),
      task({ outputs: [art('modified', 'x.ts', 3)] }),
    );
    expect(r.conflicts).toEqual([]);
    expect((r.value as any).outputs).toEqual([art('modified', 'x.ts', 3)]);
  });

  it('the history grows on both sides: both transitions kept once, in time order', () => {
    const h = (event: string, at: number) => ({ from: 'a', to: 'b', event, at: T(at), by: 'user' });
    const base = project();
    const baseH = base.statechart.history;
    const ours = project({ statechart: { ...base.statechart, history: [...baseH, h('x', 5), h('z', 9)] } });
    const theirs = project({ statechart: { ...base.statechart, history: [...baseH, h('y', 7), h('z', 9)] } });
    const r = mergeData('project', base, ours, theirs);
    expect((r.value as any).statechart.history.map((e: any) => e.event)).toEqual(['project_init', 'x', 'y', 'z']);
  });

  it(
    'usage grows; spawn_counts take the larger count; ' + 'a session of an agent changed on both sides is a conflict',
    () => {
      const u = (at: number) => ({ at: T(at), agent_id: 'i-1', agent: 'i', executor: 'e', run: 'spawn' });
      const s = (id: string) => ({
        executor: 'e',
        type: 'claude',
        agent: 'planner',
        agent_id: 'planner-1',
        cwd: '/x',
        started_at: T(1),
        session_id: id,
      });
      const r = mergeData(
        'project',
        project({ spawn_counts: { implementer: 1 }, usage: [u(1)], sessions: { planner: s('a') } }),
        project({ spawn_counts: { implementer: 3 }, usage: [u(1), u(4)], sessions: { planner: s('b') } }),
        project({ spawn_counts: { implementer: 2, reviewer: 1 }, usage: [u(1), u(3)], sessions: { planner: s('c') } }),
      );
      expect((r.value as any).spawn_counts).toEqual({ implementer: 3, reviewer: 1 });
      expect((r.value as any).usage.map((x: any) => x.at)).toEqual([T(1), T(3), T(4)]);
      expect(r.conflicts.map((c) => c.field)).toEqual(['sessions.planner']);
      expect((r.value as any).sessions.planner.session_id).toBe('b');
    },
  );

  it('dependencies and retired owners merge as sets', () => {
    const r = mergeData(
      'task',
      task({ dependencies: ['010', '020'] }),
      task({ dependencies: ['010', '030'], retired_owners: ['a'] }),
      task({ dependencies: ['010', '020', '040'], retired_owners: ['b', 'a'] }),
    );
    expect(r.conflicts).toEqual([]);
    expect(r.value).toMatchObject({ dependencies: ['010', '030', '040'], retired_owners: ['a', 'b'] });
  });

  it('owner: the same owner takes the later lease; two owners are a conflict (never half of each)', () => {
    const claim = (by: string, until: number) => ({
      kind: 'claim',
      by,
      since: T(1),
      lease_until: T(until),
      lease_seconds: 60,
    });
    expect(
      mergeData(
        'task',
        task({ owner: claim('ann', 2) }),
        task({ owner: claim('ann', 5) }),
        task({ owner: claim('ann', 9) }),
      ).value,
    ).toMatchObject({ owner: claim('ann', 9) });
    const two = mergeData('task', task(), task({ owner: claim('ann', 5) }), task({ owner: claim('bob', 9) }));
    expect(two.conflicts.map((c) => c.field)).toEqual(['owner']);
    expect(two.value).toMatchObject({ owner: claim('ann', 5) });
  });

  it('knowledge entries: each side’s new entry is kept once, by date; a changed entry replaces the old', () => {
    const e = (name: string, date: string, tags: string[] = []) => ({
      type: 'exploration',
      name,
      date,
      tags,
      files: [],
    });
    const base = { entries: [e('old', '2026-01-01')] };
    const r = mergeData(
      'knowledge',
      base,
      { entries: [e('old', '2026-01-01'), e('b', '2026-03-01')] },
      { entries: [e('old', '2026-01-01', ['x']), e('a', '2026-02-01')] },
    );
    expect(r.conflicts).toEqual([]);
    expect((r.value as any).entries.map((x: any) => x.name)).toEqual(['old', 'a', 'b']);
    expect((r.value as any).entries[0].tags).toEqual(['x']);
  });
});

describe('interleave', () => {
  it(
    'weaves two ordered sequences by time, keeping each side’s order; an item without a time follows the ' +
      'one before it',
    () => {
      const t = (x: { t?: number }) => x.t;
      const out = interleave(
        [{ n: 'a', t: 1 }, { n: 'a2' }, { n: 'c', t: 5 }],
        [
          { n: 'b', t: 3 },
          { n: 'd', t: 5 },
        ],
        t,
      );
      expect(out.map((x) => x.n)).toEqual(['a', 'a2', 'b', 'c', 'd']);
    },
  );
});

describe('mergeLog', () => {
  const entry = (s: number, text: string) =>
    `---\ntimestamp: "${T(s)}"\nagent: user\naction: note\nresult: success\n---\n\n${text}\n\n`;
  const head = '# Task log: 010 one\n\n';

  it('keeps the entries both sides appended, once each, in time order', () => {
    const base = head + entry(1, 'first');
    const ours = base + entry(4, 'ours a') + entry(8, 'ours b');
    const theirs = base + entry(6, 'theirs');
    expect(mergeLog(base, ours, theirs)).toBe(
      head + entry(1, 'first') + entry(4, 'ours a') + entry(6, 'theirs') + entry(8, 'ours b'),
    );
    // The same entry on both sides (a cherry-pick) is kept once.
    expect(mergeLog(base, ours, base + entry(4, 'ours a'))).toBe(ours);
  });

  it('a log both sides created (no base) keeps the heading once', () => {
    expect(mergeLog('', head + entry(2, 'a'), head + entry(1, 'b'))).toBe(head + entry(1, 'b') + entry(2, 'a'));
  });

  it('a body line of three dashes is part of its entry, not the start of another', () => {
    const base = head;
    const ours = head + entry(1, 'above\n---\nbelow');
    expect(splitLog(ours).entries).toHaveLength(1);
    expect(mergeLog(base, ours, head + entry(2, 'x'))).toBe(head + entry(1, 'above\n---\nbelow') + entry(2, 'x'));
  });

  it('headings changed differently on both sides: undefined (the text merge decides)', () => {
    expect(mergeLog(head, '# A\n\n' + entry(1, 'a'), '# B\n\n' + entry(2, 'b'))).toBeUndefined();
    expect(mergeLog(head, '# A\n\n' + entry(1, 'a'), head + entry(2, 'b'))).toBe(
      '# A\n\n' + entry(1, 'a') + entry(2, 'b'),
    );
  });

  it('one side unchanged: the other side, byte for byte', () => {
    const other = head + entry(1, 'x') + 'trailing text without an entry';
    expect(mergeLog(head, head, other)).toBe(other);
    expect(mergeLog(head, other, head)).toBe(other);
  });
});
