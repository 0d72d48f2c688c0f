import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneSupervisedRuns } from './supervisor.js';

const DAY = 24 * 60 * 60 * 1000;
let root: string;
let runs: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sow-supervisors-'));
  runs = join(root, '.git/sow/supervisors');
  mkdirSync(runs, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A run's folder: its ready file, and the `waited` mark a wait leaves (`waitedAt` ms), or none. */
function run(name: string, waitedAt?: number): string {
  const dir = join(runs, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'ready.json'), JSON.stringify({ agent_id: 'implementer-1', pid: 1, task: '010' }));
  if (waitedAt !== undefined) {
    writeFileSync(join(dir, 'waited'), '');
    utimesSync(join(dir, 'waited'), waitedAt / 1000, waitedAt / 1000);
  }
  return dir;
}

describe('pruneSupervisedRuns', () => {
  const now = 1_000 * DAY;

  it('removes the runs a wait reported over a week ago; keeps those reported since and those never reported', () => {
    run('a-reported-long-ago', now - 8 * DAY);
    run('b-reported-yesterday', now - DAY);
    run('c-never-reported');
    expect(pruneSupervisedRuns(root, now)).toBe(1);
    expect(readdirSync(runs).sort()).toEqual(['b-reported-yesterday', 'c-never-reported']);
  });

  it('keeps at most the hundred reported last, however recent', () => {
    for (let i = 0; i < 105; i++) run(`run-${String(i).padStart(3, '0')}`, now - (105 - i) * 60_000);
    expect(pruneSupervisedRuns(root, now)).toBe(5);
    expect(readdirSync(runs)).toHaveLength(100);
    expect(existsSync(join(runs, 'run-004'))).toBe(false);
    expect(existsSync(join(runs, 'run-005'))).toBe(true);
  });

  it(
    'leaves a link alone, and does nothing where the supervisors folder is a link (it may have come with the ' +
      'repository)',
    () => {
      const outside = mkdtempSync(join(tmpdir(), 'sow-outside-'));
      try {
        mkdirSync(join(outside, 'precious'));
        writeFileSync(join(outside, 'precious', 'waited'), '');
        utimesSync(join(outside, 'precious', 'waited'), (now - 30 * DAY) / 1000, (now - 30 * DAY) / 1000);
        symlinkSync(join(outside, 'precious'), join(runs, 'a-link'));
        expect(pruneSupervisedRuns(root, now)).toBe(0);
        expect(existsSync(join(outside, 'precious', 'waited'))).toBe(true);
        rmSync(runs, { recursive: true });
        symlinkSync(outside, runs);
        expect(() => pruneSupervisedRuns(root, now)).toThrow(/supervisors/);
        expect(existsSync(join(outside, 'precious', 'waited'))).toBe(true);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    },
  );

  it('has nothing to do without a supervisors folder', () => {
    rmSync(runs, { recursive: true });
    expect(pruneSupervisedRuns(root, now)).toBe(0);
  });
});
