/**
 * Shell completion end to end: `sow completion bash|zsh|fish` prints a script the shell accepts,
 * `sow __complete` offers what the command tree and the project hold at the cursor (subcommands,
 * flags, task ids, agents, artifact types of the phase, the events `advance` takes), quietly and
 * with exit 0 whatever goes wrong, and the bash and fish scripts complete a real line through it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { help, subcommands } from './cli-surface.js';
import {
  inImplementationPlanning,
  makeRepo,
  ok,
  PROJECT,
  SOW,
  TEST_ENV,
  toExecuting,
  useRepos,
  type Repo,
} from './harness.js';
import { makeWorld, type World } from './agent-world.js';

const fresh = useRepos();
const ROLES = ['orchestrator', 'implementer', 'architect', 'reviewer', 'planner', 'researcher', 'decomposer'];

const installed = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
const HAS_ZSH = installed('zsh');
const HAS_FISH = installed('fish');

/** `sow __complete [--shell s] -- <words>` in `cwd`: exit code, stdout lines, stderr. */
function complete(
  cwd: string,
  words: string[],
  shell?: string,
  env: Record<string, string> = {},
): { code: number; lines: string[]; stderr: string } {
  const r = spawnSync(process.execPath, [SOW, '__complete', ...(shell ? ['--shell', shell] : []), '--', ...words], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...TEST_ENV, ...env },
  });
  return { code: r.status ?? -1, lines: r.stdout.split('\n').filter(Boolean), stderr: r.stderr };
}

let executing: Repo;
beforeAll(() => {
  executing = makeRepo();
  toExecuting(executing, ['First task', 'Second task', 'Third task']);
});
afterAll(() => executing?.cleanup());

