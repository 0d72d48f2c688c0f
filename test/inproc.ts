/**
 * In-process harness for the use cases of src/app/: a temp git repository per test, copied from
 * templates made once per test file (as test/e2e/harness.ts does for the built binary), and a
 * context with a clock the test sets and the environment of whoever acts (the user, a worker).
 * No sow process is started: a use case is a function call, its refusal a thrown SowError.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, afterEach, expect } from 'vitest';
import type { AppContext } from '../src/app/context.js';
import { exitCodeFor, SowError } from '../src/domain/errors.js';
import { snapshotSow } from './snapshot.js';

/** The time every world starts at. */
export const T0 = '2026-11-26T10:00:00.000Z';

/** A clock that stands still until the test moves it. */
export interface Clock {
  now(): string;
  set(iso: string): void;
  /** Moves the clock on by `seconds`. */
  advance(seconds: number): void;
}

function fixedClock(at = T0): Clock {
  let t = Date.parse(at);
  return {
    now: () => new Date(t).toISOString(),
    set: (iso) => void (t = Date.parse(iso)),
    advance: (seconds) => void (t += seconds * 1000),
  };
}

/** What every context's environment holds: a state folder of this test file's own (check allowances), no colour. */
// Beside the worlds of the test file (under its root, removed with it): the file's own, also when
// test files share a process (`test:fast` runs them without isolation).
const baseEnv = (stateHome: string): Readonly<Record<string, string>> => ({
  NO_COLOR: '1',
  HOME: join(stateHome, 'home'),
  XDG_STATE_HOME: stateHome,
  XDG_CONFIG_HOME: join(stateHome, 'config'),
});

/** The environment of a worker sow spawned: its agent id and, when it works on one, its task. */
export const workerEnv = (agentId: string, task?: string): Record<string, string> => ({
  SOW_AGENT_ID: agentId,
  SOW_AGENT: agentId.replace(/-\d+$/, ''),
  ...(task !== undefined ? { SOW_TASK_ID: task } : {}),
});

export interface World {
  dir: string;
  clock: Clock;
  /** The context of the user at the repository root (or `cwd` in it), with `env` added to the base environment. */
  ctx(env?: Record<string, string>, cwd?: string): AppContext;
  /** The context of a worker sow spawned (SOW_AGENT_ID, SOW_TASK_ID). */
  as(agentId: string, task?: string): AppContext;
  git(args: string[]): string;
  read(rel: string): string;
  write(rel: string, text: string): void;
  yaml(rel: string): any;
  exists(rel: string): boolean;
  /** Every file under .sow/ that belongs to the state (runtime files excluded) → its text. */
  snapshot(): Map<string, string>;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'sow test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'sow test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};
const git = (dir: string, args: string[]) =>
  execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' }).trim();

function world(dir: string): World {
  const clock = fixedClock();
  const base = baseEnv(join(dirname(dir), 'state'));
  const ctx = (env: Record<string, string> = {}, cwd?: string): AppContext => ({
    cwd: cwd ? join(dir, cwd) : dir,
    env: { ...base, ...env },
    now: clock.now,
  });
  return {
    dir,
    clock,
    ctx,
    as: (agentId, task) => ctx(workerEnv(agentId, task)),
    git: (args) => git(dir, args),
    read: (rel) => readFileSync(join(dir, rel), 'utf8'),
    write: (rel, text) => {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    },
    yaml: (rel) => parse(readFileSync(join(dir, rel), 'utf8')),
    exists: (rel) => existsSync(join(dir, rel)),
    snapshot: () => snapshotSow(dir),
  };
}

/**
 * `worlds(setups)` gives a function that makes a fresh world from a named starting point: `bare`
 * (a git repository with one commit, on main) or `init` (and `sow init`), or one of `setups`, each
 * built once per test file from a fresh `init` world and copied for each test. Worlds are removed
 * after each test.
 */
