import { describe, expect, it } from 'vitest';
import { envAllowance } from './check-allowance.js';
import type { WorkerTrace } from '../adapters/worker-trace.js';

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
