/**
 * What sow accepts as state, and what it leaves in git, on the command line: a project file whose
 * state, type or phases are not those of its lifecycle is refused (exit 4, naming file and field,
 * in text and --json), as are YAML syntax errors (with line and column) and task files that
 * disagree with their folder or with each other; a .sow/ without .sow/.version is not a
 * workspace; runtime files never show up in `git status`, whatever happened to .sow/.gitignore and
 * however a write ended (writers killed for real). Every use case refusing each of these, and more
 * variants of each: in-process (src/app/integrity.test.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  ok,
  PROJECT,
  SOW,
  TASK_LIST,
  taskFile,
  TEST_ENV,
  toExecuting,
  useRepos,
  type Repo,
  type RunResult,
} from './harness.js';

const fresh = useRepos();

const TASKS_DIR = '.sow/project/phases/implementation/tasks';
const RUNTIME = '.git/sow';
const LOCK = `${RUNTIME}/lock`;

// ---------------------------------------------------------------------------------------------
// helpers

/** A state-file error: exit 4 (never 70), STATE_FILE_INVALID naming the file and field, a hint. */
function expectStateFileError(r: RunResult, file: string, field: string | undefined, label: string): string {
  expect(r.code, `${label}: exit code\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(4);
  expect(r.stderr, `${label}: no stack trace`).not.toMatch(/^\s+at /m);
  if (r.json) {
    expect(r.json.ok).toBe(false);
    expect(r.json.error!.code, label).toBe('STATE_FILE_INVALID');
    expect(r.json.error!.message, label).toContain(file);
    if (field) expect(r.json.error!.message, label).toContain(field);
    expect(r.json.error!.hint, `${label}: hint`).toBeTruthy();
    expect((r.json.error as any).details?.file, label).toBe(file);
    if (field) expect((r.json.error as any).details?.field, label).toBe(field);
    return r.json.error!.message;
  }
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0], label).toMatch(/^error: /);
  expect(lines[0], `${label}: names the file`).toContain(file);
  if (field) expect(lines[0], `${label}: names the field`).toContain(`${field}:`);
  expect(lines[1], `${label}: hint line`).toMatch(/^hint: \S/);
  return lines[0]!;
}

/** Every command fails with a state-file error (plain and --json), and .sow/ stays byte-identical. */
function expectRefused(
  repo: Repo,
  commands: string[][],
  file: string,
  field: string | undefined,
  opts: { human?: boolean } = {},
): string[] {
  const before = repo.snapshot();
  const messages: string[] = [];
  for (const args of commands) {
    if (opts.human !== false) {
      expectStateFileError(repo.sow(args), file, field, `sow ${args.join(' ')}`);
      expect(repo.snapshot(), `sow ${args.join(' ')} left .sow/ byte-identical`).toEqual(before);
    }
    messages.push(expectStateFileError(repo.sow([...args, '--json']), file, field, `sow ${args.join(' ')} --json`));
    expect(repo.snapshot(), `sow ${args.join(' ')} --json left .sow/ byte-identical`).toEqual(before);
  }
  expect(repo.exists(LOCK), 'lock released').toBe(false);
  return messages;
}

function editYaml(repo: Repo, rel: string, edit: (doc: ReturnType<typeof parseDocument>) => void): void {
  const doc = parseDocument(repo.read(rel));
  edit(doc);
  writeFileSync(join(repo.dir, rel), doc.toString());
}

/** Runs `fn` on a repo whose file `rel` is edited, then puts the file back as it was. */
function withEdited(repo: Repo, rels: string[], fn: () => void): void {
  const saved = rels.map((rel) => [rel, repo.read(rel)] as const);
  try {
    fn();
  } finally {
    for (const [rel, text] of saved) writeFileSync(join(repo.dir, rel), text);
  }
}

function planning(): Repo {
  const repo = fresh();
  ok(repo, ['project', 'new', 'demo', '--description', 'A demo project']);
  return repo;
}

const commitAll = (repo: Repo, message: string) => {
  repo.git(['add', '-A']);
  repo.git(['commit', '-qm', message]);
};

/** `git status` lines, every untracked file listed on its own. */
function gitStatus(repo: Repo): string[] {
  const r = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repo.dir, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

function spawnSow(repo: Repo, args: string[]): ChildProcess {
  return spawn(process.execPath, [SOW, ...args], {
    cwd: repo.dir,
    env: { ...process.env, ...TEST_ENV },
    stdio: 'ignore',
  });
}

const exited = (child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Spins (without yielding) until `cond` holds or `child` has exited; true when `cond` held. */
function spinUntil(cond: () => boolean, child: ChildProcess, timeoutMs = 120_000): boolean {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (cond()) return true;
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) return false;
    try {
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') return false;
    } catch {
      return false;
    }
  }
}

// ---------------------------------------------------------------------------------------------

// Every use case refusing a state not of the lifecycle, a final state, names of JavaScript object
// members as a state or type, an unknown type, a missing or extra phase: in-process
// (src/app/integrity.test.ts). Here, one of each on the command line.
describe('a project file that is not a project of its lifecycle', () => {
  it('an unknown current_state is refused, in text and --json, naming the field and the valid states', () => {
    const repo = planning();
    editYaml(repo, PROJECT, (doc) => doc.setIn(['statechart', 'current_state'], 'Bogus'));
    const messages = expectRefused(repo, [['task', 'add', 'X']], PROJECT, 'statechart.current_state');
    for (const m of messages) {
      expect(m).toContain("'Bogus'");
      for (const state of ['PlanningActive', 'ImplementationPlanning', 'ImplementationExecuting', 'ReviewActive'])
        expect(m).toContain(state);
    }
  });

  it('an unknown project type and a missing phase are refused', () => {
    const repo = planning();
    withEdited(repo, [PROJECT], () => {
      editYaml(repo, PROJECT, (doc) => doc.set('type', 'galaxy'));
      const [m] = expectRefused(repo, [['project', 'status']], PROJECT, 'type', { human: false });
      expect(m).toContain('galaxy');
    });
    withEdited(repo, [PROJECT], () => {
      editYaml(repo, PROJECT, (doc) => doc.deleteIn(['phases', 'review']));
      expectRefused(repo, [['phase', 'set', 'metadata.a', 'b']], PROJECT, 'phases.review', { human: false });
    });
    // Restored, it loads again.
    ok(repo, ['project', 'status']);
  });
});

// Three errors at different places, each read by every use case: in-process (src/app/integrity.test.ts).
describe('YAML syntax errors', () => {
  it('name the line and column', () => {
    const repo = planning();
    const good = repo.read(PROJECT).split('\n');
    const line = good.findIndex((l) => l.startsWith('description:')) + 1;
    expect(line).toBeGreaterThan(1);
    const lines = [...good];
    lines[line - 1] = 'description: "unterminated';
    writeFileSync(join(repo.dir, PROJECT), lines.join('\n'));
    const [m] = expectRefused(repo, [['task', 'list']], PROJECT, undefined);
    expect(m).toMatch(new RegExp(`not valid YAML at line ${line}, column \\d+`));
  });
});

// Every use case, folders not named by an id, a dependency cycle: in-process (src/app/integrity.test.ts).
describe('task files that disagree with their folder or with each other', () => {
  it('are refused, naming the file and field (the task index is no excuse)', () => {
    const repo = fresh();
    toExecuting(repo);
    // The stat-checked index has seen both tasks; hand edits must still be noticed.
    ok(repo, ['task', 'list']);

    // The file of task 010 says it is 020. (Same size as before: only the content tells.)
    withEdited(repo, [taskFile('010')], () => {
      editYaml(repo, taskFile('010'), (doc) => doc.set('id', '020'));
      expectRefused(repo, [['task', 'list']], taskFile('010'), 'id');
    });

    // A dependency on a task that does not exist: the missing task's folder is named first, then
    // the file that depends on it (either may be what is wrong).
    withEdited(repo, [taskFile('020')], () => {
      editYaml(repo, taskFile('020'), (doc) => doc.set('dependencies', ['999']));
      const before = repo.snapshot();
      const r = repo.sow(['task', 'list', '--json']);
      expect(r.code).toBe(4);
      expect(r.json?.error).toMatchObject({
        code: 'TASK_FOLDER_MISSING',
        details: { folder: `${TASKS_DIR}/999`, needed_by: '020', file: taskFile('020'), field: 'dependencies.0' },
      });
      expect(r.json?.error?.message).toBe(
        `task 999 is missing: its folder ${TASKS_DIR}/999 does not exist, and task 020 depends on it`,
      );
      expect(repo.snapshot()).toEqual(before);
    });

    // All restored: it loads.
    expect(ok(repo, ['task', 'list', '--json']).json!.data.map((t: { id: string }) => t.id)).toEqual(['010', '020']);
  });
});

describe("the spec's wrapped layout (task: …, project: …)", () => {
  it('is told as that: the fields belong at the top level of the file (exit 4, nothing changes)', () => {
    const repo = fresh();
    toExecuting(repo, ['One']);
    const indent = (text: string) =>
      text
        .split('\n')
        .map((l) => (l ? `  ${l}` : l))
        .join('\n');
    for (const [file, wrapper] of [
      [taskFile('010'), 'task'],
      [PROJECT, 'project'],
    ] as const) {
      withEdited(repo, [file], () => {
        repo.write(file, `${wrapper}:\n${indent(repo.read(file))}`);
        const before = repo.snapshot();
        const r = repo.sow(['task', 'list']);
        expect(r.code, r.stderr).toBe(4);
        expect(r.stderr).toContain(
          `error: ${file}: its fields are under '${wrapper}:', as one drawing of the specification shows them; sow ` +
            `keeps them at the top level of the file`,
        );
        expect(repo.snapshot()).toEqual(before);
      });
    }
  });
});

describe('initialised means initialised', () => {
  // Every use case: in-process (src/app/integrity.test.ts); here a read and a write.
  const commands = [
    ['task', 'list'],
    ['task', 'add', 'X'],
  ];

  it('a .sow/ holding only runtime files is not a workspace: every command says to run sow init', () => {
    const repo = fresh({ init: false });
    repo.write(`${RUNTIME}/.gitignore`, '*\n');
    repo.write(`${RUNTIME}/tmp/leftover.tmp`, 'x');
    for (const args of commands) {
      const r = repo.sow([...args, '--json']);
      expect(r.code, `sow ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.json?.error?.code, `sow ${args.join(' ')}`).toBe('NOT_INITIALIZED');
      expect(r.json!.error!.message).toContain('not initialised');
      expect(r.json!.error!.hint).toBe("run 'sow init'");
      const human = repo.sow(args);
      expect(human.code).toBe(1);
      expect(human.stderr).toMatch(/^error: .*not initialised/m);
      expect(human.stderr).toContain("hint: run 'sow init'");
      expect(repo.exists('.sow/.version'), `sow ${args.join(' ')} did not initialise`).toBe(false);
      expect(repo.exists(PROJECT)).toBe(false);
    }
    expect(gitStatus(repo)).toEqual([]);

    // project new is the one that initialises by itself (and says so).
    expect(ok(repo, ['project', 'new', 'y', '--description', 'd']).stderr).toContain('Initialised .sow/');
    expect(repo.read('.sow/.version').trim()).toMatch(/^\d+$/);
    expect(repo.exists('.sow/.gitignore')).toBe(true);
    expect(repo.yaml(PROJECT).name).toBe('y');
  });

  it('after checking out a branch where sow was never committed: nothing in git status, and sow asks for init', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'x', '--description', 'd']);
    ok(repo, ['task', 'list']);
    commitAll(repo, 'sow and project x');
    repo.git(['checkout', '-q', 'main']);
    expect(repo.exists('.sow/.version')).toBe(false);
    expect(gitStatus(repo)).toEqual([]);
    const r = repo.sow(['task', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not initialised');
    expect(r.stderr).toContain("hint: run 'sow init'");
    expect(gitStatus(repo)).toEqual([]);
  });
});

