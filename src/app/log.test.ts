/**
 * `sow log` in-process, beyond what project.test.ts covers: the logs of the project and of each
 * task, entries that parse back in order, the refusals (each leaving the state as it was), and the
 * entry a forced reopening writes.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { join } from 'node:path';
import { statSync } from 'node:fs';
import { PROJECT, refused, said, T0, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { LOG_ACTIONS, LOG_RESULTS } from '../domain/agents.js';
import { appendLog, repositoryPath, type LogRequest } from './log.js';
import { leftCompletedEntry } from './log-entry.js';
import { update } from './workspace.js';

const world = worlds({ executing: (w) => toExecuting(w, ['First task', 'Second task']) });

const TASK_LOG = '.sow/project/phases/implementation/tasks/010/log.md';
const PROJECT_LOG = '.sow/project/log.md';

/** A log.md's entries: YAML front matter and body. */
function entries(text: string): { front: any; body: string }[] {
  const out: { front: any; body: string }[] = [];
  const re = /^---\n([\s\S]*?)^---\n\n?([\s\S]*?)(?=^---\n|(?![\s\S]))/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) out.push({ front: parse(m[1]!), body: m[2]!.trim() });
  return out;
}
const req = (r: Partial<LogRequest>): LogRequest => ({
  action: 'research',
  result: 'success',
  files: [],
  project: false,
  notes: '',
  ...r,
});

