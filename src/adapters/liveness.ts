/** Whether a process is still there, by pid, host, boot id, start time and pid namespace, so a reused pid, zombie or
 * earlier boot count as gone. Another namespace's pid is never looked up: the lock judges it by its heartbeat. */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ProcessRef, ProcNow } from '../domain/signal-proof.js';

/** What `read` reads at `path` (a file's text by default); undefined when it cannot. */
function readOr(path: string, read = (at: string) => readFileSync(at, 'utf8').trim()): string | undefined {
  try {
    return read(path);
  } catch {
    return undefined;
  }
}

export const BOOT = process.platform === 'linux' ? readOr('/proc/sys/kernel/random/boot_id') : undefined;

let host: string | undefined;

/** This machine's name as os.hostname() says it, read from /proc on Linux (loading node:os cost ~2 M instructions). */
export function hostName(): string {
  host ??= (process.platform === 'linux' ? readOr('/proc/sys/kernel/hostname') : undefined) || hostname();
  return host;
}

/** Linux: this process's pid namespace; `unknown` when /proc does not say, and then nobody looks our pid up. */
export const PIDNS =
  process.platform === 'linux' ? (readOr('/proc/self/ns/pid', (at) => readlinkSync(at)) ?? 'unknown') : undefined;

/** A process's start time (ticks since boot), process group and zombie state, from /proc (Linux). */
function procStat(pid: number): ProcNow | undefined {
  const text = readOr(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  // After the command name in parentheses: state is field 3, pgrp field 5, starttime field 22.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { zombie: fields[0] === 'Z', pgrp: Number(fields[2]), start: Number(fields[19]) };
}

/** What /proc says about a pid above 1 now (Linux; undefined elsewhere, and for no such process). */
export function processStat(pid: number): ProcNow | undefined {
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
  return Number.isSafeInteger(pid) && pid > 0 && answers(pid);
}

/** Whether signal 0 to `target` (a pid, or a group as its negative) reaches something (EPERM: someone else's). */
export function answers(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `ref`'s pid can be looked up here: the same pid namespace, both known (or neither recorded). */
export function samePidNamespace(ref: ProcessRef): boolean {
  if (ref.pidns === undefined) return true;
  return ref.pidns !== 'unknown' && ref.pidns === PIDNS;
}

/** Whether the process is certainly gone; undefined when this host cannot tell (another host or pid namespace). */
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
