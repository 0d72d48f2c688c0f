// The record stage writes a spawn's or resume's plan only on the state it was planned from: a write that finds the
// task changed meanwhile is planned again, so what the other writer did stands beside the worker's start.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { taskFile, toExecuting, worlds, type World } from '../../../test/inproc.js';
import { fakes } from '../../../test/inproc-fakes.js';
import * as workspace from '../workspace.js';
import { resumeAgent } from './resume.js';
import { spawnAgent } from './spawn.js';

const world = worlds({ executing: (w) => toExecuting(w) });

/** Before the first update from now on takes the lock, task 010 is renamed: another writer that came in between. */
function renameOnce(w: World): { writes: () => number } {
  const update = workspace.update;
  let writes = 0;
  vi.spyOn(workspace, 'update').mockImplementation(async (ctx, fn) => {
    if (writes++ === 0) w.write(taskFile('010'), w.read(taskFile('010')).replace(/^name: .*$/m, 'name: Renamed'));
    return update(ctx, fn);
  });
  return { writes: () => writes };
}

afterEach(() => vi.restoreAllMocks());

describe('a worker recorded on a state that changed before the write', () => {
  const setup = async () => {
    const w = await world('executing');
    const f = fakes();
    const opts = { verbose: false, quiet: false, say: () => {} };
    return { w, f, opts, ctx: () => w.ctx(f.env) };
  };

  it('spawn: planned again; the rename stands and the worker ran once', async () => {
    const s = await setup();
    const race = renameOnce(s.w);
    await spawnAgent(s.ctx(), 'implementer', '010', s.opts);
    expect(race.writes()).toBeGreaterThan(1);
    expect(s.f.calls()).toHaveLength(1);
    expect(s.w.yaml(taskFile('010'))).toMatchObject({ name: 'Renamed', session_id: expect.any(String) });
  });

  it('resume: planned again; the rename stands and the session is resumed once', async () => {
    const s = await setup();
    await spawnAgent(s.ctx(), 'implementer', '010', s.opts);
    const race = renameOnce(s.w);
    await resumeAgent(s.ctx(), { kind: 'task', id: '010' }, 'go on', s.opts);
    expect(race.writes()).toBeGreaterThan(1);
    expect(s.f.calls()).toHaveLength(2);
    expect(s.w.yaml(taskFile('010')).name).toBe('Renamed');
  });
});
