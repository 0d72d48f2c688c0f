import { describe, expect, it } from 'vitest';
import { errorEnvelope, exitCodeFor } from './errors.js';
import {
  notMineText,
  NotSowsProcessError,
  proveOwner,
  signallablePid,
  type Here,
  type NotMine,
  type OwnerRecord,
  type ProcNow,
  type Proof,
} from './signal-proof.js';
import type { Owner } from './schemas.js';

const T0 = '2026-01-01T00:00:00.000Z';
const NS = 'pid:[4026531836]';
const BOOT = '0b6c3c1e-aaaa-bbbb-cccc-000000000001';
const here: Here = { host: 'box', boot: BOOT, pidns: NS, linux: true };
const owner: Owner = {
  kind: 'worker',
  by: 'implementer-1',
  pid: 4242,
  host: 'box',
  boot: BOOT,
  pstart: 777,
  pidns: NS,
  since: T0,
};
const record: OwnerRecord = {
  pid: 4242,
  pstart: 777,
  boot: BOOT,
  pidns: NS,
  host: 'box',
  pgrp: 4242,
  task: '010',
  agent_id: 'implementer-1',
  nonce: 'n',
};
const leader: ProcNow = { start: 777, pgrp: 4242, zombie: false };

type Case = [
  string,
  {
    owner?: Partial<Owner> | null;
    here?: Partial<Here>;
    record?: Partial<OwnerRecord> | null;
    now?: Partial<ProcNow> | null;
    alive?: boolean;
    task?: string;
  },
  ReturnType<typeof proveOwner>,
];

const refused = (why: NotMine): Proof => ({ ok: false, gone: false, why });

const cases: Case[] = [
  [
    'a detached supervisor: it leads its group, and did when it wrote the record',
    {},
    { ok: true, pid: 4242, target: 'group', pstart: 777 },
  ],
  [
    'a waiting spawn in its caller’s group: the process alone',
    { record: { pgrp: 100 }, now: { pgrp: 100 } },
    { ok: true, pid: 4242, target: 'process', pstart: 777 },
  ],
  [
    'it leads a group now but did not when it wrote the record: the process alone',
    { record: { pgrp: 100 } },
    { ok: true, pid: 4242, target: 'process', pstart: 777 },
  ],
  [
    'it led its group then but does not now: the process alone',
    { now: { pgrp: 100 } },
    { ok: true, pid: 4242, target: 'process', pstart: 777 },
  ],
  ['pid 1', { owner: { pid: 1 }, record: { pid: 1 } }, refused('bad_pid')],
  ['pid 0', { owner: { pid: 0 }, record: { pid: 0 } }, refused('bad_pid')],
  ['a negative pid (a group)', { owner: { pid: -4242 }, record: { pid: -4242 } }, refused('bad_pid')],
  ['-1', { owner: { pid: -1 } }, refused('bad_pid')],
  ['no pid', { owner: { pid: undefined } }, refused('bad_pid')],
  ['a fraction', { owner: { pid: 42.5 } }, refused('bad_pid')],
  ['a claim', { owner: { kind: 'claim' } }, refused('not_a_worker')],
  ['no owner', { owner: null }, refused('not_a_worker')],
  ['another host, pid 1', { owner: { host: 'other-host', pid: 1 } }, refused('other_host')],
  ['another host', { owner: { host: 'other-host' } }, refused('other_host')],
  [
    'another host, with a record that says so too',
    { owner: { host: 'other-host' }, record: { host: 'other-host' } },
    refused('other_host'),
  ],
  ['another boot', { owner: { boot: 'earlier' }, record: { boot: 'earlier' } }, refused('other_boot')],
  ['no boot recorded', { owner: { boot: undefined }, record: { boot: undefined } }, refused('other_boot')],
  ['this machine cannot say its boot', { here: { boot: undefined } }, refused('other_boot')],
  [
    'another pid namespace',
    { owner: { pidns: 'pid:[4026532000]' }, record: { pidns: 'pid:[4026532000]' } },
    refused('other_pidns'),
  ],
  [
    'no pid namespace recorded (an older sow)',
    { owner: { pidns: undefined }, record: { pidns: undefined } },
    refused('other_pidns'),
  ],
  [
    'a namespace nobody can tell (no /proc in its sandbox)',
    { owner: { pidns: 'unknown' }, here: { pidns: 'unknown' }, record: { pidns: 'unknown' } },
    refused('other_pidns'),
  ],
  ['no start time recorded', { owner: { pstart: undefined }, record: { pstart: undefined } }, refused('no_start_time')],
  ['no record in this checkout', { record: null }, refused('no_record')],
  ['a record of another process with that pid (start time)', { record: { pstart: 778 } }, refused('record_mismatch')],
  ['a record of another pid', { record: { pid: 4243 } }, refused('record_mismatch')],
  ['a record written on another host', { record: { host: 'other-host' } }, refused('record_mismatch')],
  ['a record of another boot', { record: { boot: 'earlier' } }, refused('record_mismatch')],
  ['a record for another task', { record: { task: '020' } }, refused('other_task')],
  ['a record for another worker', { record: { agent_id: 'implementer-2' } }, refused('other_task')],
  ['the task asked about is another', { task: '020' }, refused('other_task')],
  ['the pid reused since (another start time now)', { now: { start: 9999 } }, { ok: false, gone: true }],
  ['no such process now', { now: null }, { ok: false, gone: true }],
  ['a zombie', { now: { zombie: true } }, { ok: false, gone: true }],
];

