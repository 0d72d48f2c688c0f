// A deferred run is recorded later only if its file is in the shape sow writes; anything else is left alone.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deferredRuns } from './deferred-runs.js';

const RUN = {
  version: 1,
  project: { name: 'demo', created_at: '2026-01-01T00:00:00.000Z', branch: 'main' },
  task: '010',
  agent_id: 'implementer-1',
  pid: 42,
  checked_out: 'other',
  entry: { at: '2026-01-01T00:01:00.000Z', agent_id: 'implementer-1' },
};

function read(run: unknown) {
  const root = mkdtempSync(join(tmpdir(), 'sow-deferred-'));
  mkdirSync(join(root, '.git', 'sow', 'deferred-runs'), { recursive: true });
  writeFileSync(join(root, '.git', 'sow', 'deferred-runs', 'run.json'), JSON.stringify(run));
  return deferredRuns(root).map((d) => d.run);
}

describe('deferred runs', () => {
  it('reads a record sow wrote, with or without a task', () => {
    expect(read(RUN)).toEqual([RUN]);
    const { task: _, ...project } = RUN;
    expect(read(project)).toEqual([project]);
  });

  it.each([
    ['another version', { ...RUN, version: 2 }],
    ['an empty agent id', { ...RUN, agent_id: '' }],
    ['an agent id of 401 characters', { ...RUN, agent_id: 'a'.repeat(401) }],
    ['a pid in text', { ...RUN, pid: '42' }],
    ['a pid with a fraction', { ...RUN, pid: 4.2 }],
    ['no project', { ...RUN, project: undefined }],
    ['a project without its branch', { ...RUN, project: { ...RUN.project, branch: undefined } }],
    ['a task of a number', { ...RUN, task: 10 }],
    ['an entry without its time', { ...RUN, entry: { agent_id: 'implementer-1' } }],
    ["an entry of another worker's", { ...RUN, entry: { ...RUN.entry, agent_id: 'implementer-2' } }],
    ['a list', [RUN]],
  ])('leaves alone a record with %s', (_, run) => {
    expect(read(run)).toEqual([]);
  });
});
