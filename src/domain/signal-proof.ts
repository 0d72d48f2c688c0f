/** Whether sow may signal a task's owner: a committed state file can name any pid on any host, so the proof is the
 * record the owning sow wrote into this runtime folder, checked against the kernel. Pure: the caller reads both. */
import { errorClass } from './errors.js';
import { shown } from './display.js';
import type { Owner } from './schemas.js';

/** A process as others look for it: pid, host, and on Linux boot id, start time and pid namespace. */
export interface ProcessRef {
  pid: number;
  host: string;
  /** Linux: /proc/sys/kernel/random/boot_id. */
  boot?: string;
  /** Linux: the process's start time, in clock ticks since boot (/proc/<pid>/stat). */
  pstart?: number;
  /** Linux: the pid namespace its pid belongs to (`pid:[4026531836]`), `unknown` when /proc did not say. */
  pidns?: string;
}

/** What the owning sow process wrote about itself when it became a task's owner. */
export interface OwnerRecord extends ProcessRef {
  /** Its process group when it wrote the record (Linux): its own pid when it leads the group. */
  pgrp?: number;
  task: string;
  agent_id: string;
  /** A random value of this record alone: the owner removes its record only while it is still its own. */
  nonce: string;
}

/** The machine and process that would send the signal; on Linux, processes are looked at through /proc. */
export type Here = Pick<ProcessRef, 'host' | 'boot' | 'pidns'> & { linux: boolean };

/** What /proc says about the pid now (Linux); undefined when there is no such process. */
export interface ProcNow {
  start: number;
  pgrp: number;
  zombie: boolean;
}

/** Why sow will not signal a task's owner (stable: tests and the error's details use it). */
export type NotMine = keyof typeof NOT_MINE;

export type Proof =
  /** sow started this process and it is still that one: signal its group (it leads one) or it alone. */
  | { ok: true; pid: number; target: 'group' | 'process'; pstart?: number }
  /** It was sow's, and it has ended (its pid is nobody's now, a zombie, or another process's). */
  | { ok: false; gone: true }
  | { ok: false; gone: false; why: NotMine };

/** A pid sow may ever name in a signal: a whole number above 1 (never 0, -1 or a group by a negative number). */
export const signallablePid = (pid: unknown): pid is number =>
  typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 1;

const refuse = (why: NotMine): Proof => ({ ok: false, gone: false, why });

/** The proof: a worker on this host (Linux: boot and pid namespace), pid above 1, a record naming the same pid, start
 * time, task and agent, alive now with that start time; the group only when it leads it now and did then.
 * Off Linux nothing tells a reused pid, so only the process itself is signalled. */
export function proveOwner(input: {
  task: string;
  owner: Owner | undefined;
  here: Here;
  record: OwnerRecord | undefined;
  now: ProcNow | undefined;
  alive: boolean;
}): Proof {
  const { task, owner, here, record, now } = input;
  if (owner?.kind !== 'worker') return refuse('not_a_worker');
  if (owner.host !== here.host) return refuse('other_host');
  const pid = owner.pid;
  if (!signallablePid(pid)) return refuse('bad_pid');
  if (here.linux) {
    if (here.boot === undefined || owner.boot !== here.boot) return refuse('other_boot');
    // `unknown`: a sow without /proc, whose pid may be another namespace's.
    if (here.pidns === undefined || here.pidns === 'unknown' || owner.pidns !== here.pidns)
      return refuse('other_pidns');
    if (owner.pstart === undefined) return refuse('no_start_time');
  }
  if (!record) return refuse('no_record');
  if (
    record.pid !== pid ||
    record.host !== here.host ||
    record.pstart !== owner.pstart ||
    record.boot !== owner.boot ||
    record.pidns !== owner.pidns
  )
    return refuse('record_mismatch');
  if (record.task !== task || record.agent_id !== owner.by) return refuse('other_task');
  if (!here.linux) return input.alive ? { ok: true, pid, target: 'process' } : { ok: false, gone: true };
  if (!now || now.zombie || now.start !== record.pstart) return { ok: false, gone: true };
  const leads = record.pgrp === pid && now.pgrp === pid;
  return { ok: true, pid, target: leads ? 'group' : 'process', pstart: record.pstart! };
}

/** Why, in words, after "sow will not signal it: ". */
const NOT_MINE = {
  not_a_worker: () => 'it is not a worker sow started',
  bad_pid: (owner: Owner | undefined) =>
    (owner?.pid === undefined ? 'it names no pid' : `pid ${owner.pid} is no process sow could have started`) +
    ' (sow never signals pid 1, 0 or a negative pid)',
  other_host: (owner: Owner | undefined, here: Here) =>
    `it runs on another host (${shown(owner?.host ?? 'unknown')}; this is ${shown(here.host)}), where sow ` +
    `cannot look`,
  other_boot: () =>
    'it was recorded before this machine last started (another boot), so its pid now means another process',
  other_pidns: () => 'it runs in another pid namespace (a sandbox or container), where its pid means another process',
  no_start_time: () => 'its record has no start time, so sow cannot tell that process from another with the same pid',
  no_record: () =>
    'no sow process in this checkout recorded that it runs this worker (a record in a state file alone is a ' +
    'claim, not a proof)',
  record_mismatch: () => "what this checkout recorded of that process does not match the task's owner",
  other_task: () => 'the sow process with that pid recorded that it runs another task or worker',
};

export const notMineText = (why: NotMine, owner: Owner | undefined, here: Here): string => NOT_MINE[why](owner, here);

/** `sow agent stop` on a task whose owner sow cannot prove it started: nothing is signalled, nothing changes. */
export class NotSowsProcessError extends errorClass(
  'NOT_SOWS_PROCESS',
  'failed',
  (task: string, owner: Owner | undefined, why: NotMine, here: Here) => {
    const who = owner
      ? `${shown(owner.by)} ` +
        `(pid ${String(owner.pid ?? '?')}${owner.host !== undefined ? ` on ${shown(owner.host)}` : ''})`
      : 'nobody';
    return [
      `task ${task} names ${who} as its worker, but sow will not signal it: ${notMineText(why, owner, here)}. sow ` +
        `signals only processes it can prove it started`,
      `nothing was signalled. To take the task over without signalling anything, run 'sow task set --id ${task} ` +
        `status paused --force'; or stop that worker where it runs, or wait until it ends`,
      {
        task,
        why,
        ...(owner?.pid !== undefined ? { pid: owner.pid } : {}),
        ...(owner?.host !== undefined ? { host: owner.host } : {}),
      },
    ];
  },
) {}
