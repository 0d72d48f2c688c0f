#!/usr/bin/env node
/**
 * Makes the layout-version-1 fixture repositories that `sow migrate` is tested on.
 *
 *   node scripts/make-v1-fixtures.mjs
 *
 * The fixtures must be made by the *old* sow itself, never written by hand: this script extracts
 * sow 0.1.0 (commit 9280240) from this repository's history into a temp dir, runs `npm ci` and
 * `npm run build` there, and drives that old CLI through a few scenarios, each in its own throw-away
 * git repository, with a hermetic environment (temp HOME/XDG dirs, no colour, no compile cache, a
 * fixed git identity). Each repository's state is committed as a user would have it, and its work
 * tree is copied to test/fixtures/v1/<scenario>/tree/ — the top-level `.sow` renamed `dot-sow`, and
 * sow's runtime files (lock, journal, parse cache, trash, *.tmp, agent outputs) left out — beside a
 * meta.json that records the branch, the state and every step that was run.
 *
 * test/fixtures/v1/ is deleted and made again on every run; regenerate the fixtures only with this
 * script (timestamps in the YAML differ between runs; the set of files does not). Needs git, tar,
 * npm and a reachable npm registry; takes a few minutes. The temp dirs are removed at the end
 * (kept, and their path printed, when something fails or SOW_FIXTURES_KEEP_TMP=1 is set).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const OLD_COMMIT = '9280240';
const MADE_BY = `sow 0.1.0 (${OLD_COMMIT})`;
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(REPO_ROOT, 'test', 'fixtures', 'v1');

class StepError extends Error {}

/** Runs a command (argv array, no shell); throws with the command and its stderr unless it exits 0. */
function run(cmd, args, { cwd, env, input } = {}) {
  const r = spawnSync(cmd, args, { cwd, env, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) {
    const why = r.error ? String(r.error) : r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
    throw new StepError(
      `command failed (${why}) in ${cwd ?? process.cwd()}:\n  ${[cmd, ...args].join(' ')}\n` +
        `--- stderr ---\n${r.stderr ?? ''}--- stdout ---\n${r.stdout ?? ''}`,
    );
  }
  return r.stdout;
}

/** `git -C root archive <commit> | tar -x -C dir`, piped between two processes without a shell. */
function extractCommit(commit, dir) {
  return new Promise((done, fail) => {
    const git = spawn('git', ['-C', REPO_ROOT, 'archive', commit], { stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] });
    let gitErr = '';
    let tarErr = '';
    git.stderr.on('data', (d) => (gitErr += d));
    tar.stderr.on('data', (d) => (tarErr += d));
    git.stdout.pipe(tar.stdin);
    const codes = new Map();
    const finish = (name, code) => {
      codes.set(name, code);
      if (codes.size < 2) return;
      if (codes.get('git') === 0 && codes.get('tar') === 0) done();
      else
        fail(
          new StepError(
            `extracting ${commit} failed: git archive exit ${codes.get('git')}, tar ` +
              `exit ${codes.get('tar')}\n${gitErr}${tarErr}`,
          ),
        );
    };
    git.on('error', fail);
    tar.on('error', fail);
    git.on('close', (code) => finish('git', code));
    tar.on('close', (code) => finish('tar', code));
  });
}

// ---------------------------------------------------------------------------------------------
// Fixture repositories

/** One scenario's repository: runs the old sow and file/git steps there, recording each step. */
class Repo {
  constructor(dir, env, sowBin) {
    this.dir = dir;
    this.env = env;
    this.sowBin = sowBin;
    /** sow argv lists (["sow", …]) and other steps in words, in the order they were done. */
    this.steps = [];
  }

  git(...args) {
    return run('git', args, { cwd: this.dir, env: this.env });
  }

  /** Runs the old CLI; it must exit 0. */
  sow(...args) {
    this.steps.push(['sow', ...args]);
    return run(process.execPath, [this.sowBin, ...args], { cwd: this.dir, env: this.env });
  }

  /** Runs the old CLI where the step expects it to fail; returns its exit code and stderr. */
  sowFails(...args) {
    this.steps.push(['sow', ...args]);
    const r = spawnSync(process.execPath, [this.sowBin, ...args], { cwd: this.dir, env: this.env, encoding: 'utf8' });
    if (r.status === 0) throw new StepError(`expected a failure, but it exited 0: sow ${args.join(' ')}\n${r.stdout}`);
    this.note(`(the step above failed as expected: exit ${r.status})`);
    return r;
  }

