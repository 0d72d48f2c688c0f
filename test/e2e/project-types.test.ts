/**
 * Project types through the CLI only: `project types`, `project new --type` and the type a branch
 * prefix implies, and the exploration type walked from creation to completion with the generic
 * commands (advance, continue, status, history, phase, outputs, tasks). What its guards decide,
 * the type a branch implies and the knowledge index over several projects are tested in-process
 * in src/app/type-exploration.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { expectEnvelope, expectFails, ok, PROJECT, useRepos } from './harness.js';

const fresh = useRepos();

describe('the registry through the CLI', () => {
  it('project types lists each type with its branch prefix and purpose', () => {
    const repo = fresh();
    const r = ok(repo, ['project', 'types']);
    expect(r.stdout).toMatch(/^standard +feat\/ +Plan with the human/m);
    expect(r.stdout).toMatch(/^exploration +explore\/ +Research a topic/m);
    const j = expectEnvelope(ok(repo, ['project', 'types', '--json']));
    expect(r.stdout).toMatch(/^design +design\/ +Write design documents/m);
    expect(r.stdout).toMatch(/^breakdown +breakdown\/ +/m);
    expect(r.stdout).toMatch(/^iterative +iter\/ +Iterative work/m);
    expect(j.data.map((t: any) => [t.name, t.branch_prefix])).toEqual([
      ['standard', 'feat/'],
      ['exploration', 'explore/'],
      ['design', 'design/'],
      ['breakdown', 'breakdown/'],
      ['iterative', 'iter/'],
    ]);
    // The columns line up: every description starts at one place (breakdown/ is the longest prefix).
    const lines = r.stdout.trimEnd().split('\n');
    expect(new Set(lines.map((l, i) => l.indexOf(j.data[i].description))).size, r.stdout).toBe(1);
  });

  it(
    "--type picks the type and its branch prefix; a branch with a type's prefix implies it; an unknown type " +
      'is refused',
    () => {
      const repo = fresh();
      const r = ok(repo, [
        'project',
        'new',
        'jwt-libs',
        '--type',
        'exploration',
        '--description',
        'Which JWT library?',
      ]);
      expect(r.stdout).toBe('Active\n');
      expect(r.stderr).toContain("created and checked out branch 'explore/jwt-libs'");
      expect(repo.yaml(PROJECT)).toMatchObject({ type: 'exploration', branch: 'explore/jwt-libs' });
      // A branch prefix implying the type, and --type over it: src/app/type-exploration.test.ts (and
      // the design and iterative e2e files, through the command line).
      ok(repo, ['project', 'delete', '--yes']);
      expect(expectFails(repo, ['project', 'new', 'x', '--type', 'explorer'], 2, 'USAGE')).toContain(
        'project types: standard, exploration, design, breakdown, iterative',
      );
    },
  );
});

describe('exploration, start to finish through the CLI', () => {
  it(
    'topics → summaries → approved → completed: ' + 'the summaries kept in .sow/knowledge/explorations/ and indexed',
    () => {
      const repo = fresh();
      ok(repo, ['project', 'new', 'jwt-libs', '--type', 'exploration', '--description', 'Which JWT library?']);
      const cont = ok(repo, ['project', 'continue', '--full']).stdout;
      expect(cont).toContain('**Human-led.**');
      expect(cont).toContain('Each task is one topic to investigate');
      expect(ok(repo, ['advance', '--list']).stdout).toContain('blocked  topics_done → Summarizing');
      ok(repo, ['task', 'add', 'jose']);
      ok(repo, ['task', 'add', 'jsonwebtoken']);
      ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
      repo.write('.sow/project/findings/jose.md', '# jose\n\nModern, ESM, maintained.\n');
      ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'findings', '--path', 'findings/jose.md']);
      ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
      expect(expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain('020');
      ok(repo, ['task', 'abandon', '--id', '020']);
      expect(ok(repo, ['advance', '--dry-run']).stdout).toBe('Summarizing\n');
      expect(ok(repo, ['advance']).stdout).toBe('Summarizing\n');
      expect(ok(repo, ['phase', 'get', 'status']).stdout).toBe('in_progress\n');
      ok(repo, ['phase', 'set', 'metadata.tags', 'auth,jwt']);
      repo.write('.sow/project/summary.md', '# Which JWT library?\n\njose.\n');
      ok(repo, ['output', 'add', '--type', 'summary', '--path', 'summary.md']);
      expect(expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain(
        "'sow output set --index 0 approved true'",
      );
      ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
      expect(ok(repo, ['advance']).stdout).toBe('Finalizing\n');
      const status = ok(repo, ['project', 'status']).stdout;
      expect(status).toContain('State    Finalizing — human-led');
      expect(status).toMatch(/exploration +completed/);
      expect(ok(repo, ['project', 'continue', '--full']).stdout).toContain('.sow/knowledge/explorations/jwt-libs/');
      expect(expectFails(repo, ['pr', 'create'], 1, 'NO_PULL_REQUEST')).toContain(
        'this exploration project has no pull request',
      );
      const history = ok(repo, ['project', 'history']).stdout;
      expect(
        history
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(/\s+/)[1]),
      ).toEqual(['project_init', 'topics_done', 'summaries_approved']);
      expect(ok(repo, ['advance']).stdout).toBe('Completed\n');
      expect(repo.exists('.sow/project')).toBe(false);
      expect(readFileSync(join(repo.dir, '.sow/knowledge/explorations/jwt-libs/summary.md'), 'utf8')).toBe(
        '# Which JWT library?\n\njose.\n',
      );
      const index = parse(repo.read('.sow/knowledge/index.yaml'));
      expect(index).toEqual({
        entries: [
          {
            type: 'exploration',
            topic: 'Which JWT library?',
            name: 'jwt-libs',
            branch: 'explore/jwt-libs',
            date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
            tags: ['auth', 'jwt'],
            path: '.sow/knowledge/explorations/jwt-libs',
            files: ['.sow/knowledge/explorations/jwt-libs/summary.md'],
          },
        ],
      });
      // The next project is added to the same index: src/app/type-exploration.test.ts.
    },
  );
});
