/** Who may let the declared checks run: SOW_ALLOW_CHECKS, the person's record, and a worker's limits. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { refused, said, taskFile, toExecuting, workerEnv, worlds, type World } from '../../test/inproc.js';
import { readRepoConfig } from '../adapters/repo-config.js';
import type { WorkerTrace } from '../adapters/worker-trace.js';
import {
  allowChecks,
  allowListing,
  envAllowance,
  forgetChecks,
  requireAllowed,
  standingsOf,
} from './check-allowance.js';
import { checkRun, DEFAULT_TIMEOUT_S } from './checks.js';
import { listChecks } from './check-list.js';
import { setTaskField } from './task-change.js';

const agentCli = (allowChecks?: string): WorkerTrace => ({
  nearest: { pid: process.pid, command: 'sow', variable: 'SOW_AGENT_ID', allowChecks: '1' },
  outermost: { pid: process.pid + 1, command: 'claude', variable: 'SOW_AGENT_ID', allowChecks },
});

describe('envAllowance (SOW_ALLOW_CHECKS)', () => {
  it('unset, empty or 0: off; 1 outside a worker: allowed; anything else: a usage error', () => {
    for (const value of [undefined, '', '0'])
      expect(envAllowance({ SOW_ALLOW_CHECKS: value }, () => undefined)).toEqual({ kind: 'unset' });
    expect(envAllowance({ SOW_ALLOW_CHECKS: '1' }, () => undefined)).toEqual({ kind: 'allowed' });
    for (const value of ['yes', 'true', '2', ' 1'])
      expect(() => envAllowance({ SOW_ALLOW_CHECKS: value }, () => undefined)).toThrow(
        expect.objectContaining({ code: 'USAGE', kind: 'usage' }),
      );
  });

  it('inside a worker: honoured only when the worker was started with it', () => {
    expect(envAllowance({ SOW_ALLOW_CHECKS: '1' }, () => agentCli('1'))).toEqual({ kind: 'allowed' });
    expect(envAllowance({ SOW_ALLOW_CHECKS: '1' }, () => agentCli(undefined))).toMatchObject({ kind: 'ignored' });
    // Only this process is known to be a worker (no parents to read): it cannot tell who set it.
    const own: WorkerTrace = {
      nearest: { pid: process.pid, command: 'sow', variable: 'SOW_AGENT_ID', allowChecks: '1' },
    };
    expect(envAllowance({ SOW_ALLOW_CHECKS: '1' }, () => own)).toMatchObject({ kind: 'ignored' });
  });
});

// ---------------------------------------------------------------------------------------------
// Allowing, forgetting and judging declared checks, in a repository, with the context's state
// folder (XDG_STATE_HOME) holding the record.
// ---------------------------------------------------------------------------------------------

const world = worlds({
  // A standard project in ImplementationExecuting, task 010 in progress: checks have somewhere to record evidence.
  executing: async (w) => {
    await toExecuting(w, ['Only task']);
    await setTaskField(w.ctx(), '010', 'status', 'in_progress');
  },
});
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
/** A folder outside the repository. */
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'sow-inproc-allow-'));
  temps.push(d);
  return d;
}

/**
 * A repository declaring `checks` (with a project when `from` is 'executing'), and a person with a state folder of
 * their own.
 */
async function declaring(checks: string, from: 'init' | 'executing' = 'init', state = scratch()) {
  const w = await world(from);
  w.write('.sow/config.yaml', checks);
  const env = { XDG_STATE_HOME: state };
  return { w, env, ctx: (more: Record<string, string> = {}) => w.ctx({ ...env, ...more }) };
}
const checkYaml = (c: { name: string; run: string; when?: string[]; timeout?: number }) =>
  `  - name: ${c.name}\n    run: ${JSON.stringify(c.run)}\n` +
  (c.when ? `    when: [${c.when.join(', ')}]\n` : '') +
  (c.timeout ? `    timeout: ${c.timeout}\n` : '');
const checksYaml = (checks: { name: string; run: string; when?: string[]; timeout?: number }[]) =>
  `checks:\n${checks.map(checkYaml).join('')}`;
