import { describe, expect, it } from 'vitest';
import type { Actor } from './ownership.js';
import { claimantOf, isOwnedBy, retiredIdentity, unattendedText, workerOf } from './ownership.js';
import type { Owner, TaskState } from './schemas.js';

const T0 = '2026-01-01T00:00:00.000Z';
const claim = (by: string, extra: Partial<Owner> = {}): Owner => ({
  kind: 'claim',
  by,
  since: T0,
  lease_until: T0,
  ...extra,
});
const worker: Owner = { kind: 'worker', by: 'implementer-1', session: 's-1', pid: 42, host: 'h', since: T0 };
const alive = () => true;
const dead = () => false;

describe('who claims', () => {
  it('--owner or SOW_OWNER first, then a worker, then its session alone, then the person at the terminal', () => {
    expect(claimantOf({ by: 'user', owner: 'ci-7', session: 's', person: 'Ada' })).toBe('ci-7');
    expect(claimantOf({ by: 'implementer-2', session: 's', person: 'Ada' })).toBe('implementer-2');
    expect(claimantOf({ by: 'user', session: 's-9' }), 'a session is an identity of its own').toBe('s-9');
    expect(claimantOf({ by: 'user', person: 'Ada Lovelace' })).toBe('Ada Lovelace');
    expect(claimantOf({ by: 'user' }), 'nobody to claim under').toBeUndefined();
  });
});

describe('owning a task', () => {
  it('the session alone owns what it claimed', () => {
    expect(isOwnedBy(claim('s-9', { session: 's-9' }), { by: 'user', session: 's-9' })).toBe(true);
    expect(isOwnedBy(claim('s-9', { session: 's-9' }), { by: 'user', session: 's-8' })).toBe(false);
  });
  it('the person at the terminal owns the claims made under their name, unless they act under another name', () => {
    const actor: Actor = { by: 'user', person: 'Ada' };
    expect(isOwnedBy(claim('Ada'), actor)).toBe(true);
    expect(isOwnedBy(claim('Bob'), actor)).toBe(false);
    expect(isOwnedBy(claim('Ada'), { ...actor, owner: 'ci-7' }), '--owner names who acts').toBe(false);
    expect(isOwnedBy({ ...worker, by: 'Ada' }, actor), 'a worker is owned by its process, not by a person').toBe(false);
  });
  it('a person is never locked out of a task by their name alone; a name they give is', () => {
    const task = { retired_owners: ['Ada', 's-1'] } as TaskState;
    expect(retiredIdentity(task, { by: 'user', person: 'Ada' })).toBeUndefined();
    expect(retiredIdentity(task, { by: 'user', owner: 'Ada' })).toBe('Ada');
    expect(retiredIdentity(task, { by: 'user', session: 's-1' }), 'a session alone is an identity too').toBe('s-1');
  });
});

describe('who works on a task', () => {
  it('a live owner works on it, whatever the status', () => {
    expect(workerOf({ status: 'in_progress', owner: worker }, alive)).toEqual({
      state: 'live',
      kind: 'worker',
      by: 'implementer-1',
    });
    expect(workerOf({ status: 'needs_review', owner: claim('ci-7') }, alive)).toEqual({
      state: 'live',
      kind: 'claim',
      by: 'ci-7',
    });
  });
  it('a task in progress whose owner is gone: the process ended, or the lease ran out', () => {
    expect(workerOf({ status: 'in_progress', owner: worker }, dead)).toEqual({
      state: 'gone',
      kind: 'worker',
      by: 'implementer-1',
      why: 'process_gone',
    });
    expect(workerOf({ status: 'in_progress', owner: claim('ci-7') }, dead)).toEqual({
      state: 'gone',
      kind: 'claim',
      by: 'ci-7',
      why: 'lease_expired',
    });
  });
  it("a task in progress without an owner whose worker's session is recorded: that run ended without a report", () => {
    expect(workerOf({ status: 'in_progress', session_agent: 'implementer-3' }, alive)).toEqual({
      state: 'gone',
      kind: 'worker',
      by: 'implementer-3',
      why: 'run_ended',
    });
  });
  it('nobody known: set in progress by hand, or a stale owner of a task nobody is meant to work on', () => {
    expect(workerOf({ status: 'in_progress' }, alive)).toBeUndefined();
    expect(workerOf({ status: 'needs_review', session_agent: 'implementer-3' }, alive)).toBeUndefined();
    expect(workerOf({ status: 'pending', owner: worker }, dead)).toBeUndefined();
  });
  it("says what to do: resume a worker's session, or claim; a claim without a session: claim or spawn", () => {
    const byWorker = unattendedText(
      { id: '020' },
      { state: 'gone', kind: 'worker', by: 'implementer-1', why: 'process_gone' },
    );
    expect(byWorker).toContain('Nobody works on task 020 any more: its worker implementer-1 is gone');
    expect(byWorker).toContain(`'sow agent resume 020 "<prompt>"'`);
    expect(byWorker).toContain("'sow task next --claim'");
    const byClaim = unattendedText(
      { id: '020', assigned_agent: 'architect' },
      { state: 'gone', kind: 'claim', by: 'ci-7', why: 'lease_expired' },
    );
    expect(byClaim).toContain('the claim of ci-7 ran out');
    expect(byClaim).not.toContain('resume');
    expect(byClaim).toContain("'sow agent spawn architect 020'");
  });
});
