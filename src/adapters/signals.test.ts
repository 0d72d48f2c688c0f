import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Owner } from '../domain/schemas.js';
import type { OwnerRecord } from '../domain/signal-proof.js';
import { BOOT, PIDNS, processStat, thisProcess } from './liveness.js';
import { ensureRuntimeDir } from './runtime.js';
import {
  groupAlive,
  proveOwnerNow,
  readOwnerRecord,
  removeOwnerRecord,
  signalOwner,
  writeOwnerRecord,
} from './signals.js';

const T0 = '2026-01-01T00:00:00.000Z';
let root: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sow-signals-'));
  mkdirSync(join(root, '.git'));
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

const me = thisProcess();
const ownerOf = (r: { pid: number; pstart?: number }, by = 'implementer-1'): Owner => ({
  kind: 'worker',
  by,
  pid: r.pid,
  host: me.host,
  ...(BOOT !== undefined ? { boot: BOOT } : {}),
  ...(r.pstart !== undefined ? { pstart: r.pstart } : {}),
  ...(PIDNS !== undefined ? { pidns: PIDNS } : {}),
  since: T0,
});

const owners = () => ensureRuntimeDir(root, 'owners');

/** A child `sleep` (in a group of its own with `detached`), and the record its sow would have written. */
function sleeper(detached: boolean): { child: ChildProcess; record: OwnerRecord } {
  const child = spawn('sleep', ['1000'], { detached, stdio: 'ignore' });
  children.push(child);
  const pid = child.pid!;
  const stat = processStat(pid)!;
  const record: OwnerRecord = {
    pid,
    pstart: stat.start,
    boot: BOOT!,
    pidns: PIDNS!,
    host: hostname(),
    pgrp: stat.pgrp,
    task: '010',
    agent_id: 'implementer-1',
    nonce: 'n',
  };
  writeFileSync(join(owners(), `${pid}-${stat.start}.json`), JSON.stringify(record));
  return { child, record };
}

const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.signalCode)
      : child.once('exit', (_c, s) => resolve(s)),
  );

