/**
 * A cloned repository is untrusted input: links and paths it carries never make sow read, write
 * or remove anything outside the repository's own folders. Each attack is built as an attacker
 * would (committed with `git add -f`), cloned, and met with the commands a user runs.
 */
import { createHash } from 'node:crypto';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok, toExecuting } from './harness.js';
import { expectRefused, useHostile, type Hostile } from './hostile.js';

const hostile = useHostile();

/** The commands that run on their own when a person opens a repository, or that workers run all day. */
const READS: string[][] = [['status'], ['project', 'continue'], ['task', 'list'], ['project', 'status']];

/** A hostile repository with a project in ImplementationExecuting (tasks 010, 020) on feat/demo. */
function withProject(): Hostile {
  return hostile({ start: { key: 'executing', setup: (repo) => toExecuting(repo) } });
}

describe("runtime folders a clone carries are ignored: sow keeps its own in git's folder", () => {
  // A link in sow's own runtime folder (.git/sow/tmp, trash) is refused by every use case: in-process
  // (src/app/workspace.test.ts).
  for (const rel of [
    '.sow/.runtime',
    '.sow/.runtime/tmp',
    '.sow/.runtime/trash',
    '.sow/.backup',
    '.sow/.runtime/agent-outputs',
  ]) {
    it(
      `a committed ${rel} -> a folder outside: every read works, nothing is emptied or written there, ` +
        `doctor names it`,
      () => {
        const h = withProject();
        h.link(rel, h.sentinel);
        h.commit();
        const clone = h.clone();
        for (const args of READS) ok(clone, args);
        ok(clone, ['task', 'set', '--id', '010', 'status', 'in_progress']);
        const doctor = clone.sow(['doctor', '--json']);
        const legacy = (
          JSON.parse(doctor.stdout).error?.details?.checks ?? JSON.parse(doctor.stdout).data?.checks
        ).find((c: { id: string }) => c.id === 'legacy-runtime');
        expect(legacy, doctor.stdout).toMatchObject({
          status: 'warn',
          message: expect.stringContaining(rel.split('/').slice(0, 2).join('/')),
        });
        h.untouched();
      },
    );
  }

  it("a committed .sow/.runtime/tmp -> ../../src (the repository's own source): ignored, the source kept", () => {
    const h = withProject();
    h.write('src/main.c', 'int main() {}\n');
    h.link('.sow/.runtime/tmp', '../../src');
    h.commit();
    const clone = h.clone();
    for (const args of READS) ok(clone, args);
    ok(clone, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    expect(clone.read('src/main.c')).toBe('int main() {}\n');
    h.untouched();
  });
});

describe('writes never go through a linked folder', () => {
  const cases: [string, string[][]][] = [
    [
      '.sow/project/phases/implementation/tasks/010',
      [
        ['task', 'set', '--id', '010', 'metadata.x', '1'],
        ['task', 'get', '--id', '010'],
      ],
    ],
    [
      '.sow/project/phases/implementation/tasks',
      [
        ['task', 'add', 'New task'],
        ['task', 'list'],
      ],
    ],
    [
      '.sow/project',
      [['status'], ['task', 'list'], ['log', '--action', 'research', '--result', 'success', '--project', 'hello']],
    ],
    ['.sow/knowledge', [['init']]],
  ];
  for (const [rel, commands] of cases) {
    it(`${rel} -> a folder outside: ${commands.map((c) => c.join(' ')).join('; ')} refuse it`, () => {
      const h = withProject();
      // The linked folder holds a copy of what was there, so reads would find valid state through it.
      h.link(rel, h.sentinel);
      h.commit();
      const clone = h.clone();
      for (const args of commands) expectRefused(clone, args, /is a link|outside/);
      h.untouched();
    });
  }

  it('.sow -> a folder outside: refused by every command, sow init included', () => {
    const h = hostile();
    h.link('.sow', h.sentinel);
    h.commit();
    const clone = h.clone();
    for (const args of [['init'], ['status'], ['project', 'new', 'x', '--description', 'y']])
      expectRefused(clone, args, /\.sow'? is a link/);
    h.untouched();
  });

  it('.sow that is a file: exit 4 with a hint, never 70', () => {
    const h = hostile();
    h.commit();
    const clone = h.clone();
    rmSync(join(clone.dir, '.sow'), { recursive: true, force: true });
    writeFileSync(join(clone.dir, '.sow'), 'not a folder\n');
    for (const args of [['init'], ['status']]) expectRefused(clone, args, /\.sow is a file, not a folder/);
    h.untouched();
  });
});

describe('paths in committed state files are checked when read', () => {
  const TASK = '.sow/project/phases/implementation/tasks/010/state.yaml';

  it('a task output path leading out of the repository makes the task file invalid (exit 4), whatever reads it', () => {
    const h = withProject();
    ok(h.origin, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/a.ts']);
    const depth = h.origin.dir.split('/').length;
    h.write(
      TASK,
      h.origin.read(TASK).replace('path: src/a.ts', `path: ${'../'.repeat(depth)}${h.sentinel.slice(1)}/precious.txt`),
    );
    h.commit();
    const clone = h.clone();
    for (const args of [['task', 'get', '--id', '010'], ['task', 'list'], ['status'], ['advance', '--dry-run']]) {
      expectRefused(clone, args, /outputs\.0\.path: must be a path inside the repository/);
    }
    h.untouched();
  });

  it('an absolute artifact path is refused when read, too', () => {
    const h = withProject();
    ok(h.origin, ['task', 'input', 'add', '--id', '010', '--type', 'reference', '--path', 'notes.md']);
    h.write(TASK, h.origin.read(TASK).replace('path: notes.md', `path: ${h.sentinel}/precious.txt`));
    h.commit();
    expectRefused(h.clone(), ['task', 'get', '--id', '010'], /inputs\.0\.path: must be a path inside the repository/);
    h.untouched();
  });

  it('a document linked out of the repository is never read into an approval, an archive or a prompt', () => {
    const h = hostile();
    ok(h.origin, ['project', 'new', 'demo', '--description', 'A demo project']);
    ok(h.origin, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
    h.link('.sow/project/planning/tasks.md', `${h.sentinel}/precious.txt`);
    h.commit();
    const clone = h.clone();
    expectRefused(
      clone,
      ['output', 'set', '--index', '0', 'approved', 'true'],
      /'\.sow\/project\/planning\/tasks\.md' is a link to '.*precious\.txt', outside the repository/,
    );
    h.untouched();
  });

  it('a loop of links is exit 4, never an internal error', () => {
    const h = withProject();
    h.link('.sow/project/phases/implementation/tasks/030', '030');
    h.commit();
    const clone = h.clone();
    for (const args of [['task', 'list'], ['status']]) {
      const r = clone.sow(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(4);
      expect(r.stderr).not.toMatch(/internal error/);
    }
    h.untouched();
  });

  it('sow iter phase add --output ../../../etc/x.md is refused; a committed one is exit 4', () => {
    const h = hostile();
    ok(h.origin, ['project', 'new', 'dig', '--type', 'iterative', '--description', 'x']);
    h.origin.write('.sow/project/brief.md', '# x\n\n## Outcome Needed\nA dig.\n');
    ok(h.origin, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(h.origin, ['advance']);
    const r = h.origin.sow(['iter', 'phase', 'add', 'R1', '--title', 't', '--output', '../../../etc/x.md']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/invalid value '\.\.\/\.\.\/\.\.\/etc\/x\.md' for 'output'/);
    expect(
      h.origin.sow(['iter', 'phase', 'add', 'R1', '--title', 't', '--output', '../outputs/x.md']).code,
      'out of .sow/project/ into .sow/',
    ).toBe(1);
    ok(h.origin, ['iter', 'phase', 'add', 'R1', '--title', 't', '--output', 'outputs/./r1.md']);
    expect(h.origin.read('.sow/project/state.yaml')).toContain('output: outputs/r1.md');
    h.write(
      '.sow/project/state.yaml',
      h.origin.read('.sow/project/state.yaml').replace('output: outputs/r1.md', 'output: ../../../../etc/x.md'),
    );
    h.commit();
    expectRefused(h.clone(), ['status'], /output: must be a path inside \.sow\/project\//);
    h.untouched();
  });
});

describe('a project folder without its project file', () => {
  it('reads as exit 4 with the way back, never as "no project"; project new refuses to adopt the leftovers', () => {
    const h = withProject();
    h.commit();
    const clone = h.clone();
    rmSync(join(clone.dir, '.sow/project/state.yaml'));
    for (const args of [['status'], ['task', 'list'], ['project', 'continue']]) {
      expectRefused(clone, args, /\.sow\/project\/state\.yaml is missing, but \.sow\/project\/ still holds/);
    }
    const hint = expectRefused(clone, ['project', 'new', 'other', '--description', 'x'], /is missing/);
    expect(hint).toContain('git checkout -- .sow/project/state.yaml');
    // The way back works.
    clone.git(['checkout', '--', '.sow/project/state.yaml']);
    ok(clone, ['status']);
    // Leftovers can be removed on purpose.
    rmSync(join(clone.dir, '.sow/project/state.yaml'));
    expectRefused(clone, ['project', 'delete', '--yes'], /is missing/);
    ok(clone, ['project', 'delete', '--yes', '--force']);
    expect(clone.exists('.sow/project')).toBe(false);
    ok(clone, ['project', 'new', 'other', '--description', 'x']);
    expect(clone.exists('.sow/project/phases/implementation/tasks/010')).toBe(false);
  });
});

describe('a crafted journal a clone carries', () => {
  function journal(h: Hostile, rel: string, body: Record<string, unknown>): void {
    h.write(
      rel,
      JSON.stringify({ ...body, checksum: createHash('sha256').update(JSON.stringify(body)).digest('hex') }),
    );
  }

  // A journal in sow's own runtime folder is still checked before it is replayed, by every use case: in-process
  // (src/app/workspace.test.ts).
  it('removing the project, or the knowledge: never replayed; the project stays where it is and sow reads it', () => {
    for (const format of [2, 3]) {
      const h = withProject();
      h.write('.sow/knowledge/adr.md', 'decided\n');
      journal(h, '.sow/.runtime/journal.json', {
        version: format,
        renames: [],
        folders: [],
        removals: ['.sow/project', '.sow/knowledge'],
      });
      h.commit();
      const clone = h.clone();
      for (const args of READS) {
        const r = ok(clone, args);
        expect(r.stderr, args.join(' ')).not.toMatch(/interrupted|kept in/);
      }
      expect(clone.exists('.sow/project/state.yaml')).toBe(true);
      expect(clone.read('.sow/knowledge/adr.md')).toBe('decided\n');
      expect(clone.exists('.git/sow/backup'), 'nothing moved aside').toBe(false);
      expect(clone.exists('.sow/.runtime/journal.json'), 'left for a person to look at').toBe(true);
      h.untouched();
    }
  });

  it('a .sow/.backup link with a crafted journal: reads create nothing outside and keep working', () => {
    const h = withProject();
    h.link('.sow/.backup', join(h.sentinel, 'made-by-sow'));
    journal(h, '.sow/.runtime/journal.json', { version: 2, renames: [], folders: [], removals: ['.sow/project'] });
    h.commit();
    const clone = h.clone();
    for (const args of READS) ok(clone, args);
    ok(clone, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    h.untouched();
  });
});

describe('worktrees', () => {
  it('.sow/worktrees linked out: worktree add refuses it and puts no checkout there', () => {
    const h = hostile();
    h.link('.sow/worktrees', h.sentinel);
    h.commit();
    const clone = h.clone();
    expectRefused(clone, ['worktree', 'add', 'feat/x'], /worktrees.* is a link|outside/);
    h.untouched();
  });
});

describe('archives', () => {
  /** An exploration in Finalizing: its summary approved, completing it archives the summary and findings. */
  function finalizing(repo: import('./harness.js').Repo): void {
    ok(repo, ['project', 'new', 'jwt-libs', '--type', 'exploration', '--description', 'Which JWT library?']);
    ok(repo, ['task', 'add', 'jose']);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    repo.write('.sow/project/findings/jose.md', '# jose\n');
    ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'findings', '--path', 'findings/jose.md']);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
    ok(repo, ['advance']);
    repo.write('.sow/project/summary.md', '# Summary\n');
    ok(repo, ['output', 'add', '--type', 'summary', '--path', 'summary.md']);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
  }

  it(
    'the summary linked to a file outside: ' + 'completing the project refuses to copy it into the knowledge folder',
    () => {
      const h = hostile({ start: { key: 'exploration-finalizing', setup: finalizing } });
      h.link('.sow/project/summary.md', `${h.sentinel}/precious.txt`);
      h.commit();
      const clone = h.clone();
      expectRefused(
        clone,
        ['advance'],
        /'\.sow\/project\/summary\.md' is a link to '.*precious\.txt', outside the repository/,
      );
      expect(clone.exists('.sow/knowledge/explorations')).toBe(false);
      h.untouched();
    },
  );
});
