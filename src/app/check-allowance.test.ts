/** Who may let the declared checks run: SOW_ALLOW_CHECKS, the person's record, and a worker's limits. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { refused, workerEnv, worlds, type World } from '../../test/inproc.js';
import { readRepoConfig } from '../adapters/repo-config.js';
import type { WorkerTrace } from '../adapters/worker-trace.js';
import { allowChecks, allowListing, envAllowance, forgetChecks, requireAllowed, standingsOf } from './check-allowance.js';
import { DEFAULT_TIMEOUT_S, listChecks } from './checks.js';

const agentCli = (allowChecks?: string): WorkerTrace => ({
  nearest: { pid: process.pid, command: 'sow', variable: 'SOW_AGENT_ID', allowChecks: '1' },
  outermost: { pid: process.pid + 1, command: 'claude', variable: 'SOW_AGENT_ID', allowChecks },
});

describe('envAllowance (SOW_ALLOW_CHECKS)', () => {
  it('unset, empty or 0: off; 1 outside a worker: allowed; anything else: a usage error', () => {
    for (const value of [undefined, '', '0']) expect(envAllowance({ SOW_ALLOW_CHECKS: value }, () => undefined)).toEqual({ kind: 'unset' });
    expect(envAllowance({ SOW_ALLOW_CHECKS: '1' }, () => undefined)).toEqual({ kind: 'allowed' });
    for (const value of ['yes', 'true', '2', ' 1']) expect(() => envAllowance({ SOW_ALLOW_CHECKS: value }, () => undefined)).toThrow(expect.objectContaining({ code: 'USAGE', kind: 'usage' }));
  });

  it('inside a worker: honoured only when the worker was started with it', () => {
    expect(envAllowance({ SOW_ALLOW_CHECKS: '1' }, () => agentCli('1'))).toEqual({ kind: 'allowed' });
    expect(envAllowance({ SOW_ALLOW_CHECKS: '1' }, () => agentCli(undefined))).toMatchObject({ kind: 'ignored' });
    // Only this process is known to be a worker (no parents to read): it cannot tell who set it.
    const own: WorkerTrace = { nearest: { pid: process.pid, command: 'sow', variable: 'SOW_AGENT_ID', allowChecks: '1' } };
    expect(envAllowance({ SOW_ALLOW_CHECKS: '1' }, () => own)).toMatchObject({ kind: 'ignored' });
  });
});

// ---------------------------------------------------------------------------------------------
// Allowing, forgetting and judging declared checks, in a repository, with the context's state
// folder (XDG_STATE_HOME) holding the record.
// ---------------------------------------------------------------------------------------------

const world = worlds();
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A repository declaring `checks`, and a person with a state folder of their own. */
async function declaring(checks: string) {
  const w = await world('init');
  w.write('.sow/config.yaml', checks);
  const state = mkdtempSync(join(tmpdir(), 'sow-inproc-allow-'));
  temps.push(state);
  const env = { XDG_STATE_HOME: state };
  return { w, env, ctx: (more: Record<string, string> = {}) => w.ctx({ ...env, ...more }) };
}
const TWO = 'checks:\n  - name: unit\n    run: npm test\n  - name: lint\n    run: npm run lint\n';
const quiet = (shown: string[] = []) => ({ yes: true, interactive: false, confirm: async () => true, show: (t: string) => void shown.push(t) });
const declared = async (w: World) => (await readRepoConfig(w.dir)).config.checks ?? [];

