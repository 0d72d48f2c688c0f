import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { BOOT, PIDNS } from '../adapters/liveness.js';
import type { Owner } from '../domain/schemas.js';
import { ownerLive, workerOwner } from './ownership.js';

const linux = process.platform === 'linux';
const NOW = '2026-11-28T00:00:00.000Z';
const startOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]);

describe('a worker owner is judged by its pid only in its own pid namespace', () => {
  it('records the pid namespace with the pid', () => {
    const owner = workerOwner('implementer-1', undefined, '2026-11-28T00:00:00.000Z');
    expect(owner).toMatchObject({ kind: 'worker', pid: process.pid, host: hostname() });
    if (linux) expect(owner.pidns).toBe(PIDNS);
  });

  it.skipIf(!linux)('pid 1 of a sandbox (another namespace) is alive, though pid 1 out here is another process', () => {
    const sandboxed: Owner = { kind: 'worker', by: 'implementer-1', pid: 1, host: hostname(), boot: BOOT!, pstart: startOf(1) + 1, pidns: 'pid:[4026530000]', since: '2026-11-28T00:00:00.000Z' };
    expect(ownerLive(sandboxed, NOW), 'never looked up: alive until --force').toBe(true);
    const { pidns: _, ...withoutNamespace } = sandboxed;
    expect(ownerLive(withoutNamespace, NOW), 'looked up, pid 1 out here is another process: gone').toBe(false);
    expect(ownerLive({ ...sandboxed, pidns: PIDNS! }, NOW), 'in our namespace: looked up, gone').toBe(false);
  });
});
