import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isShownChange, isShownRuntimeChange, watchSow } from './watch.js';

describe('isShownChange, isShownRuntimeChange', () => {
  it('state, documents and a worker’s events are news; what sow writes to read is not', () => {
    for (const p of [
      'project/state.yaml',
      'project/phases/implementation/tasks/010/state.yaml',
      'project/phases/implementation/tasks/010/log.md',
      'knowledge/x.md',
      'config.yaml',
    ])
      expect([p, isShownChange(p)]).toEqual([p, true]);
    for (const p of ['project/state.yaml.4242.tmp', 'project/.state.yaml.tmp-1'])
      expect([p, isShownChange(p)]).toEqual([p, false]);
    // The runtime folder (in git's folder): only a worker's events and its supervisor's record.
    for (const p of [
      'agent-outputs/010/2026-11-27T00-00-00-000Z-spawn.events.jsonl',
      'supervisors/2026-11-27-ab/ready.json',
      'supervisors/2026-11-27-ab/result.json',
    ])
      expect([p, isShownRuntimeChange(p)]).toEqual([p, true]);
    for (const p of [
      'lock',
      'tasks.json',
      'journal.json',
      'tmp/x',
      'agent-outputs/010/2026-spawn.jsonl',
      'backup/1/.version',
    ])
      expect([p, isShownRuntimeChange(p)]).toEqual([p, false]);
  });
});

describe('watchSow', () => {
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
    return check();
  };

  for (const poll of [false, true]) {
    it(
      `${poll ? 'by polling' : 'by watching'}: ` + `a burst of changes is told once, and told again for the next`,
      async () => {
        dir = mkdtempSync(join(tmpdir(), 'sow-watch-'));
        mkdirSync(join(dir, '.sow', 'project'), { recursive: true });
        mkdirSync(join(dir, '.git', 'sow', 'tmp'), { recursive: true });
        let told = 0;
        const feed = watchSow(dir, () => told++, { settleMs: 30, pollMs: 50, poll, runtime: join(dir, '.git', 'sow') });
        try {
          writeFileSync(join(dir, '.sow', 'project', 'state.yaml'), 'a: 1\n');
          writeFileSync(join(dir, '.sow', 'project', 'other.md'), 'x\n');
          expect(await until(() => told >= 1)).toBe(true);
          // sow writes a state file whole: a temporary file renamed over it. Each such write is told,
          // not only the first (a watch of the file itself would stay on the replaced one).
          for (let round = 0; round < 3; round++) {
            const after = told;
            mkdirSync(join(dir, '.git', 'sow', 'tmp'), { recursive: true });
            const tmp = join(dir, '.git', 'sow', 'tmp', `w-${round}`);
            writeFileSync(tmp, `a: ${round}${'0'.repeat(round + 1)}\n`);
            renameSync(tmp, join(dir, '.sow', 'project', 'state.yaml'));
            expect(await until(() => told > after), `round ${round}`).toBe(true);
          }
          // A folder that came later (a new task) is watched too.
          const made = told;
          mkdirSync(join(dir, '.sow', 'project', 'tasks', '030'), { recursive: true });
          // (Watching, the new folder is itself news; polling compares files only.)
          if (!poll) expect(await until(() => told > made)).toBe(true);
          const before = told;
          writeFileSync(join(dir, '.sow', 'project', 'tasks', '030', 'state.yaml'), 'id: "030"\n');
          expect(await until(() => told > before)).toBe(true);
          // A worker's events, in the runtime folder: news too, in a folder that came later.
          const events = told;
          mkdirSync(join(dir, '.git', 'sow', 'agent-outputs', '030'), { recursive: true });
          // (A file written in the instant its new folder gets its watch may be missed; a worker appends, so the next
          // line is seen.)
          const file = join(dir, '.git', 'sow', 'agent-outputs', '030', 'x-spawn.events.jsonl');
          expect(await until(() => (appendFileSync(file, '{}\n'), told > events))).toBe(true);
        } finally {
          feed.close();
        }
      },
    );
  }
});