describe('the owner record', () => {
  it(
    'is written by the owning process into the runtime folder, read back whole, and proves that process; removed ' +
      'only while it is its own',
    () => {
      const record = writeOwnerRecord(root, { task: '010', agent_id: 'implementer-1' });
      expect(record).toMatchObject({
        pid: process.pid,
        host: hostname(),
        task: '010',
        agent_id: 'implementer-1',
        nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      expect(record.pgrp).toBe(processStat(process.pid)?.pgrp);
      expect(readOwnerRecord(root, process.pid, me.pstart)).toEqual(record);
      // Proven, and not signalled here: this is the test's own process.
      const proof = proveOwnerNow(root, '010', ownerOf(me));
      expect(proof).toMatchObject({
        ok: true,
        pid: process.pid,
        target: record.pgrp === process.pid ? 'group' : 'process',
      });
      expect(proveOwnerNow(root, '020', ownerOf(me))).toMatchObject({ ok: false, gone: false, why: 'other_task' });
      expect(proveOwnerNow(root, '010', ownerOf(me, 'implementer-2'))).toMatchObject({
        ok: false,
        gone: false,
        why: 'other_task',
      });
      // A newer record of this process (it owns the task again, under a new run) is not removed by the older run's end.
      const newer = writeOwnerRecord(root, { task: '010', agent_id: 'implementer-2' });
      removeOwnerRecord(root, record);
      expect(readOwnerRecord(root, process.pid, me.pstart)).toEqual(newer);
      removeOwnerRecord(root, newer);
      expect(readOwnerRecord(root, process.pid, me.pstart)).toBeUndefined();
      expect(proveOwnerNow(root, '010', ownerOf(me))).toMatchObject({ ok: false, gone: false, why: 'no_record' });
    },
  );

  it('what is not a record sow wrote proves nothing: a link, a FIFO, an oversize file, another form, pid 1', () => {
    const name = join(owners(), `${process.pid}-${me.pstart ?? 0}.json`);
    const real = {
      pid: process.pid,
      pstart: me.pstart,
      boot: BOOT,
      pidns: PIDNS,
      host: me.host,
      task: '010',
      agent_id: 'implementer-1',
      nonce: 'n',
    };
    const target = join(root, 'elsewhere.json');
    writeFileSync(target, JSON.stringify(real));
    symlinkSync(target, name);
    expect(readOwnerRecord(root, process.pid, me.pstart), 'a link').toBeUndefined();
    rmSync(name);
    execFileSync('mkfifo', [name]);
    expect(readOwnerRecord(root, process.pid, me.pstart), 'a FIFO (and the read did not block)').toBeUndefined();
    rmSync(name);
    writeFileSync(name, JSON.stringify({ ...real, pad: 'x'.repeat(5000) }));
    expect(readOwnerRecord(root, process.pid, me.pstart), 'oversize').toBeUndefined();
    for (const bad of [
      { ...real, pid: String(process.pid) },
      { ...real, nonce: undefined },
      { ...real, pstart: 'x' },
      [real],
      null,
    ]) {
      writeFileSync(name, JSON.stringify(bad));
      expect(readOwnerRecord(root, process.pid, me.pstart), JSON.stringify(bad)).toBeUndefined();
    }
    writeFileSync(name, JSON.stringify(real));
    expect(readOwnerRecord(root, process.pid, me.pstart)).toMatchObject({ pid: process.pid });
    for (const pid of [1, 0, -1, -process.pid])
      expect(readOwnerRecord(root, pid, undefined), `pid ${pid}`).toBeUndefined();
  });

  it('a runtime folder that is a link is no place for records', () => {
    const outside = mkdtempSync(join(tmpdir(), 'sow-signals-outside-'));
    try {
      ensureRuntimeDir(root);
      symlinkSync(outside, join(root, '.git', 'sow', 'owners'));
      writeFileSync(
        join(outside, `${process.pid}-${me.pstart ?? 0}.json`),
        JSON.stringify({
          pid: process.pid,
          pstart: me.pstart,
          boot: BOOT,
          pidns: PIDNS,
          host: me.host,
          task: '010',
          agent_id: 'implementer-1',
          nonce: 'n',
        }),
      );
      expect(readOwnerRecord(root, process.pid, me.pstart)).toBeUndefined();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe.runIf(process.platform === 'linux')('signalOwner (Linux)', () => {
  it('a proven group leader gets the signal as a group', async () => {
    const { child, record } = sleeper(true);
    const proof = proveOwnerNow(root, '010', ownerOf(record));
    expect(proof).toMatchObject({ ok: true, pid: record.pid, target: 'group' });
    expect(signalOwner(proof, 'SIGTERM')).toBe('group');
    expect(await exited(child)).toBe('SIGTERM');
  });

  it('a proven process that leads no group gets it alone, never its group (the test runner’s)', async () => {
    const { child, record } = sleeper(false);
    const proof = proveOwnerNow(root, '010', ownerOf(record));
    expect(proof).toMatchObject({ ok: true, pid: record.pid, target: 'process' });
    expect(signalOwner(proof, 'SIGTERM')).toBe('process');
    expect(await exited(child)).toBe('SIGTERM');
  });

  it('a proven process that has ended since: nothing is sent', async () => {
    const { child, record } = sleeper(true);
    const proof = proveOwnerNow(root, '010', ownerOf(record));
    child.kill('SIGKILL');
    await exited(child);
    expect(signalOwner(proof, 'SIGTERM')).toBe('gone');
    expect(groupAlive(record.pid)).toBe(false);
  });

  it('only a proof proveOwnerNow made, and only a positive one, is signalled; nothing else is sent', async () => {
    const { child, record } = sleeper(true);
    const forged = {
      ok: true as const,
      pid: record.pid,
      target: 'group' as const,
      pstart: record.pstart!,
      here: { host: hostname(), linux: true },
    };
    expect(() => signalOwner(forged, 'SIGTERM')).toThrow(/only a proof/);
    const refused = proveOwnerNow(root, '010', { ...ownerOf(record), host: 'other-host' });
    expect(refused).toMatchObject({ ok: false, why: 'other_host' });
    expect(() => signalOwner(refused, 'SIGTERM')).toThrow(/only a proof/);
    expect(
      Object.isFrozen(proveOwnerNow(root, '010', ownerOf(record))),
      'a proof cannot be changed after it was made',
    ).toBe(true);
    expect(child.exitCode === null && child.signalCode === null).toBe(true);
  });

  it('pid 1, 0 and negative pids are never looked up nor signalled', () => {
    for (const pid of [1, 0, -1]) {
      expect(processStat(pid)).toBeUndefined();
      expect(groupAlive(pid)).toBe(false);
      expect(proveOwnerNow(root, '010', { ...ownerOf({ pid, pstart: 1 }) })).toMatchObject({
        ok: false,
        gone: false,
        why: 'bad_pid',
      });
    }
  });
});