  note(words) {
    this.steps.push(words);
  }

  write(rel, text) {
    const abs = join(this.dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
    this.note(`create file ${rel}`);
  }

  read(rel) {
    return readFileSync(join(this.dir, rel), 'utf8');
  }

  currentBranch() {
    return this.git('rev-parse', '--abbrev-ref', 'HEAD').trim();
  }

  branches() {
    return this.git('for-each-ref', '--format=%(refname:short)', 'refs/heads/').split('\n').filter(Boolean).sort();
  }
}

/** Is this path (relative to the repository root, with '/') one of sow's runtime files? */
function isRuntimeFile(rel) {
  if (rel.endsWith('.tmp')) return true;
  if (!rel.startsWith('.sow/')) return false;
  const inSow = rel.slice('.sow/'.length);
  const top = inSow.split('/')[0];
  return (
    top.startsWith('.lock') ||
    top === '.journal.json' ||
    top === '.cache' ||
    top.startsWith('.trash-') ||
    inSow.startsWith('project/agent-outputs/')
  );
}

/** Every file of the work tree except .git/ and runtime files, as '/'-separated relative paths. */
function workTreeFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const ent of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, ent.name);
      const rel = relative(root, abs).split(sep).join('/');
      if (rel === '.git') continue;
      if (ent.isDirectory()) {
        if (!isRuntimeFile(`${rel}/`)) walk(abs);
      } else if (ent.isFile()) {
        if (!isRuntimeFile(rel)) files.push(rel);
      } else {
        throw new StepError(`unexpected non-regular file in the work tree: ${rel}`);
      }
    }
  };
  walk(root);
  return files.sort();
}

// ---------------------------------------------------------------------------------------------
// Scenarios. Each is a function of a fresh Repo (on main, with one empty commit).

const line = (text) => `${text}\n`;

function planning(r) {
  r.sow('init');
  r.sow('project', 'new', 'add-auth', '--description', 'Add JWT authentication to API');
  r.sow('input', 'add', '--type', 'context', '--path', 'context/jwt-research.md');
  r.sow('output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md');
  r.write('.sow/project/context/jwt-research.md', line('JWT research: use RS256, short-lived access tokens.'));
  r.write('.sow/project/planning/tasks.md', line('Tasks: signing, verification, middleware.'));
}

/** planning, the plan approved, three tasks added and approved: ImplementationExecuting. */
function toExecuting(r) {
  planning(r);
  r.sow('output', 'set', '--index', '0', 'approved', 'true');
  r.sow('advance');
  r.sow('task', 'add', 'Implement JWT signing', '--agent', 'implementer');
  r.sow('task', 'add', 'Implement JWT verification', '--agent', 'implementer', '--depends-on', '010');
  r.sow('task', 'add', 'Add auth middleware', '--agent', 'implementer', '--depends-on', '010,020');
  r.sow('phase', 'set', 'tasks_approved', 'true');
  r.sow('advance');
}

function logJwt(r) {
  // sow 0.1.0 stores the file relative to the project dir (.sow/project/): ../../src/auth/jwt.ts
  r.sow(
    'log',
    '--agent',
    'implementer-1',
    '--action',
    'modified_file',
    '--result',
    'success',
    '--file',
    'src/auth/jwt.ts',
    '--task',
    '010',
    'signing done',
  );
}

function executing(r) {
  toExecuting(r);
  r.sow('task', 'set', '--id', '010', 'status', 'in_progress');
  r.sow('task', 'input', 'add', '--id', '010', '--type', 'reference', '--path', 'sinks/style-guide.md');
  r.sow(
    'task',
    'input',
    'add',
    '--id',
    '010',
    '--type',
    'feedback',
    '--path',
    'phases/implementation/tasks/010/feedback/001.md',
  );
  r.write('src/auth/jwt.ts', line('export const sign = () => "signed";'));
  r.write('src/auth/verify.ts', line('export const verify = () => true;'));
  logJwt(r);
  r.sow('task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', '../../src/auth/verify.ts');
  r.sow('task', 'set', '--id', '020', 'status', 'in_progress');
  r.sow('task', 'set', '--id', '020', 'status', 'completed');
}