describe('sow completion <shell>', () => {
  const script = (shell: string) => {
    const r = spawnSync(process.execPath, [SOW, 'completion', shell], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };
  const syntax = (shell: string, text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'sow-completion-'));
    try {
      writeFileSync(join(dir, `script.${shell}`), text);
      return spawnSync(shell, ['-n', join(dir, `script.${shell}`)], { encoding: 'utf8' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('bash: a script bash -n accepts, which registers _sow_complete for sow', () => {
    const text = script('bash');
    expect(text).toContain('complete -o default -F _sow_complete sow');
    expect(text).toContain('sow __complete --shell bash --');
    const r = syntax('bash', text);
    expect(r.status, r.stderr).toBe(0);
    // The check can fail: bash -n refuses a broken script.
    expect(syntax('bash', text.replace('done <<<', 'done <<< (')).status).not.toBe(0);
  });

  it.skipIf(!HAS_ZSH)('zsh: a script zsh -n accepts (skipped where zsh is not installed)', () => {
    const text = script('zsh');
    expect(text.startsWith('#compdef sow\n')).toBe(true);
    const r = syntax('zsh', text);
    expect(r.status, r.stderr).toBe(0);
    expect(syntax('zsh', `${text}\nfi\n`).status).not.toBe(0);
  });

  it.skipIf(!HAS_FISH)('fish: a script fish -n accepts (skipped where fish is not installed)', () => {
    const text = script('fish');
    expect(text).toContain("complete -c sow -f -a '(__sow_complete)'");
    const r = syntax('fish', text);
    expect(r.status, r.stderr).toBe(0);
    expect(syntax('fish', `${text}\nfunction broken\n`).status).not.toBe(0);
  });

  it(
    '--json wraps the script; another shell is a usage error naming the choices; ' + '--help says how to install each',
    () => {
      const json = spawnSync(process.execPath, [SOW, 'completion', 'zsh', '--json'], { encoding: 'utf8' });
      expect(JSON.parse(json.stdout)).toMatchObject({
        ok: true,
        data: { shell: 'zsh', script: expect.stringContaining('compdef') },
      });
      const bad = spawnSync(process.execPath, [SOW, 'completion', 'tcsh'], { encoding: 'utf8' });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/bash, zsh, fish/);
      const h = help(['completion']).text;
      for (const line of [
        'source <(sow completion bash)',
        'source <(sow completion zsh)',
        'sow completion fish > ~/.config/fish/completions/sow.fish',
      ])
        expect(h).toContain(line);
    },
  );
});

describe('sow __complete: candidates from the command tree', () => {
  it('after `sow `: every command `sow --help` lists, and help; the hidden one is not offered', () => {
    const r = complete(executing.dir, ['sow', '']);
    expect(r.code).toBe(0);
    const listed = [...subcommands(help([]).text)];
    expect(listed.length).toBeGreaterThan(20);
    expect(r.lines.sort()).toEqual([...listed, 'help'].sort());
    expect(r.lines).not.toContain('__complete');
    expect(complete(executing.dir, ['sow', 'do']).lines).toEqual(['doctor']);
  });

  it('after `sow task `: its subcommands; after a flag prefix: the flags of that command and the global ones', () => {
    expect(complete(executing.dir, ['sow', 'task', '']).lines).toEqual([...subcommands(help(['task']).text)]);
    expect(complete(executing.dir, ['sow', 'task', '']).lines).toEqual([
      'add',
      'set',
      'get',
      'abandon',
      'list',
      'next',
      'feedback',
      'diff',
      'merge',
      'input',
      'output',
      'board',
      'changes',
    ]);
    expect(complete(executing.dir, ['sow', 'task', 'get', '--']).lines.sort()).toEqual(
      [
        '--help',
        '--id',
        '--json',
        ...complete(executing.dir, ['sow', '--']).lines.filter(
          (f) => f !== '--version' && f !== '--help' && f !== '--json',
        ),
      ].sort(),
    );
    // A flag given already is not offered again.
    expect(complete(executing.dir, ['sow', 'task', 'get', '--id', '010', '--']).lines).not.toContain('--id');
    // A project type's command group is a command like any other.
    expect(complete(executing.dir, ['sow', 'iter', '']).lines).toEqual([...subcommands(help(['iter']).text)]);
  });

  it('choices commander knows, and the static lists: shells, project types, task statuses, agents', () => {
    expect(complete(executing.dir, ['sow', 'completion', '']).lines).toEqual(['bash', 'zsh', 'fish']);
    expect(complete(executing.dir, ['sow', 'project', 'new', '--type', '']).lines).toEqual([
      'standard',
      'exploration',
      'design',
      'breakdown',
      'iterative',
    ]);
    expect(complete(executing.dir, ['sow', 'task', 'list', '--status', 'p']).lines).toEqual(['pending', 'paused']);
    expect(complete(executing.dir, ['sow', 'agent', 'spawn', '']).lines).toEqual(ROLES);
    expect(complete(executing.dir, ['sow', 'task', 'add', 'x', '--agent', 'i']).lines).toEqual(['implementer']);
  });
});

describe('sow __complete: live values from the project', () => {
  it("task ids after --id (and --id=, and as agent spawn's second argument), filtered by what is typed", () => {
    expect(complete(executing.dir, ['sow', 'task', 'get', '--id', '']).lines).toEqual(['010', '020', '030']);
    expect(complete(executing.dir, ['sow', 'task', 'get', '--id', '02']).lines).toEqual(['020']);
    expect(complete(executing.dir, ['sow', 'task', 'get', '--id=']).lines).toEqual([
      '--id=010',
      '--id=020',
      '--id=030',
    ]);
    // bash without bash-completion splits at '=': `--id`, `=`, then the value.
    expect(complete(executing.dir, ['sow', 'task', 'get', '--id', '=', '0']).lines).toEqual(['010', '020', '030']);
    expect(complete(executing.dir, ['sow', 'agent', 'spawn', 'implementer', '']).lines).toEqual(['010', '020', '030']);
    expect(complete(executing.dir, ['sow', 'task', 'output', 'add', '--id', '010', '--type', '']).lines).toEqual([
      'modified',
    ]);
    // Read from the task files each time: a task added a moment ago is there.
    const planning = inImplementationPlanning(fresh);
    expect(complete(planning.dir, ['sow', 'task', 'set', '--id', '']).lines).toEqual([]);
    ok(planning, ['task', 'add', 'New task']);
    expect(complete(planning.dir, ['sow', 'task', 'set', '--id', '']).lines).toEqual(['010']);
  });

  it('with descriptions for zsh (value:description) and fish (value<TAB>description); bash gets the values', () => {
    expect(complete(executing.dir, ['sow', 'task', 'get', '--id', '01'], 'fish').lines).toEqual([
      '010\tFirst task (pending)',
    ]);
    expect(complete(executing.dir, ['sow', 'task', 'get', '--id', '01'], 'zsh').lines).toEqual([
      '010:First task (pending)',
    ]);
    expect(complete(executing.dir, ['sow', 'task', 'get', '--id', '01'], 'bash').lines).toEqual(['010']);
  });

  it(
    'the events `advance` takes in the current state, and the artifact types of the phase in progress ' +
      '(or --phase)',
    () => {
      expect(complete(executing.dir, ['sow', 'advance', '']).lines).toEqual(['all_tasks_complete']);
      const planning = fresh();
      ok(planning, ['project', 'new', 'demo', '--description', 'A demo project']);
      expect(complete(planning.dir, ['sow', 'advance', '']).lines).toEqual(['complete_planning']);
      expect(complete(planning.dir, ['sow', 'output', 'add', '--type', '']).lines).toEqual(['task_list']);
      expect(complete(planning.dir, ['sow', 'input', 'add', '--type', '']).lines).toEqual(['context']);
      const implementation = inImplementationPlanning(fresh);
      expect(complete(implementation.dir, ['sow', 'advance', '']).lines).toEqual(['tasks_approved']);
      expect(complete(implementation.dir, ['sow', 'input', 'add', '--type', '']).lines).toEqual(['context', 'review']);
      expect(complete(implementation.dir, ['sow', 'output', 'add', '--phase', 'planning', '--type', '']).lines).toEqual(
        ['task_list'],
      );
      expect(complete(implementation.dir, ['sow', 'output', 'add', '--phase', '']).lines).toEqual([
        'planning',
        'implementation',
        'review',
        'finalize',
      ]);
    },
  );

  it(
    'never fails loudly: no project, no workspace, a broken state file, --json among the words — exit 0, ' +
      'nothing on stderr',
    () => {
      const bare = fresh();
      expect(complete(bare.dir, ['sow', 'task', 'get', '--id', ''])).toEqual({ code: 0, lines: [], stderr: '' });
      expect(complete(bare.dir, ['sow', 'agent', 'spawn', 'p']).lines, 'static candidates still come').toEqual([
        'planner',
      ]);
      const nowhere = mkdtempSync(join(tmpdir(), 'sow-nowhere-'));
      try {
        expect(complete(nowhere, ['sow', 'advance', ''])).toEqual({ code: 0, lines: [], stderr: '' });
        expect(complete(nowhere, ['sow', 'ta']).lines).toEqual(['task']);
      } finally {
        rmSync(nowhere, { recursive: true, force: true });
      }
      const broken = fresh();
      ok(broken, ['project', 'new', 'demo', '--description', 'A demo project']);
      broken.write(PROJECT, `${broken.read(PROJECT)}\nstatechart: [\n`);
      expect(complete(broken.dir, ['sow', 'advance', ''])).toEqual({ code: 0, lines: [], stderr: '' });
      // The project of another branch: offered all the same, and no warning about it.
      executing.git(['checkout', '-q', '-b', 'elsewhere']);
      try {
        expect(complete(executing.dir, ['sow', 'task', 'get', '--id', '01'])).toEqual({
          code: 0,
          lines: ['010'],
          stderr: '',
        });
      } finally {
        executing.git(['checkout', '-q', 'feat/demo']);
      }
      expect(complete(executing.dir, ['sow', 'task', 'get', '--json', '--id', '01']).lines).toEqual(['010']);
      expect(complete(executing.dir, ['sow', 'task', 'get', '--help', '--id', '01']).lines).toEqual(['010']);
    },
  );
});

describe('the scripts complete a real line', () => {
  let world: World;
  beforeAll(() => {
    world = makeWorld({ prefix: 'sow-completion-' });
  });
  afterAll(() => world?.cleanup());
  const env = () => ({ ...process.env, ...TEST_ENV, PATH: world.env.PATH! });

  it('bash: COMPREPLY from _sow_complete, for a task id, a command, and a --flag=value split at the =', () => {
    const run = (words: string[], cword: number) => {
      const script = [
        'source <(sow completion bash)',
        `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
        `COMP_CWORD=${cword}`,
        '_sow_complete',
        'printf "%s\\n" "${COMPREPLY[@]}"',
      ].join('\n');
      const r = spawnSync('bash', ['-c', script], { cwd: executing.dir, encoding: 'utf8', env: env() });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean);
    };
    expect(run(['sow', 'task', 'get', '--id', ''], 4)).toEqual(['010', '020', '030']);
    expect(run(['sow', 'adv'], 1)).toEqual(['advance']);
    expect(run(['sow', 'task', 'get', '--id', '=', '02'], 5)).toEqual(['020']);
    expect(run(['sow', 'agent', 'spawn', 're'], 3)).toEqual(['reviewer', 'researcher']);
  });

  it.skipIf(!HAS_FISH)(
    'fish: complete -C offers the candidates with their descriptions (skipped where fish is not installed)',
    () => {
      const r = spawnSync('fish', ['-c', 'sow completion fish | source; complete -C"sow task get --id "'], {
        cwd: executing.dir,
        encoding: 'utf8',
        env: env(),
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.split('\n').filter(Boolean)).toEqual([
        '010\tFirst task (pending)',
        '020\tSecond task (pending)',
        '030\tThird task (pending)',
      ]);
    },
  );
});
