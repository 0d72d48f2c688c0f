import { describe, expect, it } from 'vitest';
import { traceWorker, type ProcessTable } from './worker-trace.js';

/** A process table: pid → [parent, environment, name]; missing pids cannot be read. */
function table(procs: Record<number, [number, Record<string, string> | undefined, string]>): ProcessTable {
  return {
    parent: (pid) => procs[pid]?.[0],
    environ: (pid) => {
      const env = procs[pid]?.[1];
      return env ? new Map(Object.entries(env)) : undefined;
    },
    name: (pid) => procs[pid]?.[2],
  };
}

const self = { pid: 100, ppid: 90 };

describe('traceWorker', () => {
  it('a person: no marker in the own environment or any parent', () => {
    const t = table({ 90: [80, { PATH: '/bin' }, 'bash'], 80: [1, {}, 'sshd'], 1: [0, {}, 'init'] });
    expect(traceWorker({ PATH: '/bin' }, t, self)).toBeUndefined();
    expect(traceWorker({}, undefined, self)).toBeUndefined();
  });

  it('the own environment marks a worker, also where parents cannot be read', () => {
    expect(traceWorker({ SOW_AGENT_ID: 'implementer-1' }, undefined, self)).toEqual({
      nearest: { pid: 100, command: 'sow', variable: 'SOW_AGENT_ID', allowChecks: undefined },
    });
    expect(traceWorker({ SOW_SESSION_ID: 's', SOW_ALLOW_CHECKS: '1' }, undefined, self)?.nearest).toMatchObject({
      variable: 'SOW_SESSION_ID',
      allowChecks: '1',
    });
    expect(traceWorker({ SOW_AGENT_ID: '' }, undefined, self), 'an empty value is no marker').toBeUndefined();
  });

  it('a worker that unset its markers is still found through its parents, nearest and outermost', () => {
    const t = table({
      90: [70, { PATH: '/bin' }, 'sh'],
      70: [60, { SOW_AGENT_ID: 'implementer-1', SOW_ALLOW_CHECKS: '1' }, 'bash'],
      60: [50, { SOW_AGENT_ID: 'implementer-1' }, 'claude'],
      50: [1, { PATH: '/bin' }, 'node'],
      1: [0, undefined, 'init'],
    });
    expect(traceWorker({}, t, self)).toEqual({
      nearest: { pid: 70, command: 'bash', variable: 'SOW_AGENT_ID', allowChecks: '1' },
      outermost: { pid: 60, command: 'claude', variable: 'SOW_AGENT_ID', allowChecks: undefined },
    });
  });

  it('parents that cannot be read are passed over; a loop or a missing parent ends the walk', () => {
    const t = table({ 90: [85, undefined, 'setuid-thing'], 85: [90, { SOW_AGENT_ID: 'a-1' }, 'codex'] });
    expect(traceWorker({}, t, self)?.outermost).toMatchObject({ pid: 85, command: 'codex' });
    expect(traceWorker({}, table({ 90: [91, { X: '1' }, 'sh'] }), self)).toBeUndefined();
  });
});