function reviewFailed(r) {
  toExecuting(r);
  r.write('src/auth/jwt.ts', line('export const sign = () => "signed";'));
  for (const id of ['010', '020', '030']) {
    r.sow('task', 'set', '--id', id, 'status', 'in_progress');
    if (id === '010') logJwt(r);
    r.sow('task', 'set', '--id', id, 'status', 'completed');
  }
  r.sow('advance'); // → ReviewActive
  r.write('.sow/project/review/report-1.md', line('Review 1: verification accepts expired tokens. FAIL.'));
  r.sow('output', 'add', '--type', 'review', '--path', 'review/report-1.md', '--assessment', 'fail');
  r.sow('output', 'set', '--index', '0', 'approved', 'true');
  r.sow('advance'); // → ImplementationPlanning; 0.1.0 moves the failed review into implementation inputs
}

function finalize(r) {
  reviewFailed(r);
  r.sow('task', 'add', 'Fix review findings', '--agent', 'implementer'); // id 040
  r.sow('phase', 'set', 'tasks_approved', 'true');
  r.sow('advance'); // → ImplementationExecuting
  r.sow('task', 'set', '--id', '040', 'status', 'in_progress');
  r.sow('task', 'set', '--id', '040', 'status', 'completed');
  r.sow('advance'); // → ReviewActive
  r.write('.sow/project/review/report-2.md', line('Review 2: findings fixed. PASS.'));
  r.sow('output', 'add', '--type', 'review', '--path', 'review/report-2.md', '--assessment', 'pass');
  const listed = JSON.parse(r.sow('output', 'list', '--json'));
  const outputs = listed.data ?? [];
  const mine = outputs.find((a) => a.path === 'review/report-2.md');
  if (!mine) throw new StepError(`sow output list does not show review/report-2.md:\n${JSON.stringify(listed)}`);
  r.note(
    `sow output list showed ${outputs.length} ` +
      `output(s): ${outputs.map((a) => `[${a.index}] ${a.type} ${a.path}`).join(', ')}; ` +
      `review/report-2.md is index ${mine.index}${mine.index === 0 ? ' (the failed review was moved away)' : ''}`,
  );
  r.sow('output', 'set', '--index', String(mine.index), 'approved', 'true');
  r.sow('advance'); // → FinalizeDocumentation
  r.sow('advance'); // → FinalizeChecks
}

function commented(r) {
  planning(r);
  const rel = '.sow/project/state.yaml';
  let text = r.read(rel);
  if (!text.endsWith('\n')) text += '\n';
  writeFileSync(join(r.dir, rel), `# note from a person\n${text}# reviewed by hand\n`);
  r.note(`edit ${rel}: add the line "# note from a person" at the top and "# reviewed by hand" at the end`);
  r.sow('input', 'add', '--type', 'context', '--path', 'context/more.md');
}

function noPlanning(r) {
  r.sow('init');
  r.sow('project', 'new', 'quick-fix', '--description', 'A small fix', '--no-planning');
  r.sow('task', 'add', 'Fix it', '--agent', 'implementer');
}

const SCENARIOS = {
  initialised: (r) => r.sow('init'),
  planning,
  executing,
  'review-failed': reviewFailed,
  finalize,
  commented,
  'no-planning': noPlanning,
};

// ---------------------------------------------------------------------------------------------

