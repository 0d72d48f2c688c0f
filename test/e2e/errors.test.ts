/**
 * Bad input of every kind (DESIGN §5): a one-line `error:` with a `hint:` on stderr, the exit code
 * from the one table (1 failed, 2 usage, 3 blocked, 4 state file), no stack trace, the same exit
 * code and an {ok:false,error:{code,message,hint}} envelope with --json, and every state file left
 * byte-identical.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, ok, PROJECT, SOW, toExecuting, type Repo, type RunResult } from './harness.js';

interface Expected {
  /** Exit code (DESIGN §5). */
  exit: number;
  /** The stable error code of the --json envelope. */
  code: string;
  /** Substrings the message must contain (the offending identifier, quoted where sow quotes). */
  message?: string[];
  /** Substrings the hint must contain. */
  hint?: string[];
}

/** Checks the human rendering of an error: exactly `error: …` then `hint: …`, nothing on stdout. */
function expectHumanError(r: RunResult, exp: Expected, label: string): void {
  expect(r.code, `${label}: exit code\nstderr: ${r.stderr}`).toBe(exp.exit);
  expect(r.stdout, `${label}: stdout must stay empty on error`).toBe('');
  expect(r.stderr, `${label}: no stack trace`).not.toMatch(/^\s+at /m);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0], `${label}: first stderr line`).toMatch(/^error: \S/);
  // Soft, so a missing hint is reported together with whatever else is wrong.
  expect.soft(lines.length, `${label}: stderr is one error line and one hint line:\n${r.stderr}`).toBe(2);
  expect.soft(lines[1], `${label}: hint line\n${r.stderr}`).toMatch(/^hint: \S/);
  for (const s of exp.message ?? []) expect(lines[0], `${label}: message names ${s}`).toContain(s);
  for (const s of exp.hint ?? []) expect.soft(lines[1] ?? '', `${label}: hint mentions ${s}`).toContain(s);
}

