/**
 * The README's own snippets run verbatim. Each ```bash block of the tour and of the guide's project-type page
 * (docs/guide/project-types.md) runs line by line, in order, in a fresh repository named `your-repo`, with the built
 * sow on PATH — as a person would type them. What the README says in its comments is checked:
 *
 *  - `# exit N: …` after a command: it exits N (every other command exits 0);
 *  - `# → State` after a command: it prints that state last (`sow advance` prints where it went);
 *  - comment lines `# [0] …` right after a command: the lines it prints, in order.
 *
 * What a person writes in between is what the README shows them writing: `$EDITOR <file>` runs an
 * editor (here one that writes a short document to the file, as a person would); no other
 * convention. The tour starts outside the repository (its first line is `cd your-repo`); each
 * project type starts in a repository of its own, where `project new` initialises `.sow/`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SOW, TEST_ENV } from './harness.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
/** The guide's page of project types, whose blocks run as the README's do. */
const TYPES = readFileSync(fileURLToPath(new URL('../../docs/guide/project-types.md', import.meta.url)), 'utf8');

const top = mkdtempSync(join(tmpdir(), 'sow-readme-'));
afterAll(() => rmSync(top, { recursive: true, force: true }));

/**
 * A bin folder for PATH: sow (the build under test), the editor, and the tools a person has (git, node, sh); no
 * agent CLI, no gh.
 */
const bin = join(top, 'bin');
mkdirSync(bin);
writeFileSync(join(bin, 'sow'), `#!/bin/sh\nexec "${process.execPath}" "${SOW}" "$@"\n`, { mode: 0o755 });
/** The editor a person would use: it writes a short document to the file it is given. */
writeFileSync(
  join(bin, 'editor'),
  `#!/bin/sh
mkdir -p "$(dirname "$1")"
printf '# %s\\n\\nWritten in the README test, as a person would write it.\\n' "$(basename "$1" .md)" > "$1"
`,
  { mode: 0o755 },
);
const tools = ['git', 'sh', 'mkdir', 'dirname', 'basename', 'printf'].map((t) =>
  dirname(execFileSync('sh', ['-c', `command -v ${t}`], { encoding: 'utf8' }).trim()),
);
const PATH = [bin, dirname(process.execPath), ...new Set(tools)].join(':');

export interface Step {
  /** The command line as the README has it (without its comment). */
  command: string;
  /** The exit code its comment promises (`# exit 3: …`), else 0. */
  exit: number;
  /** The state its comment says it moves to (`# → State`). */
  state?: string;
  /** The output lines the README shows after it (`# [0] …`). */
  output: string[];
  line: number;
}

/** The ```bash blocks of the section under the heading `## <title>` (up to the next `## `). */
export function bashBlocks(markdown: string, title: string): { line: number; text: string[] }[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l === `## ${title}`);
  if (start < 0) throw new Error(`no section '## ${title}' in the README`);
  const blocks: { line: number; text: string[] }[] = [];
  let current: { line: number; text: string[] } | undefined;
  for (let i = start + 1; i < lines.length && !lines[i]!.startsWith('## '); i++) {
    const l = lines[i]!;
    if (current === undefined && l === '```bash') current = { line: i + 2, text: [] };
    else if (current !== undefined && l === '```') {
      blocks.push(current);
      current = undefined;
    } else if (current) current.text.push(l);
  }
  return blocks;
}

/** A block's commands, each with what its comments promise. */
export function stepsOf(block: { line: number; text: string[] }): Step[] {
  const steps: Step[] = [];
  block.text.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    if (line.startsWith('#')) {
      // Output the README shows for the command above: `# [0] task_list: … (not approved)`.
      const shown = /^# (\[\d+\] .*)$/.exec(line);
      if (shown && steps.length) steps.at(-1)!.output.push(shown[1]!);
      return;
    }
    // The comment: two spaces or more, then `#` (a `#` inside the command, as in `"#42"`, is not one).
    const m = /^(.*?\S)\s{2,}#\s?(.*)$/.exec(line) ?? /^(.*?\S)\s+#\s(.*)$/.exec(line);
    const command = m ? m[1]! : line;
    const comment = m ? m[2]! : '';
    const exit = /^exit (\d+)\b/.exec(comment);
    const state = /^→ ([A-Z][A-Za-z]+)\b/.exec(comment);
    steps.push({
      command,
      exit: exit ? Number(exit[1]) : 0,
      ...(state ? { state: state[1]! } : {}),
      output: [],
      line: block.line + i,
    });
  });
  return steps;
}