export function worlds<K extends string>(
  setups: Record<K, (w: World) => Promise<void>> = {} as Record<K, never>,
): (from?: 'bare' | 'init' | K) => Promise<World> {
  const root = mkdtempSync(join(tmpdir(), 'sow-inproc-'));
  const made = new Map<string, Promise<string>>();
  let n = 0;
  const fresh = () => {
    const dir = join(root, String(n++));
    mkdirSync(dir);
    return dir;
  };
  const build = (key: string): Promise<string> => {
    let p = made.get(key);
    if (p) return p;
    p = (async () => {
      const dir = fresh();
      if (key === 'bare' || key === 'init') {
        // No template: git's sample hooks and description are a dozen inert files that every copy of
        // the repository would copy again and every test would remove.
        git(dir, ['init', '-q', '--template=', '-b', 'main']);
        git(dir, ['commit', '-q', '--allow-empty', '-m', 'initial']);
        if (key === 'init') (await import('../src/app/init.js')).initWorkspace(dir);
        return dir;
      }
      cpSync(await build('init'), dir, { recursive: true, verbatimSymlinks: true });
      await (setups as Record<string, (w: World) => Promise<void>>)[key]!(world(dir));
      return dir;
    })();
    made.set(key, p);
    return p;
  };
  const used: string[] = [];
  afterEach(() => {
    for (const dir of used.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return async (from = 'init') => {
    const dir = fresh();
    cpSync(await build(from), dir, { recursive: true, verbatimSymlinks: true });
    used.push(dir);
    return world(dir);
  };
}

/**
 * Expects `run` to be refused with this error code and exit code, with a hint, and to leave every
 * state file as it was. Returns the error.
 */
export async function refused(
  w: World,
  run: () => Promise<unknown>,
  code: string,
  exitCode?: number,
): Promise<SowError> {
  const before = w.snapshot();
  let error: unknown;
  try {
    await run();
  } catch (err) {
    error = err;
  }
  expect(error, `expected ${code}`).toBeInstanceOf(SowError);
  const e = error as SowError;
  expect(e.code, e.message).toBe(code);
  if (exitCode !== undefined) expect(exitCodeFor(e.kind), e.message).toBe(exitCode);
  expect(e.hint, `${code}: a refusal names the next step`).toMatch(/\S/);
  expect(w.snapshot(), `${code} changed .sow/`).toEqual(before);
  return e;
}

export const PROJECT = '.sow/project/state.yaml';
export const taskFile = (id: string) => `.sow/project/phases/implementation/tasks/${id}/state.yaml`;
export const TASK_LIST = '.sow/project/planning/tasks.md';

/**
 * A standard project in ImplementationPlanning (its task list approved, no tasks yet), as test/e2e/harness.ts's
 * inImplementationPlanning makes it.
 */
export async function toImplementationPlanning(w: World): Promise<void> {
  const { newProject } = await import('../src/app/project.js');
  const { addArtifact } = await import('../src/app/artifacts.js');
  const { advanceProject } = await import('../src/app/advance.js');
  const ctx = w.ctx();
  await newProject(ctx, { name: 'demo', description: 'A demo project', planning: true });
  w.write(TASK_LIST, '# Tasks\n');
  await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
    type: 'task_list',
    path: 'planning/tasks.md',
    approved: 'true',
    extra: {},
  });
  await advanceProject(ctx, undefined, false);
}

/**
 * A standard project brought to ImplementationExecuting with these tasks (ids 010, 020, …), by
 * the use cases the commands of test/e2e/harness.ts's toExecuting call.
 */
export async function toExecuting(w: World, tasks: readonly string[] = ['First task', 'Second task']): Promise<void> {
  const { newProject } = await import('../src/app/project.js');
  const { addArtifact, setArtifact } = await import('../src/app/artifacts.js');
  const { advanceProject } = await import('../src/app/advance.js');
  const { addTask } = await import('../src/app/task.js');
  const { setPhaseField } = await import('../src/app/phase.js');
  const ctx = w.ctx();
  await newProject(ctx, { name: 'demo', description: 'A demo project', planning: true });
  w.write(TASK_LIST, '# Tasks\n');
  await addArtifact(ctx, { kind: 'phase' }, 'outputs', { type: 'task_list', path: 'planning/tasks.md', extra: {} });
  await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
  await advanceProject(ctx, undefined, false);
  for (const name of tasks) await addTask(ctx, { name, agent: 'implementer' });
  await setPhaseField(ctx, 'tasks_approved', 'true');
  await advanceProject(ctx, undefined, false);
}

/**
 * Runs a project type's command in-process from the words a user would type after `sow`
 * (`['iter', 'log', 'R1', '--did', 'x']`): the group, the command's words, its arguments, and
 * `--name value` options (a switch when its flags take no value), as commander would hand them over.
 */
export async function typeCommand(
  where: AppContext,
  argv: readonly string[],
): Promise<import('../src/domain/type-commands.js').CommandResult> {
  const { runTypeCommand } = await import('../src/app/type-commands.js');
  const { allProjectTypes } = await import('../src/domain/project-types/index.js');
  const type = (await allProjectTypes()).find((t) => t.commands?.name === argv[0]);
  if (!type?.commands) throw new Error(`no type has the command group ${argv[0]}`);
  const def = [...type.commands.commands]
    .sort((a, b) => b.name.split(' ').length - a.name.split(' ').length)
    .find((c) => c.name.split(' ').every((word, i) => argv[i + 1] === word));
  if (!def) throw new Error(`${argv[0]} has no command ${argv.slice(1, 3).join(' ')}`);
  const rest = argv.slice(1 + def.name.split(' ').length);
  const args: string[] = [];
  const opts: Record<string, string | boolean> = {};
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (!word.startsWith('--')) {
      args.push(word);
      continue;
    }
    const flags = def.options?.find((o) => o.flags.split(' ')[0] === word)?.flags;
    if (flags === undefined) throw new Error(`${argv[0]} ${def.name} has no option ${word}`);
    const key = word.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    opts[key] = flags.includes('<') ? rest[++i]! : true;
  }
  return runTypeCommand(where, type, def, args, opts);
}

/** A refusal as test/e2e/harness.ts's expectFails returns it: "message\nhint". */
export const said = (e: SowError): string => `${e.message}\n${e.hint}`;