describe('log', () => {
  it('--project appends to the project log, headed with the project’s name, and touches no task', async () => {
    const w = await world('executing');
    const task = w.read(taskFile('010'));
    w.clock.advance(3);
    const r = await appendLog(
      w.ctx(),
      req({ agent: 'orchestrator', action: 'started_phase', project: true, notes: 'Began implementation' }),
    );
    expect(r).toEqual({ file: PROJECT_LOG, agent: 'orchestrator', files: [], tracked: [] });
    expect(w.read(PROJECT_LOG)).toMatch(/^# Project log: demo\n\n---\n/);
    expect(entries(w.read(PROJECT_LOG))).toEqual([
      {
        front: {
          timestamp: '2026-11-26T10:00:03.000Z',
          agent: 'orchestrator',
          action: 'started_phase',
          result: 'success',
        },
        body: 'Began implementation',
      },
    ]);
    expect(w.read(taskFile('010'))).toBe(task);
  });

  it(
    'entries appended one after another all parse back, in order; the project’s and each task’s logs ' +
      'stay separate',
    async () => {
      const w = await world('executing');
      const project = w.read(PROJECT);
      for (const action of ['started_task', 'implementation_attempt', 'completed_task'])
        await appendLog(w.ctx(), req({ agent: 'implementer-1', action, task: '010', notes: `Did ${action}` }));
      expect(w.read(TASK_LOG)).toMatch(/^# Task log: 010 First task\n\n---\n/);
      expect(entries(w.read(TASK_LOG)).map((e) => [e.front.action, e.body])).toEqual([
        ['started_task', 'Did started_task'],
        ['implementation_attempt', 'Did implementation_attempt'],
        ['completed_task', 'Did completed_task'],
      ]);
      await appendLog(w.ctx(), req({ agent: 'orchestrator', project: true, notes: 'P' }));
      await appendLog(w.ctx(), req({ agent: 'implementer-1', task: '020', notes: 'T' }));
      expect(entries(w.read(PROJECT_LOG)).at(-1)!.body).toBe('P');
      expect(entries(w.read('.sow/project/phases/implementation/tasks/020/log.md')).at(-1)!.body).toBe('T');
      expect(entries(w.read(TASK_LOG)).map((e) => e.body)).not.toContain('T');
      expect(w.read(PROJECT)).toBe(project);
    },
  );

  it(
    '--file and --files name files alike (comma lists, ./ and repeats folded); each becomes a modified ' +
      'output once',
    async () => {
      const w = await world('executing');
      const r = await appendLog(
        w.ctx(),
        req({ action: 'modified_file', task: '010', files: ['src/a.ts', 'src/b.ts', 'src/b.ts,lib/c.ts'] }),
      );
      expect(r.files).toEqual(['src/a.ts', 'src/b.ts', 'lib/c.ts']);
      const again = await appendLog(
        w.ctx(),
        req({ action: 'refactor', result: 'partial', task: '010', files: ['lib/c.ts, src/d.ts', './src/a.ts'] }),
      );
      expect(again).toMatchObject({ files: ['lib/c.ts', 'src/d.ts', 'src/a.ts'], tracked: ['src/d.ts'] });
      expect(w.yaml(taskFile('010')).outputs.map((o: { path: string }) => o.path)).toEqual([
        'src/a.ts',
        'src/b.ts',
        'lib/c.ts',
        'src/d.ts',
      ]);
      expect(w.yaml(taskFile('020')).outputs).toEqual([]);
    },
  );

  it(
    'an entry alone leaves the task file as it was (same bytes, same inode); an entry of a claim’s owner ' +
      'renews its lease',
    async () => {
      const w = await world('executing');
      const abs = join(w.dir, taskFile('010'));
      const before = { text: w.read(taskFile('010')), ino: statSync(abs).ino };
      w.clock.advance(5);
      await appendLog(w.ctx(), req({ agent: 'implementer-1', task: '010', notes: 'Read the parser' }));
      expect(w.read(taskFile('010'))).toBe(before.text);
      expect(statSync(abs).ino).toBe(before.ino);
      expect(entries(w.read(TASK_LOG)).map((e) => e.body)).toEqual(['Read the parser']);

      await update(w.ctx(), async (uow) =>
        uow.setTask({ ...(await uow.task('010')), owner: { kind: 'claim', by: 'ann', since: T0, lease_until: T0 } }),
      );
      w.clock.advance(60);
      await appendLog(w.ctx({ SOW_OWNER: 'ann' }), req({ task: '010', notes: 'Still on it' }));
      expect(w.yaml(taskFile('010')).owner.lease_until).not.toBe(T0);
      expect(Date.parse(w.yaml(taskFile('010')).owner.lease_until)).toBeGreaterThan(Date.parse(w.ctx().now()));
      const claimed = w.read(taskFile('010'));
      // Someone else's entry renews nothing.
      w.clock.advance(60);
      await appendLog(w.ctx({ SOW_OWNER: 'bob' }), req({ task: '010', notes: 'Had a look' }));
      expect(w.read(taskFile('010'))).toBe(claimed);
      expect(entries(w.read(TASK_LOG)).map((e) => e.body)).toEqual(['Read the parser', 'Still on it', 'Had a look']);
    },
  );

  it(
    'refusals leave the state as it was: an action or result outside its list, no place to log, both places, a file ' +
      'outside the repository, an unknown task',
    async () => {
      const w = await world('executing');
      const action = said(
        await refused(w, () => appendLog(w.ctx(), req({ action: 'coded', task: '010' })), 'USAGE', 2),
      );
      expect(action).toContain("'coded'");
      for (const valid of LOG_ACTIONS) expect(action, valid).toContain(valid);
      const result = said(
        await refused(w, () => appendLog(w.ctx(), req({ result: 'great', task: '010' })), 'USAGE', 2),
      );
      expect(result).toContain("'great'");
      for (const valid of LOG_RESULTS) expect(result, valid).toContain(valid);
      const nowhere = said(await refused(w, () => appendLog(w.ctx(), req({ notes: 'notes' })), 'USAGE', 2));
      expect(nowhere).toMatch(/--task/);
      expect(nowhere).toMatch(/--project/);
      await refused(w, () => appendLog(w.ctx(), req({ task: '010', project: true })), 'USAGE', 2);
      for (const file of ['/etc/passwd', '../outside.ts', 'src/../../outside.ts']) {
        const e = await refused(
          w,
          () => appendLog(w.ctx(), req({ action: 'modified_file', task: '010', files: ['src/ok.ts', file] })),
          'PATH_OUTSIDE_REPOSITORY',
          1,
        );
        expect(e.message).toContain(file);
        expect(e.message).toContain('outside the repository');
      }
      expect(
        (await refused(w, () => appendLog(w.ctx(), req({ task: '999', files: ['src/a.ts'] })), 'TASK_NOT_FOUND', 1))
          .message,
      ).toContain("'999'");
      expect(w.exists('.sow/project/phases/implementation/tasks/999')).toBe(false);
    },
  );

  it(
    'a repository path: from where the user stands, or absolute; the root itself and anything outside are refused, ' +
      "a name beginning with '..' is inside",
    async () => {
      const w = await world('executing');
      expect(repositoryPath(w.dir, `${w.dir}/pkg`, 'index.ts')).toBe('pkg/index.ts');
      expect(repositoryPath(w.dir, `${w.dir}/pkg`, '../src/x.ts')).toBe('src/x.ts');
      expect(repositoryPath(w.dir, w.dir, `${w.dir}/src/y.ts`)).toBe('src/y.ts');
      expect(repositoryPath(w.dir, w.dir, '..x')).toBe('..x');
      expect(repositoryPath(w.dir, `${w.dir}/pkg`, '../..x/y.ts')).toBe('..x/y.ts');
      for (const file of ['.', '..', '../x', '/tmp'])
        expect(() => repositoryPath(w.dir, w.dir, file), file).toThrow(
          expect.objectContaining({ code: 'PATH_OUTSIDE_REPOSITORY' }),
        );
    },
  );

  it(
    'a completed task reopened with --force: ' + 'its log says since when it had been completed, by whom and how',
    async () => {
      const w = await world('executing');
      w.clock.advance(9);
      const completed = { id: '010', completed_at: '2026-11-25T08:00:00.000Z' };
      const phase = 'implementation';
      await update(w.ctx(), async (uow) =>
        uow.tx.appendEntry(leftCompletedEntry(phase, uow.now, completed, 'in_progress', 'implementer-2')),
      );
      await update(w.ctx(), async (uow) =>
        uow.tx.appendEntry(leftCompletedEntry(phase, uow.now, { id: '010' }, 'pending', 'user', 'task next --claim')),
      );
      expect(entries(w.read(TASK_LOG))).toEqual([
        {
          front: { timestamp: '2026-11-26T10:00:09.000Z', agent: 'implementer-2', action: 'note', result: 'success' },
          body:
            'Reopened with --force (set in_progress): the task had been completed since 2026-11-25T08:00:00.000Z; ' +
            'its status is now in_progress.',
        },
        {
          front: { timestamp: '2026-11-26T10:00:09.000Z', agent: 'user', action: 'note', result: 'success' },
          body:
            'Reopened with --force (task next --claim): the task had been completed since an unknown time; its ' +
            'status is now pending.',
        },
      ]);
    },
  );
});