/** Runs the steps in order in a shell that keeps its folder from line to line; each must do what the README says. */
function runSteps(steps: Step[], startIn: string): void {
  let cwd = startIn;
  const where = join(top, 'cwd');
  for (const step of steps) {
    const r = spawnSync(
      'sh',
      ['-c', 'cd "$1" || exit 99; eval "$2"; rc=$?; pwd > "$3"; exit $rc', 'sh', cwd, step.command, where],
      {
        encoding: 'utf8',
        env: { ...TEST_ENV, PATH, EDITOR: 'editor', LANG: 'C.UTF-8' },
      },
    );
    const said =
      `README line ${step.line}: ${step.command}\nexit ${r.status}\n` + `stdout: ${r.stdout}\nstderr: ${r.stderr}`;
    expect(r.status, said).toBe(step.exit);
    if (step.exit !== 0) expect(r.stderr, `${said}\na refusal says why`).toMatch(/^error: /m);
    cwd = readFileSync(where, 'utf8').trim();
    if (step.state !== undefined) expect(r.stdout.trim().split('\n').at(-1), said).toBe(step.state);
    if (step.output.length)
      expect(
        r.stdout.split('\n').filter((l) => /^\[\d+\] /.test(l)),
        said,
      ).toEqual(step.output);
  }
}

/** A git repository named `your-repo` with one commit, and the folder that holds it. */
function yourRepo(): { parent: string; repo: string } {
  const parent = mkdtempSync(join(top, 'run-'));
  const repo = join(parent, 'your-repo');
  mkdirSync(repo);
  const git = (args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, ...TEST_ENV } });
  git(['init', '-q', '-b', 'main']);
  git(['commit', '-q', '--allow-empty', '-m', 'initial']);
  return { parent, repo };
}

describe('the README runs as written', () => {
  it('the tour: every block in order, from cd your-repo to the project deleted', () => {
    const steps = bashBlocks(README, 'A tour: one project from start to finish').flatMap(stepsOf);
    expect(steps[0]?.command).toBe('cd your-repo');
    expect(steps.filter((s) => s.exit !== 0).length, 'the tour shows refusals too').toBeGreaterThan(0);
    const { parent } = yourRepo();
    runSteps(steps, parent);
  });

  const types = bashBlocks(TYPES, 'Every type');
  it.each(
    types.map(
      (b) => [b.text.find((l) => l.startsWith('sow project new'))?.match(/--type (\w+)/)?.[1] ?? '?', b] as const,
    ),
  )('the %s project type: its block in a repository of its own', (_type, block) => {
    const { repo } = yourRepo();
    runSteps(stepsOf(block), repo);
  });
});

describe('reading the README', () => {
  it('finds the commands, the exits, the states and the output the comments promise', () => {
    const steps = stepsOf({
      line: 1,
      text: [
        'sow output list',
        '# [0] task_list: planning/tasks.md (not approved)',
        'sow advance            # exit 3: blocked until …',
        '# a comment line',
        'sow advance            # → ImplementationPlanning',
        'sow pr create --title "#42 fix"   # while finalizing',
      ],
    });
    expect(steps).toEqual([
      { command: 'sow output list', exit: 0, output: ['[0] task_list: planning/tasks.md (not approved)'], line: 1 },
      { command: 'sow advance', exit: 3, output: [], line: 3 },
      { command: 'sow advance', exit: 0, state: 'ImplementationPlanning', output: [], line: 5 },
      { command: 'sow pr create --title "#42 fix"', exit: 0, output: [], line: 6 },
    ]);
  });
});
