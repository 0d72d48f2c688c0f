/**
 * Signals only to what sow started. A task's owner is a state file's claim, and state files are
 * committed: a cloned repository may name `pid: 1` on another host (where `kill(-1)` would reach
 * every process of the user's), a pid of another pid namespace, or the pid and start time of a
 * process of the user's that sow never started. `sow agent stop` refuses each one (exit 1,
 * NOT_SOWS_PROCESS, naming the task, host and pid), sends no signal — the unrelated process, in a
 * process group of its own, is still alive afterwards — and changes no state file. The stop of a
 * worker sow did start is in detach.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { taskFile, toExecuting } from './harness.js';
import { expectRefused, useHostile, type Hostile } from './hostile.js';

const hostile = useHostile();
const start = {
  key: 'executing',
  setup: (repo: Parameters<typeof toExecuting>[0]) => toExecuting(repo, ['First task', 'Second task']),
};

const BOOT = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
const PIDNS = readlinkSync('/proc/self/ns/pid');

/** A process's start time (clock ticks since boot), from /proc. */
const pstartOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Unrelated processes of the user's, each the leader of a process group of its own (as a shell's job is): `sleep
 * 1000`.
 */
const bystanders: ChildProcess[] = [];
afterEach(() => {
  for (const b of bystanders.splice(0)) if (b.pid !== undefined && alive(b.pid)) process.kill(b.pid, 'SIGKILL');
});
function bystander(): number {
  const child = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
  child.unref();
  bystanders.push(child);
  return child.pid!;
}

/**
 * The attacker's repository: task 010 in progress, owned by `owner` (YAML lines), committed; returns the clone the
 * user runs sow in.
 */
function cloneWithOwner(owner: Record<string, string | number>, extra: (h: Hostile) => void = () => undefined) {
  const h = hostile({ start });
  const lines = Object.entries(owner).map(([k, v]) => `  ${k}: ${typeof v === 'string' ? JSON.stringify(v) : v}`);
  const text = h.origin
    .read(taskFile('010'))
    .replace(
      'metadata: {}',
      `metadata: {}\nowner:\n  kind: worker\n  by: implementer-7\n${lines.join('\n')}\n  since: ` +
        `"2026-11-26T00:00:00.000Z"`,
    )
    .replace(/^status: \w+$/m, 'status: in_progress');
  h.write(taskFile('010'), text);
  extra(h);
  h.commit('an owner of task 010 that sow never started');
  return { h, clone: h.clone() };
}

describe('sow agent stop signals only what sow started', () => {
  it('pid 1 on another host: refused with the sentence, no signal sent (never kill(-1)), the state unchanged', () => {
    const { h, clone } = cloneWithOwner({ pid: 1, host: 'other-host', boot: BOOT, pstart: 1, pidns: PIDNS });
    // The owner counts as alive (another host cannot be looked at): a takeover still needs --force.
    expect(clone.sow(['task', 'list', '--json']).json!.data[0].worker).toEqual({
      state: 'live',
      kind: 'worker',
      by: 'implementer-7',
    });
    const said = expectRefused(
      clone,
      ['agent', 'stop', '010'],
      /task 010 names implementer-7 \(pid 1 on other-host\) as its worker, but sow will not signal it: /,
      {
        exit: 1,
        code: 'NOT_SOWS_PROCESS',
      },
    );
    expect(said).toContain('it runs on another host (other-host; this is');
    expect(said).toContain(
      "nothing was signalled. To take the task over without signalling anything, run 'sow task set --id 010 status " +
        "paused --force'",
    );
    h.untouched();
    // The hint's command works.
    expect(clone.sow(['task', 'set', '--id', '010', 'status', 'paused', '--force']).code).toBe(0);
    expect(clone.yaml(taskFile('010')).status).toBe('paused');
  });

  it(
    "a real process of the user's on another host's record, " + 'in a group of its own: it is still alive afterwards',
    () => {
      const pid = bystander();
      const { clone } = cloneWithOwner({ pid, host: 'other-host', boot: BOOT, pstart: pstartOf(pid), pidns: PIDNS });
      expectRefused(clone, ['agent', 'stop', '010'], /it runs on another host/, { exit: 1, code: 'NOT_SOWS_PROCESS' });
      expect(alive(pid), 'the process the repository named was not signalled').toBe(true);
    },
  );

  it(
    'this host, but another pid namespace (its pid means another process here): refused, the process named ' +
      'still alive',
    () => {
      const pid = bystander();
      const { clone } = cloneWithOwner({
        pid,
        host: hostname(),
        boot: BOOT,
        pstart: pstartOf(pid),
        pidns: 'pid:[4026500001]',
      });
      expectRefused(
        clone,
        ['agent', 'stop', '010'],
        new RegExp(
          `task 010 names implementer-7 \\(pid ${pid} on .+\\) as its worker, but sow will not signal it: it runs in ` +
            `another pid namespace`,
        ),
        {
          exit: 1,
          code: 'NOT_SOWS_PROCESS',
        },
      );
      expect(alive(pid)).toBe(true);
    },
  );

  it(
    'this host, this boot, this namespace, the right start time — a process sow never started: no record of it, ' +
      'refused, still alive',
    () => {
      const pid = bystander();
      const { clone } = cloneWithOwner({ pid, host: hostname(), boot: BOOT, pstart: pstartOf(pid), pidns: PIDNS });
      // Everything a state file can say checks out: the owner is alive, as far as the state goes.
      expect(clone.sow(['agent', 'ps', '--json']).json!.data).toMatchObject([{ task: '010', pid, state: 'running' }]);
      expectRefused(
        clone,
        ['agent', 'stop', '010'],
        /no sow process in this checkout recorded that it runs this worker/,
        { exit: 1, code: 'NOT_SOWS_PROCESS' },
      );
      expect(alive(pid), 'the process the repository named was not signalled').toBe(true);
    },
  );

  it(
    'a record committed with the repository (where an older sow kept its runtime folder) proves nothing, even one ' +
      'that names this very task',
    () => {
      const pid = bystander();
      const pstart = pstartOf(pid);
      const owner = { pid, host: hostname(), boot: BOOT, pstart, pidns: PIDNS };
      const { clone } = cloneWithOwner(owner, (h) =>
        h.write(
          `.sow/.runtime/owners/${pid}-${pstart}.json`,
          JSON.stringify({ ...owner, pgrp: pid, task: '010', agent_id: 'implementer-7', nonce: 'x' }),
        ),
      );
      expectRefused(clone, ['agent', 'stop', '010'], /will not signal it/, { exit: 1, code: 'NOT_SOWS_PROCESS' });
      expect(alive(pid)).toBe(true);
    },
  );
});