/** A command that leaves a marker outside the repository when it runs: the marker, and the command. */
function marking(): { marker: string; run: string } {
  const marker = join(scratch(), 'ran');
  return { marker, run: `touch ${marker}` };
}
const TWO = 'checks:\n  - name: unit\n    run: npm test\n  - name: lint\n    run: npm run lint\n';
const quiet = (shown: string[] = []) => ({
  yes: true,
  interactive: false,
  confirm: async () => true,
  show: (t: string) => void shown.push(t),
});
const declared = async (w: World) => (await readRepoConfig(w.dir)).config.checks ?? [];

describe('check allow and forget', () => {
  it(
    'allow shows exactly what it records, at the context’s time; then they stand allowed, and a changed ' +
      'command does not',
    async () => {
      const { w, env, ctx } = await declaring(TWO);
      const checks = await declared(w);
      expect(standingsOf(w.dir, checks, env).checks.map((c) => c.allowed)).toEqual([false, false]);
      const shown: string[] = [];
      w.clock.advance(5);
      const r = await allowChecks(ctx(), [], quiet(shown));
      expect(r).toMatchObject({
        allowed: [
          { name: 'unit', run: 'npm test' },
          { name: 'lint', run: 'npm run lint' },
        ],
        already: [],
      });
      expect(shown).toEqual([allowListing(w.dir, r.allowed)]);
      expect(shown[0]).toBe(
        `sow would run these 2 commands of .sow/config.yaml in ${w.dir}, as you, whenever they are needed:\n  unit: ` +
          `npm test\n  lint: npm run lint`,
      );
      const record = JSON.parse(readFileSync(r.record, 'utf8'));
      expect(record.checks.map((c: { allowed_at: string }) => c.allowed_at)).toEqual([
        '2026-11-26T10:00:05.000Z',
        '2026-11-26T10:00:05.000Z',
      ]);
      expect(standingsOf(w.dir, checks, env)).toMatchObject({
        via: 'record',
        checks: [{ allowed: true }, { allowed: true }],
      });
      expect(() => requireAllowed(w.dir, checks, 'no check was run', env)).not.toThrow();
      expect((await allowChecks(ctx(), ['unit'], quiet())).already).toEqual(['unit']);

      w.write('.sow/config.yaml', TWO.replace('npm test', 'npm test -- --all'));
      const changed = await declared(w);
      expect(standingsOf(w.dir, changed, env).checks[0]).toMatchObject({ allowed: false, previously: 'npm test' });
      const e = await refused(
        w,
        async () => requireAllowed(w.dir, changed, 'no check was run', env),
        'CHECKS_NOT_ALLOWED',
        1,
      );
      expect(e.message).toBe(
        'no check was run; this command has not been allowed to run on this machine:\n  unit: npm test -- --all\n    ' +
          '(changed; you allowed: npm test)',
      );
      expect(e.hint).toContain("run 'sow check allow'");
      // SOW_ALLOW_CHECKS=1 in the context's environment allows every one, without a record.
      expect(standingsOf(w.dir, changed, { ...env, SOW_ALLOW_CHECKS: '1' })).toMatchObject({
        via: 'environment',
        checks: [{ allowed: true }, { allowed: true }],
      });
    },
  );

  it('allow without a terminal needs --yes; a no cancels; either way nothing is recorded', async () => {
    const { w, env, ctx } = await declaring(TWO);
    const e = await refused(w, () => allowChecks(ctx(), [], { ...quiet(), yes: false }), 'CONFIRMATION_REQUIRED', 2);
    expect(e.hint).toContain('--yes');
    await refused(
      w,
      () => allowChecks(ctx(), ['lint'], { ...quiet(), yes: false, interactive: true, confirm: async () => false }),
      'ABORTED',
      1,
    );
    expect(standingsOf(w.dir, await declared(w), env).checks.map((c) => c.allowed)).toEqual([false, false]);
    expect((await refused(w, () => allowChecks(ctx(), ['unitt'], quiet()), 'CHECK_NOT_FOUND', 1)).message).toBe(
      "no check named 'unitt'; did you mean 'unit'?",
    );
  });

  it('forget withdraws the checks named, or all; a name nothing is allowed under is refused with what is', async () => {
    const { w, env, ctx } = await declaring(TWO);
    await allowChecks(ctx(), [], quiet());
    const e = await refused(w, () => forgetChecks(ctx(), ['unitt']), 'CHECK_NOT_ALLOWED_HERE', 1);
    expect(e.hint).toBe("allowed here: unit, lint ('sow check list' shows them)");
    expect((await forgetChecks(ctx(), ['lint'])).forgotten).toEqual([{ name: 'lint', run: 'npm run lint' }]);
    expect(standingsOf(w.dir, await declared(w), env).checks.map((c) => c.allowed)).toEqual([true, false]);
    expect((await forgetChecks(ctx(), [])).forgotten).toEqual([{ name: 'unit', run: 'npm test' }]);
    expect((await refused(w, () => forgetChecks(ctx(), ['unit']), 'CHECK_NOT_ALLOWED_HERE', 1)).hint).toBe(
      "nothing is allowed here; 'sow check list' shows the declared checks",
    );
  });

  it('a worker can neither allow nor forget, and its own SOW_ALLOW_CHECKS=1 is not honoured', async () => {
    const { w, env } = await declaring(TWO);
    const worker = w.ctx({ ...env, ...workerEnv('implementer-1', '010') });
    const e = await refused(w, () => allowChecks(worker, [], quiet()), 'WORKER_CANNOT_ALLOW', 1);
    expect(e.message).toContain('SOW_AGENT_ID in its own environment');
    await refused(w, () => forgetChecks(worker, []), 'WORKER_CANNOT_ALLOW', 1);
    const checks = await declared(w);
    const own = { ...env, ...workerEnv('implementer-1', '010'), SOW_ALLOW_CHECKS: '1' };
    expect(standingsOf(w.dir, checks, own).env.kind).toBe('ignored');
    const refusal = await refused(
      w,
      async () => requireAllowed(w.dir, checks, 'task 010 was not completed', own),
      'CHECKS_NOT_ALLOWED',
      1,
    );
    expect(refusal.message).toContain('SOW_ALLOW_CHECKS=1 was not honoured');
    expect(refusal.hint).toMatch(/^a worker cannot allow checks/);
  });

  it('a state folder inside the repository is refused: a commit could change what was allowed', async () => {
    const { w } = await declaring(TWO);
    const e = await refused(
      w,
      () => allowChecks(w.ctx({ XDG_STATE_HOME: join(w.dir, 'state') }), [], quiet()),
      'CHECKS_RECORD_IN_REPOSITORY',
      1,
    );
    expect(e.hint).toContain('XDG_STATE_HOME');
  });
});

