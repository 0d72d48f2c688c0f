/**
 * The command surface, one area at a time: init, project, phase, task, artifacts, --json, advance
 * and schema. Exit codes, stdout/stderr and the state files are checked as a user sees them.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  useRepos,
  ok,
  expectEnvelope,
  expectFails,
  inImplementationPlanning,
  inPlanning,
  PROJECT,
  SOW,
  TASK_LIST,
  taskFile,
  toExecuting,
  type Repo,
  type RunResult,
} from './harness.js';

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

const fresh = useRepos();
const planning = () => inPlanning(fresh);
const implementationPlanning = () => inImplementationPlanning(fresh);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs sow in a directory that is not a prepared repo. */
function sowIn(cwd: string, args: string[]): RunResult {
  const r = spawnSync(process.execPath, [SOW, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  const result: RunResult = { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  try {
    result.json = JSON.parse(r.stdout);
  } catch {
    // not JSON
  }
  return result;
}

function out(repo: Repo, args: string[], opts?: { cwd?: string }): string {
  return ok(repo, args, opts).stdout.replace(/\n$/, '');
}

describe('sow init', () => {
  it('creates .sow/ with .version, knowledge/, refs/ and a .gitignore for runtime files', () => {
    const repo = fresh({ init: false });
    const r = repo.sow(['init']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(realpathSync(repo.dir));
    expect(repo.read('.sow/.version').trim()).toMatch(/^\d+$/);
    expect(repo.exists('.sow/knowledge')).toBe(true);
    expect(repo.exists('.sow/refs')).toBe(true);
    // Runtime files live in git's folder, where git never looks; the folders an older sow kept them in are ignored;
    // state files are not.
    const ignored = repo
      .git([
        'check-ignore',
        '.sow/.runtime/lock',
        '.sow/.runtime/journal.json',
        '.sow/.backup/1/.version',
        '.sow/worktrees/x/a',
      ])
      .split('\n');
    expect(ignored).toEqual([
      '.sow/.runtime/lock',
      '.sow/.runtime/journal.json',
      '.sow/.backup/1/.version',
      '.sow/worktrees/x/a',
    ]);
    for (const path of ['.sow/project/state.yaml', '.sow/.version', '.sow/knowledge/adr-001.md']) {
      expect(spawnSync('git', ['check-ignore', '-q', path], { cwd: repo.dir }).status, path).toBe(1);
    }

    // Running it again changes nothing.
    const before = repo.snapshot();
    const again = repo.sow(['init']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already');
    expect(repo.snapshot()).toEqual(before);
  });

  it('works from any subdirectory, like git, and so do the other commands', () => {
    const repo = fresh({ init: false });
    mkdirSync(join(repo.dir, 'src', 'deep'), { recursive: true });
    ok(repo, ['init'], { cwd: 'src/deep' });
    expect(repo.exists('.sow/.version')).toBe(true);
    expect(readdirSync(join(repo.dir, 'src', 'deep'))).toEqual([]);

    expect(out(repo, ['project', 'new', 'from-sub', '--description', 'x'], { cwd: 'src/deep' })).toBe('PlanningActive');
    expect(repo.yaml(PROJECT).name).toBe('from-sub');
    expect(out(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md'], { cwd: 'src' })).toBe(
      '[0] task_list: planning/tasks.md (not approved)',
    );
    expect(out(repo, ['phase', 'get', 'status'], { cwd: 'src/deep' })).toBe('in_progress');
    expect(readdirSync(join(repo.dir, 'src'))).toEqual(['deep']);
  });

  it('refuses outside a git repository and says why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sow-nogit-'));
    dirs.push(dir);
    const r = sowIn(dir, ['init']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('not inside a git repository');
    expect(r.stderr).toContain('git init');
    expect(readdirSync(dir)).toEqual([]);
    const json = sowIn(dir, ['init', '--json']);
    expect(json.code).toBe(1);
    expect(expectEnvelope(json)).toMatchObject({
      ok: false,
      error: { code: 'NOT_A_GIT_REPOSITORY', hint: expect.stringContaining('git init') },
    });
  });

  it('other commands say to run sow init first', () => {
    const repo = fresh({ init: false });
    const r = repo.sow(['task', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("run 'sow init'");
    expect(repo.exists('.sow')).toBe(false);
  });

  it('project new initialises .sow/ itself, and says so, where there is none', () => {
    const repo = fresh({ init: false });
    const r = ok(repo, ['project', 'new', 'early', '--description', 'First thing']);
    expect(r.stdout).toBe('PlanningActive\n');
    expect(r.stderr.split('\n')[0]).toBe(`Initialised .sow/ in ${realpathSync(repo.dir)} (there was none)`);
    expect(r.stderr).toContain("Created project 'early'");
    // What 'sow init' makes, and the project.
    expect(repo.read('.sow/.version').trim()).toMatch(/^\d+$/);
    for (const rel of ['.sow/.gitignore', '.sow/knowledge/.gitkeep', '.sow/refs/.gitkeep', PROJECT])
      expect(repo.exists(rel), rel).toBe(true);
    expect(repo.git(['branch', '--show-current'])).toBe('feat/early');
    expect(ok(repo, ['init']).stderr).toContain('already initialised');

    // --json says so in the data (false where .sow/ was there: see the next describe).
    const other = fresh({ init: false });
    expect(expectEnvelope(ok(other, ['project', 'new', 'second', '--json'])).data).toMatchObject({
      initialised: true,
      state: 'PlanningActive',
    });
  });

  it('a project new refused before it starts leaves no .sow/ behind', () => {
    const repo = fresh({ init: false });
    for (const args of [
      ['project', 'new', 'Bad Name'],
      ['project', 'new', 'ok-name', '--type', 'nosuch'],
      ['project', 'new', 'ok-name', '--branch', 'bad..branch'],
    ]) {
      const r = repo.sow(args);
      expect(r.code, `sow ${args.join(' ')}: ${r.stderr}`).not.toBe(0);
      expect(r.stderr).not.toContain('Initialised');
      expect(repo.exists('.sow'), `sow ${args.join(' ')}`).toBe(false);
    }
    repo.git(['checkout', '-q', '--detach']);
    expect(repo.sow(['project', 'new', 'detached']).code).toBe(1);
    expect(repo.exists('.sow')).toBe(false);
  });
});

describe('sow project new', () => {
  it('on main creates and checks out feat/<name> and records the branch', () => {
    const repo = fresh();
    const r = ok(repo, ['project', 'new', 'add-auth', '--description', 'Add JWT', '--json']);
    expect(expectEnvelope(r)).toEqual({
      ok: true,
      data: {
        name: 'add-auth',
        branch: 'feat/add-auth',
        base_branch: 'main',
        created_branch: true,
        initialised: false,
        state: 'PlanningActive',
      },
    });
    expect(repo.git(['branch', '--show-current'])).toBe('feat/add-auth');
    expect(repo.yaml(PROJECT)).toMatchObject({
      name: 'add-auth',
      description: 'Add JWT',
      branch: 'feat/add-auth',
      base_branch: 'main',
    });
  });

  it('treats master like main', () => {
    const repo = fresh({ branch: 'master' });
    ok(repo, ['project', 'new', 'on-master']);
    expect(repo.git(['branch', '--show-current'])).toBe('feat/on-master');
    expect(repo.yaml(PROJECT).branch).toBe('feat/on-master');
  });

  it('--branch picks another branch, created or existing', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'one', '--branch', 'work/one']);
    expect(repo.git(['branch', '--show-current'])).toBe('work/one');
    expect(repo.yaml(PROJECT).branch).toBe('work/one');
    ok(repo, ['project', 'delete', '--yes']);

    repo.git(['checkout', '-q', 'main']);
    repo.git(['branch', 'existing']);
    const r = ok(repo, ['project', 'new', 'two', '--branch', 'existing', '--json']);
    expect(r.json!.data).toMatchObject({ branch: 'existing', created_branch: false });
    expect(repo.git(['branch', '--show-current'])).toBe('existing');
    expect(repo.yaml(PROJECT).branch).toBe('existing');
    expect(repo.git(['branch', '--list', 'feat/*'])).toBe('');
  });

  it('on another branch uses that branch', () => {
    const repo = fresh();
    repo.git(['checkout', '-q', '-b', 'my-work']);
    const r = ok(repo, ['project', 'new', 'here', '--json']);
    // The branch it was started from is the one git's reflog names (here: main).
    expect(r.json!.data).toMatchObject({ branch: 'my-work', base_branch: 'main', created_branch: false });
    expect(repo.git(['branch', '--show-current'])).toBe('my-work');
    expect(repo.git(['branch', '--format=%(refname:short)']).split('\n').sort()).toEqual(['main', 'my-work']);
    expect(repo.yaml(PROJECT).branch).toBe('my-work');
  });

  it(
    'refuses when this branch already has a project, ' + 'and says what it found instead of offering a flag that fails',
    () => {
      const repo = planning();
      const r = expectFails(repo, ['project', 'new', 'second'], 1, 'PROJECT_EXISTS', { human: true });
      expect(r).toContain("branch 'feat/demo' already has project 'demo' (in PlanningActive)");
      // Uncommitted: starting another project elsewhere needs a commit first, or it would come along.
      expect(r).toContain("commit this one first ('git add .sow && git commit')");
      expect(r).toContain("'git checkout main'");
      expect(r).not.toContain('--branch');
      // Asking for another branch does not help either: the same explanation, and no branch switch.
      expect(expectFails(repo, ['project', 'new', 'second', '--branch', 'feat/second'], 1, 'PROJECT_EXISTS')).toContain(
        "already has project 'demo'",
      );
      expect(repo.git(['branch', '--show-current'])).toBe('feat/demo');
      expect(repo.yaml(PROJECT).name).toBe('demo');
    },
  );

  it('validates names: lower-case letters, digits and dashes', () => {
    const repo = fresh();
    for (const name of ['Add-Auth', 'add_auth', 'add auth', 'trailing-', 'a..b', 'double--dash', 'x'.repeat(65)]) {
      const r = repo.sow(['project', 'new', name, '--json']);
      expect(r.code, name).toBe(2);
      expect(r.json?.error?.code, name).toBe('INVALID_NAME');
    }
    expect(repo.exists(PROJECT)).toBe(false);
    expect(repo.git(['branch', '--show-current'])).toBe('main');
    expect(repo.git(['branch', '--list', 'feat/*'])).toBe('');
    expect(out(repo, ['project', 'new', 'v2-api-3'])).toBe('PlanningActive');
  });
});

describe('sow project set / status / continue / delete', () => {
  it('set changes known fields, sends other names (and dotted paths) to typed metadata, and guards the rest', () => {
    const repo = planning();
    ok(repo, ['project', 'set', 'description', 'A better description']);
    ok(repo, ['project', 'set', 'owner', 'alice']);
    ok(repo, ['project', 'set', 'metadata.team.lead', 'bob']);
    ok(repo, ['project', 'set', 'team.size', '4']);
    ok(repo, ['project', 'set', 'urgent', 'true']);
    const s = repo.yaml(PROJECT);
    expect(s.description).toBe('A better description');
    expect(s.metadata).toEqual({ owner: 'alice', team: { lead: 'bob', size: 4 }, urgent: true });

    expectFails(repo, ['project', 'set', 'statechart.current_state', 'ReviewActive'], 1, 'READ_ONLY_FIELD');
    // A project moves only to the branch that is checked out.
    expect(expectFails(repo, ['project', 'set', 'branch', 'elsewhere'], 1, 'INVALID_VALUE')).toContain(
      "'feat/demo', the branch that is checked out",
    );
    expect(repo.yaml(PROJECT).statechart.current_state).toBe('PlanningActive');
  });

  it('status shows the project, its phases and what advance needs', () => {
    const repo = planning();
    const r = ok(repo, ['project', 'status']);
    expect(r.stdout).toContain('demo');
    expect(r.stdout).toContain('feat/demo');
    expect(r.stdout).toContain('PlanningActive');
    expect(r.stdout).toContain('complete_planning');
    const data = expectEnvelope(ok(repo, ['project', 'status', '--json'])).data;
    expect(data).toMatchObject({
      name: 'demo',
      description: 'A demo project',
      branch: 'feat/demo',
      state: 'PlanningActive',
    });
    expect(data.phases.map((p: { name: string; status: string }) => `${p.name}:${p.status}`)).toEqual([
      'planning:in_progress',
      'implementation:pending',
      'review:pending',
      'finalize:pending',
    ]);
    expect(data.next).toEqual([
      expect.objectContaining({ event: 'complete_planning', to: 'ImplementationPlanning', blocked: true }),
    ]);
  });

  it('continue prints the state card; --full the orchestrator prompt for the current state', () => {
    const repo = planning();
    const r = repo.sow(['project', 'continue']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('demo');
    expect(r.stdout).toContain('PlanningActive');
    expect(r.stdout).toContain('sow advance');
    expect(r.stdout).toContain('sow project continue --full');
    const full = repo.sow(['project', 'continue', '--full']);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain('## What to do');
    const json = repo.sow(['project', 'continue', '--json']);
    expect(json.code).toBe(0);
    expect(expectEnvelope(json)).toMatchObject({ ok: true, data: { state: 'PlanningActive', prompt: r.stdout } });
    expect(expectEnvelope(repo.sow(['project', 'continue', '--full', '--json']))).toMatchObject({
      ok: true,
      data: { state: 'PlanningActive', prompt: full.stdout },
    });
  });

  it('delete without a terminal refuses unless --yes, naming --yes', () => {
    const repo = planning();
    const r = expectFails(repo, ['project', 'delete'], 2, 'CONFIRMATION_REQUIRED', { human: true });
    expect(r).toContain('--yes');

    const deleted = ok(repo, ['project', 'delete', '--yes']);
    expect(deleted.stderr).toContain("'demo'");
    expect(repo.exists('.sow/project')).toBe(false);
    expect(repo.exists('.sow/.version')).toBe(true);
    expectFails(repo, ['project', 'status'], 1, 'NO_PROJECT');
    expectFails(repo, ['project', 'delete', '--yes'], 1, 'NO_PROJECT');
    // A new project can start on the same branch.
    ok(repo, ['project', 'new', 'again']);
    expect(repo.yaml(PROJECT)).toMatchObject({ name: 'again', branch: 'feat/demo' });
  });

  const hasScript = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;
  // `script` (util-linux) gives sow a real terminal; other platforms' `script` takes other flags.
  it.skipIf(!hasScript)('delete asks on a terminal and only deletes on yes', () => {
    const repo = planning();
    const onTty = (answer: string) => {
      const cmd = [process.execPath, SOW, 'project', 'delete'].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
      return spawnSync('script', ['-qec', cmd, '/dev/null'], {
        cwd: repo.dir,
        input: answer,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
    };
    const no = onTty('n\n');
    expect(no.stdout).toContain("Delete project 'demo'");
    expect(no.status).toBe(1);
    expect(repo.exists(PROJECT)).toBe(true);
    const yes = onTty('y\n');
    expect(yes.status).toBe(0);
    expect(repo.exists('.sow/project')).toBe(false);
  });
});

describe('sow phase get / set', () => {
  it(
    'each phase records its name (the key it sits under); a file without one still reads, one that disagrees ' +
      'is refused',
    () => {
      const repo = planning();
      const phases = repo.yaml(PROJECT).phases;
      for (const name of ['planning', 'implementation', 'review', 'finalize'])
        expect(phases[name].name, name).toBe(name);
      expect(Object.keys(phases.planning)[0], 'first, as a person reads it').toBe('name');
      expect(out(repo, ['phase', 'get', 'name', '--phase', 'review'])).toBe('review');
      expect(expectFails(repo, ['phase', 'set', 'name', 'other'], 1, 'READ_ONLY_FIELD')).toContain(
        'a phase keeps its name',
      );

      // Projects started before sow wrote the name: the key says it.
      const text = repo.read(PROJECT);
      repo.write(PROJECT, text.replace(/^    name: (planning|implementation|review|finalize)\n/gm, ''));
      expect(repo.yaml(PROJECT).phases.review.name).toBeUndefined();
      expect(out(repo, ['phase', 'get', 'name', '--phase', 'review'])).toBe('review');
      ok(repo, ['phase', 'set', 'note', 'x']);
      expect(repo.yaml(PROJECT).phases.planning.name, 'a write adds nothing it did not have').toBeUndefined();

      repo.write(PROJECT, text.replace('    name: review\n', '    name: finalize\n'));
      const r = repo.sow(['status', '--json']);
      expect(r.code).toBe(4);
      expect(r.json?.error?.message).toContain("phases.review.name: the review phase is named 'finalize'");
    },
  );

  it('defaults to the phase in progress, --phase picks another, get prints the bare value', () => {
    const repo = planning();
    expect(out(repo, ['phase', 'get', 'status'])).toBe('in_progress');
    expect(out(repo, ['phase', 'get', 'iteration'])).toBe('1');
    expect(out(repo, ['phase', 'get', 'enabled'])).toBe('true');
    expect(out(repo, ['phase', 'get', 'status', '--phase', 'review'])).toBe('pending');
    expect(expectEnvelope(ok(repo, ['phase', 'get', 'status', '--json'])).data).toMatchObject({
      phase: 'planning',
      value: 'in_progress',
    });

    ok(repo, ['phase', 'set', 'note', 'hello']);
    expect(repo.yaml(PROJECT).phases.planning.metadata).toEqual({ note: 'hello' });
    expect(repo.yaml(PROJECT).phases.implementation.metadata).toEqual({});
  });

  // tasks_approved by name or as metadata, dotted paths, typed values, another phase by name, and
  // the refusals (read-only fields, bad values, unknown phases, disabling review): in-process
  // (src/app/phase.test.ts). Here, what get prints of a nested value, and a refusal's words.
  it(
    'get prints a nested value bare, an object as JSON, ' + 'and --json the typed value; a read-only field is refused',
    () => {
      const repo = implementationPlanning();
      ok(repo, ['phase', 'set', 'metadata.review.round', '3']);
      ok(repo, ['phase', 'set', 'review.owner', 'carol']);
      expect(out(repo, ['phase', 'get', 'review.owner'])).toBe('carol');
      expect(JSON.parse(out(repo, ['phase', 'get', 'metadata.review']))).toEqual({ round: 3, owner: 'carol' });
      expect(expectEnvelope(ok(repo, ['phase', 'get', 'metadata.review.round', '--json'])).data.value).toBe(3);
      expectFails(repo, ['phase', 'set', 'status', 'completed'], 1, 'READ_ONLY_FIELD', { human: true });
    },
  );
});

describe('sow task', () => {
  // Gap-numbered ids, --id, --parallel, --depends-on, --description, the files and the list, a
  // taken id and an unknown dependency: in-process (src/app/task.test.ts).
  it(
    'add prints the new id (--json: the task); --id that is no id is a usage error; a taken one is ' +
      'refused on stderr',
    () => {
      const repo = implementationPlanning();
      expect(
        out(repo, ['task', 'add', 'Design the API', '--agent', 'architect', '--description', 'Write the OpenAPI spec']),
      ).toBe('010');
      expect(out(repo, ['task', 'add', 'Squeeze in', '--id', '015', '--parallel'])).toBe('015');
      const json = expectEnvelope(ok(repo, ['task', 'add', 'Document it', '--json']));
      expect(json).toMatchObject({
        ok: true,
        data: { id: '020', name: 'Document it', status: 'pending', iteration: 1 },
      });
      const taken = expectFails(repo, ['task', 'add', 'Clash', '--id', '010'], 1, 'TASK_ID_TAKEN', { human: true });
      expect(taken).toContain("'010'");
      expectFails(repo, ['task', 'add', 'Bad id', '--id', 'x5'], 2, 'USAGE');
      expectFails(repo, ['task', 'add', 'Bad id', '--id', '0'], 2, 'USAGE');
    },
  );

  it('add needs the implementation phase in progress', () => {
    const repo = planning();
    const r = expectFails(repo, ['task', 'add', 'Too early'], 3, 'PHASE_NOT_ACTIVE');
    expect(r).toContain('PlanningActive');
  });

  // Status timestamps, typed fields, metadata by name or dotted path and the values refused:
  // in-process, src/app/task-fields.test.ts. Here what the commands print.
  it(
    'set/get: get prints the bare value (a number, a boolean, dotted metadata), --json the typed one; --id 10 is ' +
      '010; an unknown task is named',
    () => {
      const repo = fresh();
      toExecuting(repo, ['First task', 'Second task']);
      ok(repo, ['task', 'set', '--id', '010', 'iteration', '2']);
      ok(repo, ['task', 'set', '--id', '010', 'metadata.review.round', '2']);
      ok(repo, ['task', 'set', '--id', '10', 'review.blocking', 'false']);
      expect(repo.yaml(taskFile('010'))).toMatchObject({
        iteration: 2,
        metadata: { review: { round: 2, blocking: false } },
      });

      expect(out(repo, ['task', 'get', '--id', '010', 'status'])).toBe('pending');
      expect(out(repo, ['task', 'get', '--id', '10', 'iteration'])).toBe('2');
      expect(out(repo, ['task', 'get', '--id', '010', 'metadata.review.round'])).toBe('2');
      expect(out(repo, ['task', 'get', '--id', '010', 'review.blocking'])).toBe('false');
      expect(out(repo, ['task', 'get', '--id', '020', 'name'])).toBe('Second task');
      expect(expectEnvelope(ok(repo, ['task', 'get', '--id', '010', 'iteration', '--json'])).data.value).toBe(2);
      const whole = expectEnvelope(ok(repo, ['task', 'get', '--id', '020', '--json'])).data;
      expect(whole).toMatchObject({ id: '020', name: 'Second task', status: 'pending', iteration: 1 });

      expectFails(repo, ['task', 'set', '--id', '010', 'status', 'done'], 1, 'INVALID_VALUE');
      const missing = expectFails(repo, ['task', 'set', '--id', '999', 'status', 'completed'], 1, 'TASK_NOT_FOUND', {
        human: true,
      });
      expect(missing).toContain("'999'");
      expect(missing).toContain('sow task list');
    },
  );

  it('abandon and list (--status), including an empty list', () => {
    const repo = implementationPlanning();
    const empty = repo.sow(['task', 'list']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(expectEnvelope(ok(repo, ['task', 'list', '--json']))).toEqual({ ok: true, data: [] });

    ok(repo, ['task', 'add', 'Keep', '--agent', 'implementer']);
    ok(repo, ['task', 'add', 'Drop']);
    ok(repo, ['task', 'abandon', '--id', '020']);
    const dropped = repo.yaml(taskFile('020'));
    expect(dropped).toMatchObject({ status: 'abandoned', completed_at: ISO });
    expect(expectEnvelope(ok(repo, ['task', 'list', '--json'])).data[1]).toMatchObject({
      id: '020',
      status: 'abandoned',
    });

    // Not on a terminal: the default role is not said, and what was abandoned is its id alone.
    expect(out(repo, ['task', 'list'])).toBe('pending (1):\n010 Keep\nabandoned (1): 020');
    expect(out(repo, ['task', 'list', '--status', 'abandoned'])).toBe('abandoned (1):\n020 Drop');
    const none = repo.sow(['task', 'list', '--status', 'completed']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    const listed = expectEnvelope(ok(repo, ['task', 'list', '--status', 'pending', '--json'])).data;
    expect(listed).toEqual([
      { id: '010', name: 'Keep', status: 'pending', parallel: false, assigned_agent: 'implementer' },
    ]);
    expectFails(repo, ['task', 'list', '--status', 'finished'], 2, 'USAGE');
    expectFails(repo, ['task', 'abandon', '--id', '030'], 1, 'TASK_NOT_FOUND');
  });
});

describe('artifacts: input/output add|set|remove|list', () => {
  it(
    'phase artifacts: extra flags go to typed metadata, set reaches fields and dotted metadata, remove ' +
      'shifts indexes',
    () => {
      const repo = planning();
      expect(out(repo, ['input', 'add', '--type', 'context', '--path', 'notes/a.md', '--source', 'human'])).toBe(
        '[0] context: notes/a.md (source: human)',
      );
      ok(repo, [
        'input',
        'add',
        '--type',
        'context',
        '--path',
        'notes/b.md',
        '--pages',
        '12',
        '--draft',
        'true',
        '--ticket',
        '007',
      ]);
      ok(repo, ['input', 'add', '--type', 'context', '--path', '../knowledge/adr-001.md']);
      let inputs = repo.yaml(PROJECT).phases.planning.inputs;
      expect(inputs[0]).toEqual({
        type: 'context',
        path: 'notes/a.md',
        created_at: ISO,
        metadata: { source: 'human' },
      });
      expect(inputs[1].metadata).toEqual({ pages: 12, draft: true, ticket: '007' });
      expect(inputs[2]).toEqual({ type: 'context', path: '../knowledge/adr-001.md', created_at: ISO });

      ok(repo, ['input', 'set', '--index', '0', 'metadata.review.by', 'dana']);
      ok(repo, ['input', 'set', '--index', '0', 'source', 'generated']);
      ok(repo, ['input', 'set', '--index', '0', 'path', 'notes/a2.md']);
      inputs = repo.yaml(PROJECT).phases.planning.inputs;
      expect(inputs[0]).toEqual({
        type: 'context',
        path: 'notes/a2.md',
        created_at: ISO,
        metadata: { source: 'generated', review: { by: 'dana' } },
      });

      expect(out(repo, ['input', 'list']).split('\n')).toEqual([
        '[0] context: notes/a2.md (source: generated, review: {"by":"dana"})',
        '[1] context: notes/b.md (pages: 12, draft: true, ticket: 007)',
        '[2] context: ../knowledge/adr-001.md',
      ]);

      const removed = ok(repo, ['input', 'remove', '--index', '0']);
      expect(removed.stderr).toContain('notes/a2.md');
      expect(out(repo, ['input', 'list']).split('\n')).toEqual([
        '[0] context: notes/b.md (pages: 12, draft: true, ticket: 007)',
        '[1] context: ../knowledge/adr-001.md',
      ]);

      const listed = expectEnvelope(ok(repo, ['input', 'list', '--json'])).data;
      expect(listed).toEqual([
        {
          index: 0,
          type: 'context',
          path: 'notes/b.md',
          created_at: ISO,
          metadata: { pages: 12, draft: true, ticket: '007' },
        },
        { index: 1, type: 'context', path: '../knowledge/adr-001.md', created_at: ISO },
      ]);

      // --phase reaches another phase; an empty list is not an error.
      const empty = repo.sow(['output', 'list', '--phase', 'review']);
      expect(empty.code).toBe(0);
      expect(empty.stdout).toBe('');
      ok(repo, ['input', 'add', '--type', 'context', '--path', 'review/checklist.md', '--phase', 'review']);
      expect(out(repo, ['input', 'list', '--phase', 'review'])).toBe('[0] context: review/checklist.md');
      expect(repo.yaml(PROJECT).phases.planning.inputs).toHaveLength(2);
    },
  );

  it('refuses unknown types (listing the valid ones), bad indexes, bad values and paths outside the repository', () => {
    const repo = planning();
    ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
    const badOutput = expectFails(
      repo,
      ['output', 'add', '--type', 'design_doc', '--path', 'planning/design.md'],
      1,
      'UNKNOWN_ARTIFACT_TYPE',
      { human: true },
    );
    expect(badOutput).toContain('task_list');
    const badInput = expectFails(
      repo,
      ['input', 'add', '--type', 'reference', '--path', 'x.md'],
      1,
      'UNKNOWN_ARTIFACT_TYPE',
    );
    expect(badInput).toContain('context');
    const range = expectFails(repo, ['output', 'set', '--index', '3', 'approved', 'true'], 1, 'INDEX_OUT_OF_RANGE');
    expect(range).toContain('sow output list');
    expectFails(repo, ['output', 'remove', '--index', '1'], 1, 'INDEX_OUT_OF_RANGE');
    expectFails(repo, ['output', 'set', '--index', '0', 'approved', 'yes'], 1, 'INVALID_VALUE');
    expectFails(repo, ['output', 'set', '--index', '0', 'type', 'review'], 1, 'READ_ONLY_FIELD');
    expectFails(
      repo,
      ['input', 'add', '--type', 'context', '--path', '../../../etc/passwd'],
      1,
      'PATH_OUTSIDE_REPOSITORY',
    );
    expectFails(repo, ['input', 'add', '--type', 'context', '--path', 'a.md', 'stray'], 2, 'USAGE');
    expectFails(repo, ['input', 'add', '--path', 'a.md'], 2, 'USAGE');
  });

  it('review artifacts: --assessment goes to metadata, only pass or fail, and the spec list format', () => {
    const repo = fresh();
    toExecuting(repo, ['Only task']);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
    ok(repo, ['advance']);
    expectFails(
      repo,
      ['output', 'add', '--type', 'review', '--path', 'review/report.md', '--assessment', 'maybe'],
      1,
      'INVALID_VALUE',
    );
    ok(repo, ['output', 'add', '--type', 'review', '--path', 'review/report.md', '--assessment', 'pass']);
    expect(out(repo, ['output', 'list'])).toBe('[0] review: review/report.md (assessment: pass, not approved)');
    expectFails(repo, ['output', 'set', '--index', '0', 'assessment', 'meh'], 1, 'INVALID_VALUE');
    expect(out(repo, ['output', 'set', '--index', '0', 'metadata.assessment', 'fail'])).toBe(
      '[0] review: review/report.md (assessment: fail, not approved)',
    );
    expect(repo.yaml(PROJECT).phases.review.outputs[0].metadata).toEqual({ assessment: 'fail' });
  });

  it('task artifacts: feedback starts pending, set status, outputs, the spec list format', () => {
    const repo = fresh();
    toExecuting(repo, ['Only task']);
    expect(
      out(repo, [
        'task',
        'input',
        'add',
        '--id',
        '010',
        '--type',
        'reference',
        '--path',
        'sinks/style-guide.md',
        '--source',
        'human',
      ]),
    ).toBe('[0] reference: sinks/style-guide.md (source: human)');
    expect(
      out(repo, [
        'task',
        'input',
        'add',
        '--id',
        '010',
        '--type',
        'feedback',
        '--path',
        'phases/implementation/tasks/010/feedback/001.md',
      ]),
    ).toBe('[1] feedback: phases/implementation/tasks/010/feedback/001.md (status: pending)');
    expect(repo.yaml(taskFile('010')).inputs[1]).toEqual({
      type: 'feedback',
      path: 'phases/implementation/tasks/010/feedback/001.md',
      created_at: ISO,
      metadata: { status: 'pending' },
    });
    ok(repo, ['task', 'input', 'set', '--id', '010', '--index', '1', 'status', 'addressed']);
    expect(repo.yaml(taskFile('010')).inputs[1].metadata).toEqual({ status: 'addressed' });
    expectFails(repo, ['task', 'input', 'set', '--id', '010', '--index', '1', 'status', 'ignored'], 1, 'INVALID_VALUE');

    ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/a.ts']);
    ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/b.ts', '--lines', '40']);
    expect(out(repo, ['task', 'output', 'list', '--id', '010']).split('\n')).toEqual([
      '[0] modified: src/a.ts',
      '[1] modified: src/b.ts (lines: 40)',
    ]);
    ok(repo, ['task', 'output', 'set', '--id', '010', '--index', '1', 'metadata.lines', '41']);
    ok(repo, ['task', 'output', 'remove', '--id', '010', '--index', '0']);
    expect(repo.yaml(taskFile('010')).outputs).toEqual([
      { type: 'modified', path: 'src/b.ts', created_at: ISO, metadata: { lines: 41 } },
    ]);
    expect(expectEnvelope(ok(repo, ['task', 'output', 'list', '--id', '010', '--json'])).data).toEqual([
      { index: 0, type: 'modified', path: 'src/b.ts', created_at: ISO, metadata: { lines: 41 } },
    ]);

    const wrongType = expectFails(
      repo,
      ['task', 'output', 'add', '--id', '010', '--type', 'reference', '--path', 'x.md'],
      1,
      'UNKNOWN_ARTIFACT_TYPE',
    );
    expect(wrongType).toContain('modified');
    expectFails(
      repo,
      ['task', 'input', 'add', '--id', '090', '--type', 'reference', '--path', 'x.md'],
      1,
      'TASK_NOT_FOUND',
    );
    expectFails(repo, ['task', 'input', 'list'], 2, 'USAGE');
  });
});

describe('--json', () => {
  it('every kind of command prints exactly one envelope on stdout, with the same exit code as without', () => {
    const repo = fresh();
    const cases: { args: string[]; code: number; error?: string }[] = [
      { args: ['project', 'status'], code: 1, error: 'NO_PROJECT' },
      { args: ['project', 'new', 'demo', '--description', 'd'], code: 0 },
      { args: ['project', 'set', 'owner', 'erin'], code: 0 },
      { args: ['phase', 'get', 'status'], code: 0 },
      { args: ['phase', 'set', 'note', 'x'], code: 0 },
      { args: ['input', 'add', '--type', 'context', '--path', 'a.md'], code: 0 },
      { args: ['input', 'set', '--index', '0', 'note', 'read it'], code: 0 },
      { args: ['input', 'set', '--index', '0', 'approved', 'true'], code: 1, error: 'ARTIFACT_FILE_MISSING' },
      { args: ['input', 'list'], code: 0 },
      { args: ['input', 'remove', '--index', '0'], code: 0 },
      { args: ['advance', '--list'], code: 0 },
      { args: ['advance'], code: 3, error: 'TRANSITION_BLOCKED' },
      { args: ['advance', 'tasks_approved'], code: 1, error: 'INVALID_EVENT' },
      { args: ['task', 'list'], code: 0 },
      { args: ['task', 'get', '--id', '010', 'status'], code: 1, error: 'TASK_NOT_FOUND' },
      { args: ['task', 'add', 'Too early'], code: 3, error: 'PHASE_NOT_ACTIVE' },
      { args: ['output', 'add', '--type', 'nope', '--path', 'a.md'], code: 1, error: 'UNKNOWN_ARTIFACT_TYPE' },
      { args: ['project', 'delete'], code: 2, error: 'CONFIRMATION_REQUIRED' },
      { args: ['frobnicate'], code: 2, error: 'USAGE' },
      { args: ['phase', 'get'], code: 2, error: 'USAGE' },
      { args: ['task', 'list', '--bogus'], code: 2, error: 'USAGE' },
      { args: ['schema', 'task'], code: 0 },
    ];
    for (const c of cases) {
      const label = `sow ${c.args.join(' ')} --json`;
      // A failure writes nothing, so it can run without --json first to compare exit codes.
      if (c.error) expect(repo.sow(c.args).code, `sow ${c.args.join(' ')}`).toBe(c.code);
      const r = repo.sow([...c.args, '--json']);
      expect(r.code, label).toBe(c.code);
      const doc = expectEnvelope(r);
      if (c.error) {
        expect(doc, label).toEqual({
          ok: false,
          error: expect.objectContaining({ code: c.error, message: expect.any(String) }),
        });
        expect(doc.error.message.length, label).toBeGreaterThan(0);
      } else {
        expect(doc.ok, label).toBe(true);
        expect(Object.keys(doc).sort(), label).toEqual(['data', 'ok']);
      }
    }
  });

  it('carries a hint on errors, and works before the command too', () => {
    const repo = planning();
    const blocked = repo.sow(['advance', '--json']);
    expect(blocked.code).toBe(3);
    expect(expectEnvelope(blocked).error).toMatchObject({
      code: 'TRANSITION_BLOCKED',
      message: expect.stringContaining('a task_list output of planning is approved'),
      hint: expect.stringContaining('sow output add --type task_list'),
    });
    const missing = expectEnvelope(repo.sow(['task', 'get', '--id', '777', 'name', '--json']));
    expect(missing.error).toMatchObject({ code: 'TASK_NOT_FOUND', hint: expect.stringContaining('sow task list') });

    const before = expectEnvelope(ok(repo, ['--json', 'phase', 'get', 'status']));
    expect(before).toMatchObject({ ok: true, data: { value: 'in_progress' } });
    const added = expectEnvelope(
      ok(repo, ['output', 'add', '--json', '--type', 'task_list', '--path', 'planning/tasks.md']),
    );
    expect(added.data).toMatchObject({
      index: 0,
      artifact: { type: 'task_list', path: 'planning/tasks.md', approved: false },
    });
    // --json was not taken for an artifact metadata flag.
    expect(repo.yaml(PROJECT).phases.planning.outputs[0].metadata).toBeUndefined();
  });

  it('a command group without a subcommand says what it needs', () => {
    const repo = planning();
    const r = repo.sow(['task']);
    expect(`${r.stdout}${r.stderr}`).toMatch(/add/);
    expect(`${r.stdout}${r.stderr}`).toMatch(/list/);
    const json = repo.sow(['task', '--json']);
    expect(json.json, `stdout: ${json.stdout}`).toBeDefined();
  });
});

describe('sow advance', () => {
  it(
    '--list shows its heading, then every transition out of the current state with its guard and whether it ' +
      'is blocked',
    () => {
      const repo = planning();
      const blocked = ok(repo, ['advance', '--list']);
      const lines = blocked.stdout.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe('From PlanningActive:');
      expect(lines[1]).toMatch(/blocked/);
      expect(lines[1]).toContain('complete_planning');
      expect(lines[1]).toContain('ImplementationPlanning');
      expect(lines[1]).toContain('a task_list output of planning is approved');

      repo.write(TASK_LIST, '# Tasks\n');
      ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true']);
      const ready = expectEnvelope(ok(repo, ['advance', '--list', '--json'])).data;
      expect(ready.state).toBe('PlanningActive');
      expect(ready.transitions).toEqual([
        expect.objectContaining({
          event: 'complete_planning',
          to: 'ImplementationPlanning',
          blocked: false,
          guardDescription: 'a task_list output of planning is approved',
        }),
      ]);
      expect(out(repo, ['advance', '--list'])).not.toMatch(/blocked/);
    },
  );

  it('--dry-run evaluates the guard and writes nothing', () => {
    const repo = planning();
    let before = repo.snapshot();
    const blocked = repo.sow(['advance', '--dry-run']);
    expect(blocked.code).toBe(3);
    expect(blocked.stderr).toContain('a task_list output of planning is approved');
    expect(repo.snapshot()).toEqual(before);

    repo.write(TASK_LIST, '# Tasks\n');
    ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true']);
    before = repo.snapshot();
    const dry = ok(repo, ['advance', '--dry-run']);
    expect(dry.stdout).toBe('ImplementationPlanning\n');
    expect(dry.stderr).toContain('PlanningActive → ImplementationPlanning');
    expect(repo.snapshot()).toEqual(before);
    const dryJson = expectEnvelope(ok(repo, ['advance', '--dry-run', '--json'])).data;
    expect(dryJson).toMatchObject({
      from: 'PlanningActive',
      to: 'ImplementationPlanning',
      event: 'complete_planning',
      dryRun: true,
    });
    ok(repo, ['advance', 'complete_planning', '--dry-run']);
    expect(repo.snapshot()).toEqual(before);
    expect(repo.yaml(PROJECT).statechart.current_state).toBe('PlanningActive');

    const real = expectEnvelope(ok(repo, ['advance', '--json'])).data;
    expect(real).toMatchObject({
      from: 'PlanningActive',
      to: 'ImplementationPlanning',
      event: 'complete_planning',
      dryRun: false,
    });
    expect(repo.yaml(PROJECT).statechart.current_state).toBe('ImplementationPlanning');
  });

  it('explicit events: fire when their guard holds, exit 3 when blocked, exit 1 when not of this state', () => {
    const repo = fresh();
    toExecuting(repo, ['Only task']);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
    expect(out(repo, ['advance', 'all_tasks_complete'])).toBe('ReviewActive');
    repo.write('.sow/project/review/report.md', '# Review\n');
    ok(repo, [
      'output',
      'add',
      '--type',
      'review',
      '--path',
      'review/report.md',
      '--assessment',
      'pass',
      '--approved',
      'true',
    ]);

    // Guards are checked on explicit events too.
    const blocked = expectFails(repo, ['advance', 'review_fail'], 3, 'TRANSITION_BLOCKED', { human: true });
    expect(blocked).toContain("assessment 'fail'");
    expectFails(repo, ['advance', 'review_fail', '--dry-run'], 3, 'TRANSITION_BLOCKED');

    const wrong = expectFails(repo, ['advance', 'complete_planning'], 1, 'INVALID_EVENT');
    expect(wrong).toContain('review_pass');
    expect(wrong).toContain('review_fail');

    const pass = ok(repo, ['advance', 'review_pass']);
    expect(pass.stdout).toBe('FinalizeDocumentation\n');
    expect(repo.yaml(PROJECT).statechart.current_state).toBe('FinalizeDocumentation');
  });
  // Each guard blocking with exit 3 and a hint, the state byte-identical: in-process,
  // src/app/advance.test.ts.
});

describe('sow schema', () => {
  it('prints the JSON Schema of the project, task and config files', () => {
    const repo = planning();
    const project = JSON.parse(out(repo, ['schema']));
    expect(project.type).toBe('object');
    expect(Object.keys(project.properties)).toEqual(
      expect.arrayContaining(['name', 'description', 'branch', 'statechart', 'phases']),
    );
    expect(project.required).toEqual(expect.arrayContaining(['name', 'branch', 'statechart', 'phases']));
    expect(JSON.parse(out(repo, ['schema', 'project']))).toEqual(project);
    // The real state file has every required key.
    const state = repo.yaml(PROJECT);
    for (const key of project.required) expect(state, key).toHaveProperty(key);

    const task = JSON.parse(out(repo, ['schema', 'task']));
    expect(task.type).toBe('object');
    expect(Object.keys(task.properties)).toEqual(
      expect.arrayContaining(['id', 'name', 'status', 'iteration', 'inputs', 'outputs']),
    );
    expect(task.properties.status.enum).toEqual(
      expect.arrayContaining(['pending', 'in_progress', 'completed', 'abandoned']),
    );

    const config = JSON.parse(out(repo, ['schema', 'config']));
    expect(config.type).toBe('object');

    expect(expectEnvelope(ok(repo, ['schema', 'task', '--json'])).data).toEqual(task);
    // Each says which file it describes, the configuration's too (its schemas are built on first use).
    const files = {
      project: '.sow/project/state.yaml',
      task: '.sow/project/phases/implementation/tasks/<id>/state.yaml',
      config: '~/.config/sow/config.yaml',
      'repo-config': '.sow/config.yaml',
    };
    for (const [file, path] of Object.entries(files)) {
      const schema = JSON.parse(out(repo, ['schema', file]));
      expect(schema.description, file).toBe(path);
      expect(schema.$schema, file).toMatch(/^http/);
    }
    const bad = expectFails(repo, ['schema', 'state'], 2, 'USAGE');
    expect(bad).toContain('project, task, config');
  });

  it('needs no repository', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sow-schema-'));
    dirs.push(dir);
    const r = sowIn(dir, ['schema', 'task']);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout);
    expect(schema.type).toBe('object');
    expect(schema.properties.id).toBeDefined();
  });
});

describe('sow help exit-codes', () => {
  it('documents the exit code table', () => {
    const repo = fresh({ init: false });
    const r = repo.sow(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    for (const code of ['0', '1', '2', '3', '4', '5', '70', '130'])
      expect(r.stdout).toMatch(new RegExp(`^\\s*${code}\\s+\\S`, 'm'));
    expect(r.stdout).toMatch(/^\s*3\s+.*blocked/m);
  });
});
