import { describe, expect, it } from 'vitest';
import { checkNewTaskId, nextTaskId, parseDependencies, summaryOf, withStatus } from './tasks.js';
import { InvalidValueError, TaskIdTakenError, TaskNotFoundError, UsageError } from './errors.js';
import type { TaskState, TaskSummary } from './schemas.js';

const s = (id: string): TaskSummary => ({ id, name: id, status: 'pending', parallel: false, dependencies: [] });
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const task: TaskState = { id: '010', name: 'x', phase: 'implementation', status: 'pending', iteration: 1, parallel: false, dependencies: [], created_at: T0, updated_at: T0, inputs: [], outputs: [], metadata: {}, assigned_agent: 'implementer' };

describe('task ids', () => {
  it('gap-numbers from the highest id', () => {
    expect(nextTaskId([])).toBe('010');
    expect(nextTaskId([s('010'), s('020')])).toBe('030');
    expect(nextTaskId([s('010'), s('015')])).toBe('020');
    expect(() => nextTaskId([s('990')])).toThrow(UsageError);
  });
  it('checks explicit ids', () => {
    expect(checkNewTaskId('015', [s('010')])).toBe('015');
    expect(() => checkNewTaskId('10', [])).toThrow(InvalidValueError);
    expect(() => checkNewTaskId('abc', [])).toThrow(InvalidValueError);
    expect(() => checkNewTaskId('010', [s('010')])).toThrow(TaskIdTakenError);
  });
  it('parses dependencies on existing other tasks', () => {
    expect(parseDependencies('010, 020,010', [s('010'), s('020')])).toEqual(['010', '020']);
    expect(() => parseDependencies('030', [s('010')])).toThrow(TaskNotFoundError);
    expect(() => parseDependencies('010', [s('010')], '010')).toThrow(/itself/);
    expect(() => parseDependencies('1', [s('010')])).toThrow(InvalidValueError);
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
  it('summarises a task with the fields the phase keeps', () => {
    expect(summaryOf(task)).toEqual({ id: '010', name: 'x', status: 'pending', parallel: false, dependencies: [], assigned_agent: 'implementer' });
  });
});

describe('sessions', () => {
  it('are cleared when the task is completed or abandoned, kept otherwise', () => {
    const withSession: TaskState = { ...task, session_id: 'abc', session: { executor: 'claude-code', type: 'claude', agent: 'implementer', agent_id: 'implementer-1', cwd: '/r', started_at: T0 } };
    expect(withStatus(withSession, 'needs_review', T1).session_id).toBe('abc');
    expect(withStatus(withSession, 'paused', T1).session).toBeDefined();
    for (const status of ['completed', 'abandoned'] as const) {
      const done = withStatus(withSession, status, T1);
      expect(done.session_id).toBeUndefined();
      expect(done.session).toBeUndefined();
    }
  });
});