describe('runtime files are never in git', () => {
  it(
    'with .sow/.gitignore deleted and committed: writes, reads and killed writes leave nothing under .git/sow/ in ' +
      'git status',
    async () => {
      const repo = planning();
      repo.write(TASK_LIST, '# Tasks\n');
      ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true']);
      ok(repo, ['advance']);
      commitAll(repo, 'project');
      repo.git(['rm', '-q', '.sow/.gitignore']);
      repo.git(['commit', '-qm', 'no .sow/.gitignore']);
      expect(gitStatus(repo)).toEqual([]);

      ok(repo, ['task', 'add', 'One', '--agent', 'implementer']);
      ok(repo, ['phase', 'set', 'metadata.note', 'x']);
      ok(repo, ['task', 'list']);
      // Killed while holding the lock: the lock file stays behind, and git must not see it.
      let lockLeft = 0;
      for (let i = 0; i < 6 && lockLeft < 2; i++) {
        const child = spawnSow(repo, ['task', 'add', `Held ${i}`, '--agent', 'implementer']);
        const held = spinUntil(() => existsSync(join(repo.dir, LOCK)), child);
        if (held) child.kill('SIGKILL');
        const { signal } = await exited(child);
        if (held && signal === 'SIGKILL' && repo.exists(LOCK)) {
          lockLeft++;
          expect(
            gitStatus(repo).filter((l) => l.includes('.git/sow')),
            "with a dead writer's lock",
          ).toEqual([]);
          ok(repo, ['phase', 'set', 'metadata.after_kill', String(i)]);
        }
      }
      expect(lockLeft, 'managed to kill a writer while it held the lock').toBeGreaterThan(0);
      // Killed at random moments of their life.
      let killed = 0;
      for (let i = 0; i < 16 && killed < 3; i++) {
        const child = spawnSow(repo, ['task', 'add', `Killed ${i}`, '--agent', 'implementer']);
        // Anywhere within a write's life (a write takes ~100–200 ms here).
        await sleep(Math.random() * 150);
        child.kill('SIGKILL');
        if ((await exited(child)).signal === 'SIGKILL') killed++;
        expect(
          gitStatus(repo).filter((l) => l.includes('.git/sow')),
          `after random kill ${i}`,
        ).toEqual([]);
      }
      expect(killed, 'some writes were killed').toBeGreaterThan(0);
      ok(repo, ['task', 'list']);
      ok(repo, ['task', 'add', 'After', '--agent', 'implementer']);

      const status = gitStatus(repo);
      expect(status.filter((l) => l.includes('.git/sow'))).toEqual([]);
      expect(status.filter((l) => l.includes('.gitignore'))).toEqual([]);
      // Only state shows: the project file and new task folders.
      for (const line of status) expect(line).toMatch(/^( M|\?\?) \.sow\/project\//);
      expect(existsSync(join(repo.dir, RUNTIME)), 'the runtime folder is there, just ignored').toBe(true);
    },
  );

  it('in a fresh clone (no .git/sow/ yet), writes work and create it, ignored', () => {
    const origin = planning();
    commitAll(origin, 'project');
    // A clone has every committed file and nothing git ignores: no .git/sow/.
    const repo = fresh({ init: false });
    rmSync(repo.dir, { recursive: true, force: true });
    spawnSync('git', ['clone', '-q', origin.dir, repo.dir]);
    expect(repo.git(['branch', '--show-current'])).toBe('feat/demo');
    expect(repo.exists('.sow/.version')).toBe(true);
    expect(repo.exists(RUNTIME)).toBe(false);
    expect(gitStatus(repo)).toEqual([]);

    const r = repo.sow(['phase', 'set', 'metadata.a', 'b']);
    expect(r.code, `sow phase set metadata.a b, in a fresh clone\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
    expect(repo.yaml(PROJECT).phases.planning.metadata.a).toBe('b');
    ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
    expect(repo.exists(RUNTIME)).toBe(true);
    expect(gitStatus(repo)).toEqual([' M .sow/project/state.yaml']);
  });

  it(
    'sow init completes a .sow/.gitignore that lacks .runtime/, ' + ".backup/ and worktrees/, keeping the user's lines",
    () => {
      const repo = fresh();
      repo.write('.sow/.gitignore', '# mine\n*.tmp\n');
      const r = ok(repo, ['init']);
      expect(r.stderr).toMatch(/added/);
      expect(r.stderr).toContain('.runtime/');
      expect(r.stderr).toContain('.backup/');
      const lines = repo.read('.sow/.gitignore').split('\n');
      expect(lines.slice(0, 2)).toEqual(['# mine', '*.tmp']);
      expect(lines).toContain('.runtime/');
      expect(lines).toContain('.backup/');
      expect(lines).toContain('worktrees/');
      // Once is enough.
      const before = repo.read('.sow/.gitignore');
      const again = ok(repo, ['init']);
      expect(again.stderr).not.toMatch(/added/);
      expect(repo.read('.sow/.gitignore')).toBe(before);
      expect(
        repo.git(['check-ignore', '.sow/.runtime/lock', '.sow/.backup/1/x', '.sow/a.tmp']).split('\n'),
      ).toHaveLength(3);
    },
  );
});
