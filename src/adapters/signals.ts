/** The one place sow signals a process it did not just start: a task's owner, whose pid a committed file only claims
 * (`kill(-1)` reaches all the user's processes): only with proof from the runtime folder, /proc (signal-proof.ts). */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { proveOwner, signallablePid, type Here, type OwnerRecord, type Proof } from '../domain/signal-proof.js';
import type { Owner } from '../domain/schemas.js';
import { writeFileAtomic } from './fs-atomic.js';
import { answers, BOOT, hostName, PIDNS, processAlive, processStat, thisProcess } from './liveness.js';
import { ensureRuntimeDir, runtimeFolder } from './runtime.js';
import { pickShape } from './record-shape.js';
import { readOwnJson } from './supervisor.js';

const FOLDER = 'owners';
/** A record is a few hundred bytes; anything larger is not one sow wrote. */
const RECORD_MAX = 4096;

/** One record per owning process: its pid and start time (two sandboxes sharing the folder may both have pid 7). */
const recordName = (pid: number, pstart: number | undefined): string => `${pid}-${pstart ?? 0}.json`;

/** This process as its record names it (pid, start time, boot, pid namespace, process group), then `what`, and a
 * nonce of the record alone: its writer removes it only while it is still its own. */
export function processRecord<T extends object>(what: T) {
  const me = thisProcess();
  const pgrp = processStat(me.pid)?.pgrp;
  return { ...me, ...(pgrp !== undefined ? { pgrp } : {}), ...what, nonce: randomBytes(16).toString('hex') };
}

/** Written by the sow process that becomes a task's owner, before the owner is committed: the proof to find. */
export function writeOwnerRecord(root: string, run: { task: string; agent_id: string }): OwnerRecord {
  const record: OwnerRecord = processRecord(run);
  // A rename replaces a link planted at that name; it never writes through it.
  const path = join(ensureRuntimeDir(root, FOLDER), recordName(record.pid, record.pstart));
  writeFileAtomic(path, `${JSON.stringify(record)}\n`, { durable: false });
  return record;
}

/** Removes this process's record once it no longer owns the task, only while it is still the one it wrote. */
export function removeOwnerRecord(root: string, record: OwnerRecord): void {
  try {
    const dir = runtimeFolder(root, FOLDER);
    if (!dir) return;
    const now = readOwnerRecordIn(dir, record.pid, record.pstart);
    if (now?.nonce === record.nonce) rmSync(join(dir, recordName(record.pid, record.pstart)), { force: true });
  } catch {
    // best effort: a record left behind names a process that has ended, which proves nothing
  }
}

/** The record of the owning process `pid` (with its start time), if this checkout has one sow could have written. */
export function readOwnerRecord(root: string, pid: number, pstart: number | undefined): OwnerRecord | undefined {
  if (!signallablePid(pid)) return undefined;
  let dir: string | undefined;
  try {
    dir = runtimeFolder(root, FOLDER);
  } catch {
    return undefined; // a link or a file where the folder should be: nothing there is sow's
  }
  return dir ? readOwnerRecordIn(dir, pid, pstart) : undefined;
}

/** The record, if it has exactly the form sow writes. */
function readOwnerRecordIn(dir: string, pid: number, pstart: number | undefined): OwnerRecord | undefined {
  const record = pickShape<OwnerRecord>(
    readOwnJson(join(dir, recordName(pid, pstart)), RECORD_MAX),
    { pid: 'int', host: 'string', task: 'string', agent_id: 'string', nonce: 'string' },
    { pstart: 'int', pgrp: 'int', boot: 'string', pidns: 'string' },
  );
  return record && signallablePid(record.pid) ? record : undefined;
}

/** This machine and process, as a proof compares them. */
export function here(): Here {
  return {
    host: hostName(),
    ...(BOOT !== undefined ? { boot: BOOT } : {}),
    ...(PIDNS !== undefined ? { pidns: PIDNS } : {}),
    linux: process.platform === 'linux',
  };
}

/** Proofs this module made: signalOwner takes no other (a pid read from anywhere is not one). */
const issued = new WeakSet<object>();

export type OwnerProof = Proof & { readonly here: Here };

/** Whether sow may signal task `task`'s owner now: the record in this checkout, and the kernel's word on the pid. */
export function proveOwnerNow(root: string, task: string, owner: Owner | undefined): OwnerProof {
  const at = here();
  const pid = owner?.kind === 'worker' && signallablePid(owner.pid) ? owner.pid : undefined;
  const record = pid !== undefined ? readOwnerRecord(root, pid, owner!.pstart) : undefined;
  const proof: OwnerProof = Object.freeze({
    ...proveOwner({
      task,
      owner,
      here: at,
      record,
      now: pid !== undefined ? processStat(pid) : undefined,
      // Off Linux, signal 0 is all there is; never to a pid sow would not signal.
      alive: pid !== undefined && !at.linux && processAlive(pid),
    }),
    here: at,
  });
  issued.add(proof);
  return proof;
}

/** Signals a proven owner: its process group when it leads one (a group outlives its leader), else the process, its
 * start time looked at again right before; `leaderFirst` only the leader. 'gone' when nothing of it was there. */
export function signalOwner(
  proof: OwnerProof,
  signal: NodeJS.Signals,
  opts: { leaderFirst?: boolean } = {},
): 'group' | 'process' | 'gone' {
  if (!issued.has(proof) || !proof.ok) throw new Error('signalOwner: only a proof from proveOwnerNow');
  const pid = proof.pid;
  // The last line, whatever the proof says: never 0, never -1, never a negative number.
  if (!signallablePid(pid)) return 'gone';
  const send = (target: number): boolean => {
    try {
      process.kill(target, signal);
      return true;
    } catch {
      return false;
    }
  };
  if (proof.here.linux) {
    const now = processStat(pid);
    if (now && !now.zombie && now.start !== proof.pstart) return 'gone'; // the pid is another process's now
    const leaderThere = now !== undefined && !now.zombie;
    if (proof.target === 'group' && (now === undefined || now.pgrp === pid)) {
      if (!groupAlive(pid)) return 'gone';
      if (opts.leaderFirst && leaderThere) return send(pid) ? 'group' : 'gone';
      return send(-pid) ? 'group' : 'gone';
    }
    if (!leaderThere) return 'gone';
    return send(pid) ? 'process' : 'gone';
  }
  return processAlive(pid) && send(pid) ? 'process' : 'gone';
}

/** Whether any process of the group `pgid` is still there (signal 0 to the group; a pid above 1 only). */
export const groupAlive = (pgid: number): boolean => signallablePid(pgid) && answers(-pgid);