function expectJsonError(r: RunResult, exp: Expected, human: RunResult, label: string): void {
  expect(r.code, `${label} --json: exit code\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(exp.exit);
  expect(r.stderr, `${label} --json: no stack trace`).not.toMatch(/^\s+at /m);
  expect(r.stdout.trim().split('\n'), `${label} --json: exactly one JSON document`).toHaveLength(1);
  expect(r.json, `${label} --json: stdout is JSON\n${r.stdout}`).toBeDefined();
  expect(r.json!.ok).toBe(false);
  expect(r.json!.data).toBeUndefined();
  const err = r.json!.error!;
  expect(err.code, `${label} --json: error code`).toBe(exp.code);
  expect(typeof err.message).toBe('string');
  expect(err.message.length).toBeGreaterThan(0);
  expect
    .soft(typeof err.hint === 'string' && err.hint.length > 0, `${label} --json: error.hint is missing\n${r.stdout}`)
    .toBe(true);
  for (const s of exp.message ?? []) expect(err.message, `${label} --json: message names ${s}`).toContain(s);
  for (const s of exp.hint ?? []) expect.soft(err.hint ?? '', `${label} --json: hint mentions ${s}`).toContain(s);
  // The same error, whichever way it is rendered.
  const firstLine = human.stderr.split('\n')[0] ?? '';
  if (firstLine.startsWith('error: ')) expect(err.message).toBe(firstLine.slice('error: '.length));
}

/** Runs `args` with and without --json and checks the error both ways and that .sow/ is untouched. */
function expectError(repo: Repo, args: string[], exp: Expected): void {
  const label = `sow ${args.join(' ')}`;
  const before = repo.snapshot();
  const human = repo.sow(args);
  expectHumanError(human, exp, label);
  expect(repo.snapshot(), `${label}: state files byte-identical`).toEqual(before);
  const json = repo.sow([...args, '--json']);
  expectJsonError(json, exp, human, label);
  expect(repo.snapshot(), `${label} --json: state files byte-identical`).toEqual(before);
  expect(repo.exists('.sow/.lock'), `${label}: lock released`).toBe(false);
  expect(repo.exists('.sow/.journal.json'), `${label}: no journal left`).toBe(false);
}

/** Cheap copies of a prepared repository, so each case starts from the same, fresh state. */
function cloneOf(template: Repo): Repo {
  const repo = makeRepo({ init: false });
  for (const name of readdirSync(repo.dir)) rmSync(join(repo.dir, name), { recursive: true, force: true });
  cpSync(template.dir, repo.dir, { recursive: true });
  return repo;
}

const templates: Repo[] = [];
let executing: Repo;
let planning: Repo;
let noProject: Repo;

beforeAll(() => {
  executing = makeRepo();
  toExecuting(executing, ['First task', 'Second task']);
  planning = makeRepo();
  ok(planning, ['project', 'new', 'demo', '--description', 'A demo project']);
  ok(planning, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
  noProject = makeRepo();
  templates.push(executing, planning, noProject);
});

afterAll(() => {
  for (const t of templates) t.cleanup();
});

let repo: Repo | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
});

type Case = [title: string, args: string[], exp: Expected];

const TASK_NOT_FOUND = (id: string): Expected => ({
  exit: 1,
  code: 'TASK_NOT_FOUND',
  message: [`'${id}'`],
  hint: ['sow task list'],
});

const executingCases: Case[] = [
  // unknown ids
  ['task get with an unknown id', ['task', 'get', '--id', '999'], TASK_NOT_FOUND('999')],
  ['task set with an unknown id', ['task', 'set', '--id', '999', 'status', 'completed'], TASK_NOT_FOUND('999')],
  ['task abandon with an unknown id', ['task', 'abandon', '--id', '555'], TASK_NOT_FOUND('555')],
  [
    'task input add with an unknown id',
    ['task', 'input', 'add', '--id', '990', '--type', 'reference', '--path', 'refs/a.md'],
    TASK_NOT_FOUND('990'),
  ],
  ['task output list with an unknown id', ['task', 'output', 'list', '--id', '030'], TASK_NOT_FOUND('030')],
  ['task add depending on an unknown id', ['task', 'add', 'Third', '--depends-on', '970'], TASK_NOT_FOUND('970')],
  [
    'phase set with an unknown phase',
    ['phase', 'set', 'metadata.a', 'b', '--phase', 'nosuchphase'],
    { exit: 1, code: 'PHASE_NOT_FOUND', message: ["'nosuchphase'"], hint: ['review'] },
  ],
  // wrong values
  [
    'task set status to a value that is no status',
    ['task', 'set', '--id', '010', 'status', 'bogus'],
    { exit: 1, code: 'INVALID_VALUE', message: ["'bogus'", 'status'] },
  ],
  [
    'task set iteration to text',
    ['task', 'set', '--id', '010', 'iteration', 'x'],
    { exit: 1, code: 'INVALID_VALUE', message: ["'x'", 'iteration'] },
  ],
  [
    'task set iteration to 0',
    ['task', 'set', '--id', '010', 'iteration', '0'],
    { exit: 1, code: 'INVALID_VALUE', message: ["'0'", 'iteration'] },
  ],
  [
    'task set parallel to a non-boolean',
    ['task', 'set', '--id', '020', 'parallel', 'maybe'],
    { exit: 1, code: 'INVALID_VALUE', message: ["'maybe'", 'parallel'] },
  ],
  [
    'task list --status with no such status (a flag outside its list: exit 2)',
    ['task', 'list', '--status', 'bogus'],
    { exit: 2, code: 'USAGE', message: ["'bogus'"], hint: ['completed'] },
  ],
  [
    'phase set iteration to text',
    ['phase', 'set', 'iteration', 'x'],
    { exit: 1, code: 'INVALID_VALUE', message: ["'x'", 'iteration'] },
  ],
  [
    'phase set tasks_approved to a non-boolean',
    ['phase', 'set', 'tasks_approved', 'maybe'],
    { exit: 1, code: 'INVALID_VALUE', message: ["'maybe'", 'tasks_approved'] },
  ],
  [
    'a review with an assessment that is neither pass nor fail',
    ['input', 'add', '--type', 'review', '--path', 'review/r.md', '--assessment', 'meh'],
    { exit: 1, code: 'INVALID_VALUE', message: ["'meh'", 'assessment'] },
  ],
  // bad flags, unknown commands, missing required flags and arguments
  ['an unknown flag', ['task', 'add', 'Third', '--bogus'], { exit: 2, code: 'USAGE', message: ['--bogus'] }],
  [
    'an unknown flag on a read command',
    ['task', 'list', '--frobnicate'],
    { exit: 2, code: 'USAGE', message: ['--frobnicate'] },
  ],
  ['an unknown command', ['bogus'], { exit: 2, code: 'USAGE', message: ["'bogus'"] }],
  ['an unknown subcommand', ['task', 'frob'], { exit: 2, code: 'USAGE', message: ["'frob'"] }],
  ['a missing required --id', ['task', 'get'], { exit: 2, code: 'USAGE', message: ['--id'] }],
  ['a missing required --path', ['input', 'add', '--type', 'context'], { exit: 2, code: 'USAGE', message: ['--path'] }],
  [
    'a missing required --index',
    ['output', 'set', 'approved', 'true'],
    { exit: 2, code: 'USAGE', message: ['--index'] },
  ],
  [
    'a missing required argument',
    ['task', 'set', '--id', '010', 'status'],
    { exit: 2, code: 'USAGE', message: ['value'] },
  ],
  [
    'a stray argument to artifact add',
    ['input', 'add', '--type', 'context', '--path', 'a.md', 'stray'],
    { exit: 2, code: 'USAGE', message: ["'stray'"] },
  ],
  // indexes
  [
    'an out-of-range task input index',
    ['task', 'input', 'set', '--id', '010', '--index', '3', 'approved', 'true'],
    { exit: 1, code: 'INDEX_OUT_OF_RANGE', message: ['3'], hint: ['sow task input list --id 010'] },
  ],
  [
    'a negative index',
    ['output', 'set', '--index', '-1', 'approved', 'true', '--phase', 'planning'],
    { exit: 2, code: 'USAGE', message: ["'-1'"] },
  ],
  [
    'an index that is not a number',
    ['output', 'set', '--index', 'abc', 'approved', 'true', '--phase', 'planning'],
    { exit: 2, code: 'USAGE', message: ["'abc'"] },
  ],
  // artifact types
  [
    'an unknown phase artifact type',
    ['input', 'add', '--type', 'nope', '--path', 'x.md'],
    { exit: 1, code: 'UNKNOWN_ARTIFACT_TYPE', message: ["'nope'"], hint: ['context', 'review'] },
  ],
  [
    'an unknown task artifact type',
    ['task', 'output', 'add', '--id', '010', '--type', 'nope', '--path', 'x.md'],
    { exit: 1, code: 'UNKNOWN_ARTIFACT_TYPE', message: ["'nope'"], hint: ['modified'] },
  ],
  [
    'an artifact type of another phase',
    ['output', 'add', '--phase', 'planning', '--type', 'review', '--path', 'x.md'],
    { exit: 1, code: 'UNKNOWN_ARTIFACT_TYPE', message: ["'review'"], hint: ['task_list'] },
  ],
  // task ids
  [
    'a two-digit task id that names a taken one (10 is 010)',
    ['task', 'add', 'Third', '--id', '10'],
    { exit: 1, code: 'TASK_ID_TAKEN', message: ["'010'"] },
  ],
  [
    'a task id that is no number',
    ['task', 'add', 'Third', '--id', '1a'],
    { exit: 2, code: 'USAGE', message: ["'1a'", '--id'] },
  ],
  [
    'a task id that is not digits',
    ['task', 'add', 'Third', '--id', 'abc'],
    { exit: 2, code: 'USAGE', message: ["'abc'"] },
  ],
  [
    'a task id already used',
    ['task', 'add', 'Third', '--id', '010'],
    { exit: 1, code: 'TASK_ID_TAKEN', message: ["'010'"] },
  ],
  // names
  ['an empty task name', ['task', 'add', '   '], { exit: 2, code: 'USAGE', message: ['name'] }],
  [
    'renaming a task to nothing',
    ['task', 'set', '--id', '010', 'name', ''],
    { exit: 1, code: 'INVALID_VALUE', message: ['name'] },
  ],
  [
    'renaming the project to a bad name (a field value: exit 1)',
    ['project', 'set', 'name', 'Bad_Name'],
    { exit: 1, code: 'INVALID_VALUE', message: ["'Bad_Name'"] },
  ],
  // read-only fields
  [
    'setting the phase status',
    ['phase', 'set', 'status', 'completed'],
    { exit: 1, code: 'READ_ONLY_FIELD', message: ["'status'"], hint: ['sow advance'] },
  ],
  [
    'setting a task id',
    ['task', 'set', '--id', '010', 'id', '020'],
    { exit: 1, code: 'READ_ONLY_FIELD', message: ["'id'"] },
  ],
  [
    'setting a task timestamp',
    ['task', 'set', '--id', '010', 'started_at', '2020-01-01T00:00:00Z'],
    { exit: 1, code: 'READ_ONLY_FIELD', message: ["'started_at'"] },
  ],
  [
    'setting the statechart state',
    ['project', 'set', 'statechart.current_state', 'ReviewActive'],
    { exit: 1, code: 'READ_ONLY_FIELD', message: ['statechart'], hint: ['sow advance'] },
  ],
  [
    'setting the statechart',
    ['project', 'set', 'statechart', 'ReviewActive'],
    { exit: 1, code: 'READ_ONLY_FIELD', message: ['statechart'], hint: ['sow advance'] },
  ],
  [
    'moving the project to a branch that is not checked out',
    ['project', 'set', 'branch', 'other'],
    { exit: 1, code: 'INVALID_VALUE', message: ["'other'", "'branch'"], hint: ['git checkout'] },
  ],
  [
    'disabling review',
    ['phase', 'set', 'enabled', 'false', '--phase', 'review'],
    { exit: 1, code: 'READ_ONLY_FIELD', message: ['review'] },
  ],
  // paths
  [
    'a phase input path that escapes the repository',
    ['input', 'add', '--type', 'context', '--path', '../../../etc/passwd'],
    { exit: 1, code: 'PATH_OUTSIDE_REPOSITORY', message: ["'../../../etc/passwd'"] },
  ],
  [
    'a task input path that escapes the repository',
    ['task', 'input', 'add', '--id', '010', '--type', 'reference', '--path', '../../../x'],
    { exit: 1, code: 'PATH_OUTSIDE_REPOSITORY', message: ["'../../../x'"] },
  ],
  [
    'a path that escapes through a folder first',
    ['input', 'add', '--type', 'context', '--path', 'notes/../../../../x.md'],
    { exit: 1, code: 'PATH_OUTSIDE_REPOSITORY', message: ["'notes/../../../../x.md'"] },
  ],
  [
    'an absolute artifact path outside the repository',
    ['input', 'add', '--type', 'context', '--path', '/etc/passwd'],
    { exit: 1, code: 'PATH_OUTSIDE_REPOSITORY', message: ["'/etc/passwd'"] },
  ],
  // the lifecycle
  [
    'a blocked advance',
    ['advance'],
    { exit: 3, code: 'TRANSITION_BLOCKED', message: ['ImplementationExecuting'], hint: ['010', '020'] },
  ],
  [
    'a blocked advance, dry run',
    ['advance', '--dry-run'],
    { exit: 3, code: 'TRANSITION_BLOCKED', message: ['ImplementationExecuting'] },
  ],
  [
    'an explicit event the state does not have',
    ['advance', 'review_pass'],
    {
      exit: 1,
      code: 'INVALID_EVENT',
      message: ["'review_pass'", 'ImplementationExecuting'],
      hint: ['all_tasks_complete'],
    },
  ],
  [
    'an explicit event that is no event at all',
    ['advance', 'frobnicate'],
    { exit: 1, code: 'INVALID_EVENT', message: ["'frobnicate'"] },
  ],
  [
    'a second project on the branch',
    ['project', 'new', 'other', '--description', 'x'],
    { exit: 1, code: 'PROJECT_EXISTS', message: ["'demo'"] },
  ],
  [
    'project delete without a terminal and without --yes',
    ['project', 'delete'],
    { exit: 2, code: 'CONFIRMATION_REQUIRED', message: ["'demo'"], hint: ['--yes'] },
  ],
];

describe('bad input in a project that is executing tasks', () => {
  it.each(executingCases)('%s', (_title, args, exp) => {
    repo = cloneOf(executing);
    expectError(repo, args, exp);
  });

  it('accepts a path that leaves .sow/project/ but stays in the repository (control)', () => {
    repo = cloneOf(executing);
    const r = ok(repo, ['input', 'add', '--type', 'context', '--path', '../knowledge/adr-001.md']);
    expect(r.stdout).toContain('../knowledge/adr-001.md');
    expect(repo.yaml(PROJECT).phases.implementation.inputs.map((a: any) => a.path)).toEqual([
      '../knowledge/adr-001.md',
    ]);
  });

  it('a blocked explicit event exits 3 and names the guard', () => {
    repo = cloneOf(executing);
    expectError(repo, ['advance', 'all_tasks_complete'], {
      exit: 3,
      code: 'TRANSITION_BLOCKED',
      message: ['completed or abandoned'],
    });
  });
});

const planningCases: Case[] = [
  [
    'an out-of-range phase output index',
    ['output', 'set', '--index', '3', 'approved', 'true'],
    { exit: 1, code: 'INDEX_OUT_OF_RANGE', message: ['index 3'], hint: ['sow output list --phase planning'] },
  ],
  [
    'removing an out-of-range output',
    ['output', 'remove', '--index', '1'],
    { exit: 1, code: 'INDEX_OUT_OF_RANGE', message: ['index 1'] },
  ],
  [
    'moving an artifact path outside the repository',
    ['output', 'set', '--index', '0', 'path', '../../../x'],
    { exit: 1, code: 'PATH_OUTSIDE_REPOSITORY', message: ["'../../../x'"] },
  ],
  [
    'approving with a non-boolean',
    ['output', 'set', '--index', '0', 'approved', 'yes please'],
    { exit: 1, code: 'INVALID_VALUE', message: ["'yes please'", 'approved'] },
  ],
  [
    'changing an artifact type',
    ['output', 'set', '--index', '0', 'type', 'review'],
    { exit: 1, code: 'READ_ONLY_FIELD', message: ["'type'"] },
  ],
  [
    'a blocked advance out of planning',
    ['advance'],
    {
      exit: 3,
      code: 'TRANSITION_BLOCKED',
      message: ['PlanningActive', 'task_list'],
      hint: ['sow output set --index 0 approved true'],
    },
  ],
  [
    'adding a task while planning',
    ['task', 'add', 'Too early'],
    { exit: 3, code: 'PHASE_NOT_ACTIVE', message: ['PlanningActive'] },
  ],
  [
    'an unknown artifact type in planning',
    ['output', 'add', '--type', 'nope', '--path', 'x.md'],
    { exit: 1, code: 'UNKNOWN_ARTIFACT_TYPE', message: ["'nope'"], hint: ['task_list'] },
  ],
];

describe('bad input while planning', () => {
  it.each(planningCases)('%s', (_title, args, exp) => {
    repo = cloneOf(planning);
    expectError(repo, args, exp);
  });
});

const NO_PROJECT: Expected = { exit: 1, code: 'NO_PROJECT', message: ['no project'], hint: ['sow project new'] };
const noProjectCases: Case[] = [
  ['task list', ['task', 'list'], NO_PROJECT],
  ['task add', ['task', 'add', 'A task'], NO_PROJECT],
  ['task get', ['task', 'get', '--id', '010'], NO_PROJECT],
  ['advance', ['advance'], NO_PROJECT],
  ['phase set', ['phase', 'set', 'metadata.a', 'b'], NO_PROJECT],
  ['output add', ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md'], NO_PROJECT],
  ['project status', ['project', 'status'], NO_PROJECT],
  ['project set', ['project', 'set', 'description', 'x'], NO_PROJECT],
  ['project delete --yes', ['project', 'delete', '--yes'], NO_PROJECT],
  [
    'a bad project name',
    ['project', 'new', 'Bad_Name', '--description', 'x'],
    { exit: 2, code: 'INVALID_NAME', message: ["'Bad_Name'"] },
  ],
  [
    'a project name with a double dash',
    ['project', 'new', 'a--b', '--description', 'x'],
    { exit: 2, code: 'INVALID_NAME', message: ["'a--b'"] },
  ],
  [
    'a bad branch name',
    ['project', 'new', 'good', '--branch', 'bad..branch', '--description', 'x'],
    { exit: 2, code: 'INVALID_NAME', message: ["'bad..branch'"] },
  ],
];

describe('commands with no project', () => {
  it.each(noProjectCases)('%s', (_title, args, exp) => {
    repo = cloneOf(noProject);
    const branch = repo.git(['branch', '--show-current']);
    expectError(repo, args, exp);
    expect(repo.exists(PROJECT)).toBe(false);
    expect(repo.git(['branch', '--show-current']), 'a failed command does not switch branches').toBe(branch);
  });
});

describe('commands before sow init', () => {
  const NOT_INITIALIZED: Expected = {
    exit: 1,
    code: 'NOT_INITIALIZED',
    message: ['not initialised'],
    hint: ['sow init'],
  };
  it.each<Case>([
    ['task list', ['task', 'list'], NOT_INITIALIZED],
    ['advance', ['advance'], NOT_INITIALIZED],
    ['output add', ['output', 'add', '--type', 'task_list', '--path', 'x.md'], NOT_INITIALIZED],
  ])('%s', (_title, args, exp) => {
    repo = makeRepo({ init: false });
    expectError(repo, args, exp);
    expect(repo.exists('.sow'), 'nothing is created').toBe(false);
    expect(repo.git(['branch', '--show-current'])).toBe('main');
  });
});

describe('commands outside a git repository', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  const runIn = (cwd: string, args: string[]): RunResult => {
    const r = spawnSync(process.execPath, [SOW, ...args], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', GIT_CEILING_DIRECTORIES: tmpdir() },
    });
    const result: RunResult = { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
    try {
      result.json = JSON.parse(r.stdout);
    } catch {
      // not JSON
    }
    return result;
  };

  it.each<[string, string[]]>([
    ['init', ['init']],
    ['task list', ['task', 'list']],
    ['project new', ['project', 'new', 'demo', '--description', 'x']],
    ['advance', ['advance']],
  ])('%s', (_title, args) => {
    dir = mkdtempSync(join(tmpdir(), 'sow-nogit-'));
    // Precondition: the temp folder really is outside any repository.
    for (let p = dir; ; p = dirname(p)) {
      expect(existsSync(join(p, '.git')), `${p} must not be a repository`).toBe(false);
      if (dirname(p) === p) break;
    }
    const exp: Expected = {
      exit: 1,
      code: 'NOT_A_GIT_REPOSITORY',
      message: [dir, 'not inside a git repository'],
      hint: ['git init'],
    };
    const human = runIn(dir, args);
    expectHumanError(human, exp, `sow ${args.join(' ')}`);
    const json = runIn(dir, [...args, '--json']);
    expectJsonError(json, exp, human, `sow ${args.join(' ')}`);
    expect(readdirSync(dir), 'nothing is created').toEqual([]);
  });
});