describe('check list', () => {
  it('the declared checks with their defaults, and whether each may run here', async () => {
    const { w, ctx } = await declaring(
      'checks:\n  - name: unit\n    run: npm test\n    when: [task_complete]\n    timeout: 60\n  - name: lint\n    ' +
        'run: npm run lint\n',
    );
    await allowChecks(ctx(), ['unit'], quiet());
    expect(await listChecks(ctx())).toEqual({
      file: '.sow/config.yaml',
      exists: true,
      allowed_by: 'record',
      checks: [
        { name: 'unit', run: 'npm test', when: ['task_complete'], timeout: 60, allowed: true },
        { name: 'lint', run: 'npm run lint', when: [], timeout: DEFAULT_TIMEOUT_S, allowed: false },
      ],
    });
    expect((await listChecks(ctx({ SOW_ALLOW_CHECKS: '1' }))).allowed_by).toBe('environment');
    const none = await world('init');
    expect(await listChecks(none.ctx())).toEqual({
      file: '.sow/config.yaml',
      exists: false,
      checks: [],
      allowed_by: 'record',
    });
    none.write('.sow/config.yaml', 'checks:\n  - name: unit\n    runn: x\n');
    await refused(none, () => listChecks(none.ctx()), 'CONFIG_INVALID', 4);
  });
});

// ---------------------------------------------------------------------------------------------
// Moved from test/e2e/checks-allowed.test.ts: what a record allows, per repository, and read
// strictly. The command line keeps the words of a refusal, one damaged record through each
// command, forget's lines, and SOW_ALLOW_CHECKS as the environment of a real process.
// ---------------------------------------------------------------------------------------------

