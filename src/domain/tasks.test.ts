import { describe, expect, it } from 'vitest';
import {
  checkNewTaskId,
  checkStatusChange,
  compareIds,
  findCycle,
  findTask,
  needsDependenciesFinished,
  nextTaskId,
  normalizeTaskId,
  parseDependencies,
  sortIds,
  summaryOf,
  withStatus,
} from './tasks.js';
import {
  DependencyCycleError,
  InvalidValueError,
  TaskBlockedError,
  TaskIdTakenError,
  TaskNotFoundError,
} from './errors.js';
import type { TaskState, TaskSummary } from './schemas.js';

const s = (id: string, status: TaskSummary['status'] = 'pending', dependencies: string[] = []): TaskSummary => ({
  id,
  name: id,
  status,
  parallel: false,
  dependencies,
});
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const task: TaskState = {
  id: '010',
  name: 'x',
  phase: 'implementation',
  status: 'pending',
  iteration: 1,
  parallel: false,
  dependencies: [],
  created_at: T0,
  updated_at: T0,
  inputs: [],
  outputs: [],
  metadata: {},
  assigned_agent: 'implementer',
};

describe('task ids', () => {
  it('gap-numbers from the highest id, past 990', () => {
    expect(nextTaskId([])).toBe('010');
    expect(nextTaskId([s('010'), s('020')])).toBe('030');
    expect(nextTaskId([s('010'), s('015')])).toBe('020');
    expect(nextTaskId([s('990')])).toBe('1000');
    expect(nextTaskId([s('1000'), s('020')])).toBe('1010');
  });
  it('normalises ids: 10, 010 and 0010 name the same task', () => {
    expect(normalizeTaskId('10')).toBe('010');
    expect(normalizeTaskId('0010')).toBe('010');
    expect(normalizeTaskId('1000')).toBe('1000');
    expect(() => normalizeTaskId('abc')).toThrow(InvalidValueError);
    expect(findTask([s('010')], '10').id).toBe('010');
    expect(() => findTask([s('010')], '20')).toThrow(TaskNotFoundError);
  });
  it('checks explicit ids', () => {
    expect(checkNewTaskId('015', [s('010')])).toBe('015');
    expect(checkNewTaskId('15', [s('010')])).toBe('015');
    expect(() => checkNewTaskId('0', [])).toThrow(InvalidValueError);
    expect(() => checkNewTaskId('abc', [])).toThrow(InvalidValueError);
    expect(() => checkNewTaskId('10', [s('010')])).toThrow(TaskIdTakenError);
  });
});

describe('dependencies', () => {
  it('must name other existing tasks', () => {
    expect(parseDependencies('010, 20,010', [s('010'), s('020')], '030')).toEqual(['010', '020']);
    expect(() => parseDependencies('030', [s('010')], '040')).toThrow(TaskNotFoundError);
    expect(() => parseDependencies('010', [s('010')], '010')).toThrow(
      expect.objectContaining({ hint: expect.stringContaining('itself') }),
    );
    expect(() => parseDependencies('x', [s('010')], '020')).toThrow(InvalidValueError);
  });
  it('may not form a cycle, and the error names it', () => {
    const tasks = [s('010', 'pending', ['020']), s('020', 'pending', ['030']), s('030')];
    expect(() => parseDependencies('010', tasks, '030')).toThrow(DependencyCycleError);
    expect(() => parseDependencies('010', tasks, '030')).toThrow('010 → 020 → 030 → 010');
    expect(
      findCycle(
        new Map([
          ['010', ['020']],
          ['020', []],
        ]),
      ),
    ).toBeUndefined();
  });
});