describe('check allow and forget', () => {
  it('allow shows exactly what it records, at the context’s time; then they stand allowed, and a changed command does not', async () => {
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
    expect(shown[0]).toBe(`sow would run these 2 commands of .sow/config.yaml in ${w.dir}, as you, whenever they are needed:\n  unit: npm test\n  lint: npm run lint`);
    const record = JSON.parse(readFileSync(r.record, 'utf8'));
    expect(record.checks.map((c: { allowed_at: string }) => c.allowed_at)).toEqual(['2026-11-26T10:00:05.000Z', '2026-11-26T10:00:05.000Z']);
    expect(standingsOf(w.dir, checks, env)).toMatchObject({ via: 'record', checks: [{ allowed: true }, { allowed: true }] });
    expect(() => requireAllowed(w.dir, checks, 'no check was run', env)).not.toThrow();
    expect((await allowChecks(ctx(), ['unit'], quiet())).already).toEqual(['unit']);

    w.write('.sow/config.yaml', TWO.replace('npm test', 'npm test -- --all'));
    const changed = await declared(w);
    expect(standingsOf(w.dir, changed, env).checks[0]).toMatchObject({ allowed: false, previously: 'npm test' });
    const e = await refused(w, async () => requireAllowed(w.dir, changed, 'no check was run', env), 'CHECKS_NOT_ALLOWED', 1);
    expect(e.message).toBe('no check was run; this command has not been allowed to run on this machine:\n  unit: npm test -- --all\n    (changed; you allowed: npm test)');
    expect(e.hint).toContain("run 'sow check allow'");
    // SOW_ALLOW_CHECKS=1 in the context's environment allows every one, without a record.
    expect(standingsOf(w.dir, changed, { ...env, SOW_ALLOW_CHECKS: '1' })).toMatchObject({ via: 'environment', checks: [{ allowed: true }, { allowed: true }] });
  });

  it('allow without a terminal needs --yes; a no cancels; either way nothing is recorded', async () => {
    const { w, env, ctx } = await declaring(TWO);
    const e = await refused(w, () => allowChecks(ctx(), [], { ...quiet(), yes: false }), 'CONFIRMATION_REQUIRED', 2);
    expect(e.hint).toContain('--yes');
    await refused(w, () => allowChecks(ctx(), ['lint'], { ...quiet(), yes: false, interactive: true, confirm: async () => false }), 'ABORTED', 1);
    expect(standingsOf(w.dir, await declared(w), env).checks.map((c) => c.allowed)).toEqual([false, false]);
    expect((await refused(w, () => allowChecks(ctx(), ['unitt'], quiet()), 'CHECK_NOT_FOUND', 1)).message).toBe("no check named 'unitt'; did you mean 'unit'?");
  });

  it('forget withdraws the checks named, or all; a name nothing is allowed under is refused with what is', async () => {
    const { w, env, ctx } = await declaring(TWO);
    await allowChecks(ctx(), [], quiet());
    const e = await refused(w, () => forgetChecks(ctx(), ['unitt']), 'CHECK_NOT_ALLOWED_HERE', 1);
    expect(e.hint).toBe("allowed here: unit, lint ('sow check list' shows them)");
    expect((await forgetChecks(ctx(), ['lint'])).forgotten).toEqual([{ name: 'lint', run: 'npm run lint' }]);
    expect(standingsOf(w.dir, await declared(w), env).checks.map((c) => c.allowed)).toEqual([true, false]);
    expect((await forgetChecks(ctx(), [])).forgotten).toEqual([{ name: 'unit', run: 'npm test' }]);
    expect((await refused(w, () => forgetChecks(ctx(), ['unit']), 'CHECK_NOT_ALLOWED_HERE', 1)).hint).toBe("nothing is allowed here; 'sow check list' shows the declared checks");
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
    const refusal = await refused(w, async () => requireAllowed(w.dir, checks, 'task 010 was not completed', own), 'CHECKS_NOT_ALLOWED', 1);
    expect(refusal.message).toContain('SOW_ALLOW_CHECKS=1 was not honoured');
    expect(refusal.hint).toMatch(/^a worker cannot allow checks/);
  });

  it('a state folder inside the repository is refused: a commit could change what was allowed', async () => {
    const { w } = await declaring(TWO);
    const e = await refused(w, () => allowChecks(w.ctx({ XDG_STATE_HOME: join(w.dir, 'state') }), [], quiet()), 'CHECKS_RECORD_IN_REPOSITORY', 1);
    expect(e.hint).toContain('XDG_STATE_HOME');
  });
});

describe('check list', () => {
  it('the declared checks with their defaults, and whether each may run here', async () => {
    const { w, ctx } = await declaring('checks:\n  - name: unit\n    run: npm test\n    when: [task_complete]\n    timeout: 60\n  - name: lint\n    run: npm run lint\n');
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
    expect(await listChecks(none.ctx())).toEqual({ file: '.sow/config.yaml', exists: false, checks: [], allowed_by: 'record' });
    none.write('.sow/config.yaml', 'checks:\n  - name: unit\n    runn: x\n');
    await refused(none, () => listChecks(none.ctx()), 'CONFIG_INVALID', 4);
  });
});
