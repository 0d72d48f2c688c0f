/**
 * Whether a process is still there: the lock holder, the `sow agent spawn` that owns a task. A
 * process is named by its pid, host, boot id, start time and pid namespace (Linux: /proc), so a
 * pid reused by another process, a zombie and a process of an earlier boot all count as gone.
 *
 * A pid means something only in the pid namespace it was read in: a sow in a sandbox (bubblewrap,
 * `unshare --pid`, a container sharing the folder) may be pid 1 or 7 there, which out here is
 * another process or none. So a process of another namespace is never looked up by its pid:
 * processGone cannot tell (undefined), and the lock judges it by its heartbeat instead.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

export interface ProcessRef {
  pid: number;
  host: string;
  /** Linux: /proc/sys/kernel/random/boot_id. */
  boot?: string;
  /** Linux: the process's start time, in clock ticks since boot. */
  pstart?: number;
  /** Linux: the pid namespace its pid belongs to (`pid:[4026531836]`), `unknown` when /proc did not say. */
  pidns?: string;
}

function readOr(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

export const BOOT = process.platform === 'linux' ? readOr('/proc/sys/kernel/random/boot_id') : undefined;

let host: string | undefined;

/**
 * This machine's name, as os.hostname() says it. On Linux it is read from /proc (the same name:
 * the nodename of this UTS namespace), because loading node:os for it cost every command that
 * takes the lock about 2 M instructions.
 */
export function hostName(): string {
  host ??= (process.platform === 'linux' ? readOr('/proc/sys/kernel/hostname') : undefined) || hostname();
  return host;
}

/**
 * Linux: this process's pid namespace. `unknown` when /proc does not say (a sandbox without it):
 * then nobody can tell which namespace our pid belongs to, so nobody looks it up.
 */
export const PIDNS =
  process.platform === 'linux'
    ? (() => {
        try {
          return readlinkSync('/proc/self/ns/pid');
        } catch {
          return 'unknown';
        }
      })()
    : undefined;

/**
 * A process's start time (clock ticks since boot), its process group and whether it is a zombie, from /proc (Linux).
 */
function procStat(pid: number): { start: number; pgrp: number; zombie: boolean } | undefined {
  const text = readOr(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  // After the command name in parentheses: state is field 3, pgrp field 5, starttime field 22.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { zombie: fields[0] === 'Z', pgrp: Number(fields[2]), start: Number(fields[19]) };
}

/**
 * What /proc says about a pid now (Linux; undefined elsewhere, and when there is no such process). Only a pid above
 * 1 is looked up.
 */
export function processStat(pid: number): { start: number; pgrp: number; zombie: boolean } | undefined {
  if (process.platform !== 'linux' || !Number.isSafeInteger(pid) || pid <= 1) return undefined;
  return procStat(pid);
}

const OWN_START = process.platform === 'linux' ? procStat(process.pid)?.start : undefined;

/** This process, as others will look for it. */
export function thisProcess(): ProcessRef {
  return {
    pid: process.pid,
    host: hostName(),
    ...(BOOT !== undefined ? { boot: BOOT } : {}),
    ...(OWN_START !== undefined ? { pstart: OWN_START } : {}),
    ...(PIDNS !== undefined ? { pidns: PIDNS } : {}),
  };
}

export function processAlive(pid: number): boolean {
  // kill(0) and kill(-n) ask about process groups (0: our own, which always answers): no pid names one.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a process runs: alive, and not a zombie waiting for its parent to reap it (Linux tells). */
export function processRunning(pid: number): boolean {
  const stat = process.platform === 'linux' ? procStat(pid) : undefined;
  if (stat) return !stat.zombie;
  return processAlive(pid);
}

/**
 * Whether `ref`'s pid can be looked up here: the same pid namespace, both known (or neither recorded, off Linux or
 * by an older sow).
 */
export function samePidNamespace(ref: ProcessRef): boolean {
  if (ref.pidns === undefined) return true;
  return ref.pidns !== 'unknown' && ref.pidns === PIDNS;
}

/**
 * Whether the process is certainly gone, as far as this host can tell; undefined when it cannot
 * tell (another host; another pid namespace; or our own pid, which from a namespace of an older
 * sow that did not record it may be someone else's).
 */
export function processGone(ref: ProcessRef): boolean | undefined {
  if (ref.host !== hostName()) return undefined;
  if (ref.boot !== undefined && BOOT !== undefined && ref.boot !== BOOT) return true;
  if (!samePidNamespace(ref)) return undefined;
  // Our own pid, recorded without its namespace (an older sow): it may be another namespace's.
  if (ref.pid === process.pid && ref.pidns === undefined) return undefined;
  if (process.platform === 'linux') {
    const stat = procStat(ref.pid);
    if (stat === undefined) return !processAlive(ref.pid);
    if (stat.zombie) return true;
    if (ref.pstart !== undefined && stat.start !== ref.pstart) return true; // the pid was reused
    return false;
  }
  return !processAlive(ref.pid);
}