async function main() {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'sow-v1-fixtures-')));
  let ok = false;
  try {
    // 1. Build the old sow.
    const src = join(tmp, 'sow-0.1.0');
    mkdirSync(src);
    process.stderr.write(`extracting ${OLD_COMMIT} into ${src}\n`);
    await extractCommit(OLD_COMMIT, src);
    process.stderr.write('npm ci && npm run build (old sow)\n');
    run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: src });
    run('npm', ['run', 'build'], { cwd: src });
    const sowBin = join(src, 'dist', 'sow.cjs');
    if (!existsSync(sowBin)) throw new StepError(`the old build made no ${sowBin}`);
    // The old tree's own dependency, to read state.yaml for meta.json (no new dependency here).
    const YAML = createRequire(join(src, 'package.json'))('yaml');

    // 2. A hermetic environment for every sow and git run in the fixture repositories.
    const home = join(tmp, 'home');
    mkdirSync(home);
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_CONFIG_HOME: join(home, '.config'),
      NO_COLOR: '1',
      SOW_NO_COMPILE_CACHE: '1',
      GIT_AUTHOR_NAME: 'sow fixtures',
      GIT_AUTHOR_EMAIL: 'fixtures@sow.invalid',
      GIT_COMMITTER_NAME: 'sow fixtures',
      GIT_COMMITTER_EMAIL: 'fixtures@sow.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
      LANG: 'C',
      TZ: 'UTC',
    };

    // 4. Start from nothing, so two runs give the same set of files.
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });

    // 3. The scenarios.
    for (const [scenario, steps] of Object.entries(SCENARIOS)) {
      process.stderr.write(`scenario ${scenario}\n`);
      const dir = join(tmp, 'repos', scenario);
      mkdirSync(dir, { recursive: true });
      const r = new Repo(dir, env, sowBin);
      r.git('init', '-q', '-b', 'main');
      r.git('commit', '-q', '--allow-empty', '-m', 'initial commit');
      r.note('git init -q -b main; git commit -q --allow-empty -m "initial commit"');
      steps(r);
      const branch = r.currentBranch();
      r.git('add', '-A');
      r.git('commit', '-q', '-m', scenario);
      r.note(`git add -A && git commit -q -m "${scenario}" on ${branch}`);

      // The copy must be exactly what was committed: anything else is a runtime file we missed.
      const files = workTreeFiles(dir);
      const committed = r.git('ls-files', '-z').split('\0').filter(Boolean).sort();
      if (files.join('\n') !== committed.join('\n')) {
        throw new StepError(
          `${scenario}: the files to copy differ from the committed files\n` +
            `to copy:   ${files.join(' ')}\ncommitted: ${committed.join(' ')}`,
        );
      }
      const dest = join(OUT, scenario, 'tree');
      for (const rel of files) {
        const to = join(dest, rel.replace(/^\.sow\//, 'dot-sow/'));
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(join(dir, rel), to);
      }

      const statePath = join(dir, '.sow', 'project', 'state.yaml');
      const state = existsSync(statePath) ? YAML.parse(readFileSync(statePath, 'utf8')) : undefined;
      const meta = {
        scenario,
        made_by: MADE_BY,
        branch: state?.branch ?? branch,
        branches: r.branches(),
        base_branch: 'main',
        state: state?.statechart?.current_state ?? null,
        steps: r.steps,
      };
      // One step a line, so a diff of two runs reads step by step.
      const stepLines = meta.steps.map((s) => `    ${JSON.stringify(s)}`).join(',\n');
      const json = JSON.stringify({ ...meta, steps: [] }, null, 2).replace(
        '"steps": []',
        `"steps": [\n${stepLines}\n  ]`,
      );
      writeFileSync(join(OUT, scenario, 'meta.json'), `${json}\n`);
    }

    writeFileSync(join(OUT, 'README.md'), README);
    ok = true;
    process.stderr.write(`wrote ${Object.keys(SCENARIOS).length} fixtures to ${relative(REPO_ROOT, OUT)}/\n`);
  } finally {
    if (ok && !process.env.SOW_FIXTURES_KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
    else process.stderr.write(`${ok ? '' : 'failed; '}temp dir kept: ${tmp}\n`);
  }
}

const README = `# Layout-version-1 fixtures

Repositories made by **sow 0.1.0** (commit ${OLD_COMMIT}), for testing \`sow migrate\` (layout 1 → 2).

- \`<scenario>/tree/\` is the work tree of a git repository in which the old sow ran the scenario's
  steps, and which was then committed (\`git add -A && git commit\`). \`.git/\` is not kept, nor are
  sow's runtime files (\`.sow/.lock*\`, \`.journal.json\`, \`.cache/\`, \`.trash-*\`, \`*.tmp\`,
  \`project/agent-outputs/\`).
- \`tree/dot-sow/\` is the repository's \`.sow/\` folder, renamed so this repository holds no \`.sow\`
  folder. Rename it back to \`.sow\` when copying a fixture into a test repository.
- \`<scenario>/meta.json\` records the branch the project lives on, all branch names, the state, and
  the steps that were run: \`["sow", …]\` lists are the old CLI's argv, strings are other steps.

Made by \`node scripts/make-v1-fixtures.mjs\`, which builds sow 0.1.0 from this repository's history.
**Never edit these files by hand**; change the script and run it again (it deletes and rewrites this
folder; timestamps differ between runs).
`;

main().catch((err) => {
  process.stderr.write(`${err instanceof StepError ? err.message : (err?.stack ?? err)}\n`);
  process.exit(1);
});