const offLinux: Case[] = [
  [
    'off Linux: the record and a live pid: the process alone, never its group',
    {
      here: { linux: false, boot: undefined, pidns: undefined },
      owner: { boot: undefined, pidns: undefined, pstart: undefined },
      record: { boot: undefined, pidns: undefined, pstart: undefined },
      now: null,
      alive: true,
    },
    { ok: true, pid: 4242, target: 'process' },
  ],
  [
    'off Linux: the pid gone',
    {
      here: { linux: false, boot: undefined, pidns: undefined },
      owner: { boot: undefined, pidns: undefined, pstart: undefined },
      record: { boot: undefined, pidns: undefined, pstart: undefined },
      now: null,
      alive: false,
    },
    { ok: false, gone: true },
  ],
  [
    'off Linux: no record',
    {
      here: { linux: false, boot: undefined, pidns: undefined },
      owner: { boot: undefined, pidns: undefined, pstart: undefined },
      record: null,
      now: null,
      alive: true,
    },
    refused('no_record'),
  ],
  [
    'off Linux: pid 1 (the record says it too)',
    {
      here: { linux: false, boot: undefined, pidns: undefined },
      owner: { pid: 1, boot: undefined, pidns: undefined, pstart: undefined },
      record: { pid: 1, boot: undefined, pidns: undefined, pstart: undefined },
      now: null,
      alive: true,
    },
    refused('bad_pid'),
  ],
  [
    'off Linux: another host',
    {
      here: { linux: false, boot: undefined, pidns: undefined },
      owner: { host: 'other-host', boot: undefined, pidns: undefined, pstart: undefined },
      now: null,
      alive: true,
    },
    refused('other_host'),
  ],
];

describe('proveOwner: sow signals only what it can prove it started, here, and that is still that process', () => {
  it.each([...cases, ...offLinux])('%s', (_name, c, expected) => {
    const o = c.owner === null ? undefined : ({ ...owner, ...c.owner } as Owner);
    const r = c.record === null ? undefined : { ...record, ...c.record };
    const now = c.now === null ? undefined : { ...leader, ...c.now };
    expect(
      proveOwner({
        task: c.task ?? '010',
        owner: o,
        here: { ...here, ...c.here },
        record: r,
        now,
        alive: c.alive ?? false,
      }),
    ).toEqual(expected);
  });

  it('a pid sow may name in a signal is a whole number above 1', () => {
    expect([2, 4242].every(signallablePid)).toBe(true);
    expect([1, 0, -1, -4242, 1.5, NaN, Infinity, '42', undefined].some(signallablePid)).toBe(false);
  });
});

describe('NotSowsProcessError', () => {
  it('names the task, the recorded host and pid and why; exit 1; its hint takes the task over without a signal', () => {
    const err = new NotSowsProcessError('010', { ...owner, host: 'other-host', pid: 1 }, 'other_host', here);
    expect(exitCodeFor(err.kind)).toBe(1);
    expect(errorEnvelope(err).error).toEqual({
      code: 'NOT_SOWS_PROCESS',
      message:
        'task 010 names implementer-1 (pid 1 on other-host) as its worker, but sow will not signal it: it runs on ' +
        'another host (other-host; this is box), where sow cannot look. sow signals only processes it can prove ' +
        'it started',
      hint:
        "nothing was signalled. To take the task over without signalling anything, run 'sow task set --id 010 " +
        "status paused --force'; or stop that worker where it runs, or wait until it ends",
      details: { task: '010', why: 'other_host', pid: 1, host: 'other-host' },
    });
  });

  it('every reason has its sentence; a hostile host name is shown escaped', () => {
    const reasons: NotMine[] = [
      'not_a_worker',
      'bad_pid',
      'other_host',
      'other_boot',
      'other_pidns',
      'no_start_time',
      'no_record',
      'record_mismatch',
      'other_task',
    ];
    for (const why of reasons) expect(notMineText(why, owner, here)).toMatch(/^\S.*[^.]$/);
    expect(
      new NotSowsProcessError('010', { ...owner, host: 'evil\n\u001b[2J' }, 'other_host', here).message,
    ).not.toMatch(/[\n\u001b]/);
  });
});