describe('what blocks a status', () => {
  it('a task starts only when its dependencies are completed or abandoned', () => {
    const t = { ...task, id: '030', dependencies: ['010', '020'] };
    expect(() => checkStatusChange(t, 'in_progress', [s('010', 'completed'), s('020', 'pending')])).toThrow(
      TaskBlockedError,
    );
    expect(() => checkStatusChange(t, 'in_progress', [s('010', 'completed'), s('020', 'pending')])).toThrow(
      'task 030 cannot start: it depends on 020 (pending)',
    );
    expect(() => checkStatusChange(t, 'in_progress', [s('010', 'completed'), s('020', 'abandoned')])).not.toThrow();
  });
  it('every status that says work started or is done needs the dependencies finished; stopping work does not', () => {
    const t = { ...task, id: '030', dependencies: ['010', '020'] };
    const open = [s('010', 'completed'), s('020', 'pending')];
    for (const status of ['in_progress', 'needs_review', 'completed', 'paused', 'failed'] as const) {
      expect(() => checkStatusChange(t, status, open), `pending → ${status}`).toThrow(TaskBlockedError);
      expect(
        () => checkStatusChange(t, status, [s('010', 'completed'), s('020', 'abandoned')]),
        `pending → ${status}, dependencies finished`,
      ).not.toThrow();
    }
    expect(() => checkStatusChange(t, 'completed', open)).toThrow(
      'task 030 cannot be completed: it depends on 020 (pending)',
    );
    expect(() => checkStatusChange(t, 'needs_review', open)).toThrow(
      'task 030 cannot go to review: it depends on 020 (pending)',
    );
    const started = { ...t, status: 'in_progress' as const };
    expect(() => checkStatusChange(started, 'paused', open), 'a worker may always say it stopped').not.toThrow();
    expect(() => checkStatusChange(started, 'failed', open)).not.toThrow();
    expect(() => checkStatusChange(started, 'needs_review', open), 'but not that it is done').toThrow(TaskBlockedError);
    expect(() => checkStatusChange(t, 'abandoned', open), 'abandoning is not work').not.toThrow();
    expect(() => checkStatusChange(t, 'pending', open)).not.toThrow();
    expect(needsDependenciesFinished('in_progress', 'in_progress'), 'no change, nothing to check').toBe(false);
    expect(needsDependenciesFinished('paused', 'in_progress')).toBe(true);
    expect(needsDependenciesFinished('abandoned', 'paused')).toBe(true);
    expect(needsDependenciesFinished('needs_review', 'failed')).toBe(false);
  });
  it('says how the caller goes on past a dependency: --force, or what it passes instead', () => {
    const t = { ...task, id: '030', dependencies: ['010'] };
    expect(() => checkStatusChange(t, 'in_progress', [s('010')])).toThrow(
      expect.objectContaining({ hint: 'finish or abandon 010 first, or pass --force to start it anyway' }),
    );
    expect(() => checkStatusChange(t, 'needs_review', [s('010')], { override: "report 'paused'" })).toThrow(
      expect.objectContaining({ hint: "finish or abandon 010 first, or report 'paused'" }),
    );
  });
  it('a completed task stays completed: leaving it is refused (exit 3), for every other status', () => {
    const done = { ...task, status: 'completed' as const, completed_at: T1 };
    for (const status of ['pending', 'in_progress', 'needs_review', 'paused', 'failed', 'abandoned'] as const) {
      expect(() => checkStatusChange(done, status, []), status).toThrow(TaskBlockedError);
    }
    expect(() => checkStatusChange(done, 'pending', [])).toThrow(
      `task 010 is completed (since ${T1}), and a completed task stays completed`,
    );
    expect(() => checkStatusChange(done, 'completed', []), 'completing it again is no change').not.toThrow();
    // An abandoned task did no work to keep: it may be taken up again.
    expect(() => checkStatusChange({ ...task, status: 'abandoned' }, 'pending', [])).not.toThrow();
  });
  it('a task is completed only without pending feedback', () => {
    const fb = (status: string) => ({ type: 'feedback', path: 'f.md', created_at: T0, metadata: { status } });
    expect(() => checkStatusChange({ ...task, inputs: [fb('addressed'), fb('pending')] }, 'completed', [])).toThrow(
      /pending feedback \[1\] f.md/,
    );
    expect(() => checkStatusChange({ ...task, inputs: [fb('addressed')] }, 'completed', [])).not.toThrow();
  });
});

describe('task status', () => {
  it('keeps the timestamps true to the status', () => {
    const started = withStatus(task, 'in_progress', T1);
    expect(started).toMatchObject({ status: 'in_progress', started_at: T1, updated_at: T1 });
    expect(started.completed_at).toBeUndefined();
    const done = withStatus(started, 'completed', T1);
    expect(done.completed_at).toBe(T1);
    expect(withStatus(done, 'in_progress', T1).completed_at).toBeUndefined();
    expect(withStatus(withStatus(task, 'in_progress', T0), 'needs_review', T1).started_at).toBe(T0);
  });
  it('summarises a task with the fields lists need', () => {
    expect(summaryOf(task)).toEqual({
      id: '010',
      name: 'x',
      status: 'pending',
      parallel: false,
      dependencies: [],
      assigned_agent: 'implementer',
    });
    // Who works on it, so a list can say when nobody does any more.
    const owner = { kind: 'claim' as const, by: 'ci-7', since: T0, lease_until: T1 };
    const session = {
      executor: 'claude-code',
      type: 'claude',
      agent: 'implementer',
      agent_id: 'implementer-1',
      cwd: '/r',
      started_at: T0,
    };
    expect(summaryOf({ ...task, owner, session })).toMatchObject({ owner, session_agent: 'implementer-1' });
  });
  it('clears the session when the task is completed or abandoned, keeps it otherwise', () => {
    const withSession: TaskState = {
      ...task,
      session_id: 'abc',
      session: {
        executor: 'claude-code',
        type: 'claude',
        agent: 'implementer',
        agent_id: 'implementer-1',
        cwd: '/r',
        started_at: T0,
      },
    };
    expect(withStatus(withSession, 'needs_review', T1).session_id).toBe('abc');
    expect(withStatus(withSession, 'paused', T1).session).toBeDefined();
    for (const status of ['completed', 'abandoned'] as const) {
      const done = withStatus(withSession, status, T1);
      expect(done.session_id).toBeUndefined();
      expect(done.session).toBeUndefined();
    }
  });
});

describe('sortIds', () => {
  it('sorts as compareIds does, ids of one length or of several, in place', () => {
    const ids = ['1000', '010', '990', '1010', '100', '020', '10000', '9990', '000', '123456789'];
    const expected = [...ids].sort(compareIds);
    expect(sortIds(ids)).toBe(ids);
    expect(ids).toEqual(expected);
    expect(ids.slice(0, 6)).toEqual(['000', '010', '020', '100', '990', '1000']);
    // Many, in a shuffled order, as a folder lists them.
    const many = Array.from({ length: 3000 }, (_, i) => String((i + 1) * 7).padStart(3, '0'));
    const shuffled = [...many].sort(() => 0).reverse();
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = (i * 7919) % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    expect(sortIds(shuffled)).toEqual([...many].sort(compareIds));
    expect(sortIds(['020', '010'])).toEqual(['010', '020']);
    expect(sortIds([])).toEqual([]);
  });
});