describe('what a record allows', () => {
  it(
    'exactly the command under its name: a changed command is refused again by check run and completion; when and ' +
      'timeout may change; a new name is a new check, recorded beside the earlier',
    async () => {
      const { w, ctx } = await declaring(
        checksYaml([{ name: 'unit', run: 'true', when: ['task_complete'] }]),
        'executing',
      );
      await allowChecks(ctx(), [], quiet());
      await checkRun(ctx(), []);

      const { marker, run: changed } = marking();
      w.write('.sow/config.yaml', checksYaml([{ name: 'unit', run: `true; ${changed}`, when: ['task_complete'] }]));
      const completion = await refused(
        w,
        () => setTaskField(ctx(), '010', 'status', 'completed'),
        'CHECKS_NOT_ALLOWED',
        1,
      );
      expect(completion.message).toContain(`  unit: true; ${changed}\n    (changed; you allowed: true)`);
      const run = await refused(w, () => checkRun(ctx(), []), 'CHECKS_NOT_ALLOWED', 1);
      expect(run.details?.['checks']).toEqual([{ name: 'unit', run: `true; ${changed}`, previously: 'true' }]);
      expect((await listChecks(ctx())).checks[0]).toMatchObject({ allowed: false, previously: 'true' });
      expect(w.yaml(taskFile('010')).status).toBe('in_progress');
      expect(existsSync(marker)).toBe(false);

      // Back to the allowed command, with another when and timeout: still allowed (they do not change what runs).
      w.write('.sow/config.yaml', checksYaml([{ name: 'unit', run: 'true', when: ['finalize'], timeout: 5 }]));
      expect((await checkRun(ctx(), [])).runs.map((r) => r.passed)).toEqual([true]);
      // The same command under a new name is a new check; allowing it records it beside the earlier one.
      w.write('.sow/config.yaml', checksYaml([{ name: 'unit2', run: 'true' }]));
      expect((await refused(w, () => checkRun(ctx(), []), 'CHECKS_NOT_ALLOWED', 1)).message).toContain('  unit2: true');
      const r = await allowChecks(ctx(), ['unit2'], quiet());
      expect(
        JSON.parse(readFileSync(r.record, 'utf8')).checks.map((c: { name: string; run: string }) => [c.name, c.run]),
      ).toEqual([
        ['unit', 'true'],
        ['unit2', 'true'],
      ]);
    },
  );

  it('check run of named checks needs only those allowed', async () => {
    const { marker, run } = marking();
    const { w, ctx } = await declaring(
      checksYaml([
        { name: 'unit', run: 'true' },
        { name: 'pwn', run },
      ]),
      'executing',
    );
    await allowChecks(ctx(), ['unit'], quiet());
    expect((await checkRun(ctx(), ['unit'])).runs.map((r) => r.name)).toEqual(['unit']);
    await refused(w, () => checkRun(ctx(), ['pwn']), 'CHECKS_NOT_ALLOWED', 1);
    await refused(w, () => checkRun(ctx(), []), 'CHECKS_NOT_ALLOWED', 1);
    expect(existsSync(marker)).toBe(false);
  });

  it(
    'per repository: another copy of the same repository is asked again; a check forgotten is refused again; ' +
      'forgetting the last removes the record',
    async () => {
      const { marker, run } = marking();
      const config = checksYaml([
        { name: 'unit', run: 'true' },
        { name: 'pwn', run },
      ]);
      const { w, env, ctx } = await declaring(config, 'executing');
      const other = await declaring(config, 'executing', env.XDG_STATE_HOME);
      const { record } = await allowChecks(ctx(), [], quiet());
      expect((await refused(other.w, () => checkRun(other.ctx(), []), 'CHECKS_NOT_ALLOWED', 1)).message).toContain(
        `  unit: true\n  pwn: ${run}`,
      );

      expect((await forgetChecks(ctx(), ['pwn'])).forgotten).toEqual([{ name: 'pwn', run }]);
      await checkRun(ctx(), ['unit']);
      const e = await refused(w, () => checkRun(ctx(), []), 'CHECKS_NOT_ALLOWED', 1);
      expect(e.message).toContain(`  pwn: ${run}`);
      expect(e.message).not.toContain('unit:');
      expect((await forgetChecks(ctx(), [])).forgotten).toEqual([{ name: 'unit', run: 'true' }]);
      expect(existsSync(record), 'an empty record is removed').toBe(false);
      await refused(w, () => checkRun(ctx(), ['unit']), 'CHECKS_NOT_ALLOWED', 1);
      expect((await forgetChecks(ctx(), [])).forgotten).toEqual([]);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it(
    'SOW_ALLOW_CHECKS in the context: 1 lets a completion run its checks without a record; 0 is off; another value ' +
      'is a usage error before anything runs',
    async () => {
      const { marker, run } = marking();
      const { w, env, ctx } = await declaring(checksYaml([{ name: 'pwn', run, when: ['task_complete'] }]), 'executing');
      await refused(w, () => checkRun(ctx({ SOW_ALLOW_CHECKS: '0' }), []), 'CHECKS_NOT_ALLOWED', 1);
      await refused(w, () => setTaskField(ctx({ SOW_ALLOW_CHECKS: 'yes' }), '010', 'status', 'completed'), 'USAGE', 2);
      expect(existsSync(marker)).toBe(false);
      await setTaskField(ctx({ SOW_ALLOW_CHECKS: '1' }), '010', 'status', 'completed');
      expect(existsSync(marker)).toBe(true);
      expect(w.yaml(taskFile('010')).status).toBe('completed');
      expect(existsSync(join(env.XDG_STATE_HOME, 'sow')), 'nothing recorded').toBe(false);
    },
  );

  it('a state folder inside the repository: check run is refused too, and the folder is not made', async () => {
    const { marker, run } = marking();
    const { w } = await declaring(checksYaml([{ name: 'pwn', run }]), 'executing');
    const state = join(w.dir, 'state');
    await refused(w, () => checkRun(w.ctx({ XDG_STATE_HOME: state }), []), 'CHECKS_RECORD_IN_REPOSITORY', 1);
    expect(existsSync(state)).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the record is the person's: read strictly", () => {
  const cases: [string, (file: string) => void, string][] = [
    ['not JSON', (f) => writeFileSync(f, '{ "version": 1, '), 'it is not valid JSON'],
    [
      'another shape',
      (f) => writeFileSync(f, JSON.stringify({ allowed: 'everything' })),
      'it is not a record sow wrote',
    ],
    [
      'another repository',
      (f) => writeFileSync(f, JSON.stringify({ version: 1, repository: '/elsewhere', checks: [] })),
      'it names the repository "/elsewhere"',
    ],
    [
      'a command edited without its hash',
      (f) => {
        const record = JSON.parse(readFileSync(f, 'utf8'));
        record.checks[0].run = 'touch /tmp/anything';
        writeFileSync(f, JSON.stringify(record));
      },
      "checks[0] ('unit'): its sha256 is not the hash of its name and command",
    ],
    [
      'too big',
      (f) => writeFileSync(f, ' '.repeat(300 * 1024)),
      'it is 307200 bytes, more than the 262144 such a record can be',
    ],
    [
      'a folder',
      (f) => {
        rmSync(f);
        mkdirSync(f);
      },
      'it is not a file',
    ],
  ];
  it.each(cases)(
    '%s: CHECKS_RECORD_INVALID (exit 4) from check run, a completion, allow and list; never read as allowed; ' +
      'nothing ran; the record stays',
    async (_label, damage, problem) => {
      const { marker, run } = marking();
      const { w, ctx } = await declaring(checksYaml([{ name: 'unit', run, when: ['task_complete'] }]), 'executing');
      const { record } = await allowChecks(ctx(), [], quiet());
      damage(record);
      const damaged = statSync(record).isFile() ? readFileSync(record, 'utf8') : 'a folder';
      for (const [what, attempt] of [
        ['check run', () => checkRun(ctx(), [])],
        ['completion', () => setTaskField(ctx(), '010', 'status', 'completed')],
        ['allow', () => allowChecks(ctx(), [], quiet())],
        ['list', () => listChecks(ctx())],
      ] as const) {
        const text = said(await refused(w, attempt, 'CHECKS_RECORD_INVALID', 4));
        expect(text.startsWith(`${record}: ${problem}`), `${what}: ${text}`).toBe(true);
        expect(
          text.endsWith(
            `; it records which checks you allowed to run, and sow will not guess\nlook at it; or remove it ` +
              `('rm ${record}') and allow this repository's checks again with 'sow check allow'`,
          ),
          `${what}: ${text}`,
        ).toBe(true);
      }
      expect(existsSync(marker)).toBe(false);
      expect(statSync(record).isFile() ? readFileSync(record, 'utf8') : 'a folder', 'allow did not overwrite it').toBe(
        damaged,
      );
    },
  );
});
