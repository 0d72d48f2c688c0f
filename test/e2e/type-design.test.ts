/**
 * The design project type through the CLI only: created with --type or implied by a design/
 * branch, walked from Active (a task per document) through Finalizing to Completed, each refused
 * move blocked by the guard that names what is missing (exit 3), and the approved documents kept
 * in .sow/knowledge/. The guard's variants and where Completed keeps the documents (ADRs in adrs/,
 * the rest in designs/, or where .sow/config.yaml says, never over a document already there) are
 * tested in-process in src/app/type-design.test.ts; here, the walk start to finish once.
 */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { expectEnvelope, expectFails, ok, PROJECT, useRepos } from './harness.js';

const fresh = useRepos();
const taskState = (id: string) => `.sow/project/phases/design/tasks/${id}/state.yaml`;
const DATE = expect.stringMatching(/^\d{4}-\d\d-\d\d$/);

describe('design projects: creation', () => {
  it('is listed, --type design makes design/<name>, and a design/ branch implies the type', () => {
    const repo = fresh();
    expect(ok(repo, ['project', 'types']).stdout).toMatch(/^design +design\/ +Write design documents/m);
    const r = ok(repo, ['project', 'new', 'storage', '--type', 'design', '--description', 'Where do we store events?']);
    expect(r.stdout).toBe('Active\n');
    expect(r.stderr).toContain("created and checked out branch 'design/storage'");
    expect(repo.git(['branch', '--show-current'])).toBe('design/storage');
    expect(repo.yaml(PROJECT)).toMatchObject({
      type: 'design',
      branch: 'design/storage',
      phases: { design: { status: 'in_progress' }, finalization: { status: 'pending' } },
    });
    ok(repo, ['project', 'delete', '--yes']);
    repo.git(['checkout', '-q', '-b', 'design/x']);
    expect(ok(repo, ['project', 'new', 'x']).stdout).toBe('Active\n');
    expect(repo.yaml(PROJECT)).toMatchObject({ type: 'design', branch: 'design/x' });
  });
});

describe('design, start to finish through the CLI', () => {
  it(
    'documents → approved → Finalizing → Completed: ' + 'ADRs in .sow/knowledge/adrs/, the rest in designs/, indexed',
    () => {
      const repo = fresh();
      ok(repo, ['project', 'new', 'storage', '--type', 'design', '--description', 'Where do we store events?']);
      const cont = ok(repo, ['project', 'continue', '--full']).stdout;
      expect(cont).toContain('# sow: storage — Active');
      expect(cont).toContain('**Human-led.**');
      expect(cont).toContain('Each task is one document to write (0 so far)');
      expect(cont).toContain('sow task output add --id <id> --type adr');
      expect(ok(repo, ['advance', '--list']).stdout).toContain('blocked  documents_approved → Finalizing');
      expect(expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED', { human: true })).toContain(
        "'sow task add <document>'",
      );

      ok(repo, ['task', 'add', 'Use Postgres']);
      ok(repo, ['task', 'add', 'Event store design']);
      ok(repo, ['task', 'add', 'Caching layer']);
      ok(repo, ['phase', 'set', 'metadata.tags', 'storage,postgres']);
      // Every task open: each is named.
      expect(expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain('finish or abandon 010, 020, 030');

      // 010: an ADR, approved only once its file exists.
      ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
      ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'adr', '--path', 'adrs/0001-use-postgres.md']);
      expect(
        expectFails(
          repo,
          ['task', 'output', 'set', '--id', '010', '--index', '0', 'approved', 'true'],
          1,
          'ARTIFACT_FILE_MISSING',
        ),
      ).toContain('does not exist');
      expect(repo.yaml(taskState('010')).outputs[0].approved).toBe(false);
      repo.write('.sow/project/adrs/0001-use-postgres.md', '# Use Postgres\n\nWe store events in Postgres.\n');
      ok(repo, ['task', 'output', 'set', '--id', '010', '--index', '0', 'approved', 'true']);
      ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
      // The human drops 030, though its draft had been approved: an abandoned task's document is not kept.
      repo.write('.sow/project/designs/caching.md', '# Caching\n');
      ok(repo, [
        'task',
        'output',
        'add',
        '--id',
        '030',
        '--type',
        'design',
        '--path',
        'designs/caching.md',
        '--approved',
        'true',
      ]);
      ok(repo, ['task', 'abandon', '--id', '030']);

      // 020 completed without its document.
      ok(repo, ['task', 'set', '--id', '020', 'status', 'completed']);
      const r = repo.sow(['advance', '--json']);
      expect(r.code).toBe(3);
      expect(expectEnvelope(r).error).toMatchObject({
        code: 'TRANSITION_BLOCKED',
        hint:
          "task 020 has no document: 'sow task output add --id 020 --type <type> --path <file>' (type: design, " +
          'adr, architecture, diagram or spec)',
      });

      // Its documents recorded and approved. (A document not approved, named by its real index, and
      // one of the design phase itself: src/app/type-design.test.ts.)
      repo.write('.sow/project/designs/event-store.md', '# Event store\n\nAppend-only table.\n');
      repo.write('.sow/project/specs/events.md', '# Events\n');
      ok(repo, [
        'task',
        'output',
        'add',
        '--id',
        '020',
        '--type',
        'design',
        '--path',
        'designs/event-store.md',
        '--approved',
        'true',
      ]);
      ok(repo, ['task', 'output', 'add', '--id', '020', '--type', 'spec', '--path', 'specs/events.md']);
      ok(repo, ['task', 'output', 'set', '--id', '020', '--index', '1', 'approved', 'true']);

      // A diagram the user added to the design phase itself is kept.
      repo.write('.sow/project/diagrams/flow.mmd', 'graph LR; app-->db\n');
      ok(repo, ['output', 'add', '--type', 'diagram', '--path', 'diagrams/flow.mmd', '--approved', 'true']);

      expect(ok(repo, ['advance', '--dry-run']).stdout).toBe('Finalizing\n');
      expect(repo.yaml(PROJECT).statechart.current_state).toBe('Active');
      const moved = expectEnvelope(ok(repo, ['advance', '--json']));
      expect(moved).toEqual({
        ok: true,
        data: { from: 'Active', to: 'Finalizing', event: 'documents_approved', dryRun: false, projectRemoved: false },
      });

      const status = ok(repo, ['project', 'status']).stdout;
      expect(status).toContain('State    Finalizing — human-led');
      expect(status).toMatch(/design +completed/);
      expect(status).toMatch(/finalization +in_progress/);
      expect(status).toContain('design_complete → Completed');
      expect(ok(repo, ['phase', 'get', 'status']).stdout).toBe('in_progress\n');
      expect(ok(repo, ['phase', 'get', 'status', '--phase', 'design']).stdout).toBe('completed\n');
      const history = ok(repo, ['project', 'history']).stdout;
      expect(
        history
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(/\s+/)[1]),
      ).toEqual(['project_init', 'documents_approved']);
      const finalizing = ok(repo, ['project', 'continue', '--full']).stdout;
      expect(finalizing).toContain('# sow: storage — Finalizing');
      expect(finalizing).toContain('.sow/knowledge/adrs/');
      expect(expectFails(repo, ['pr', 'create'], 1, 'NO_PULL_REQUEST')).toContain(
        'this design project has no pull request',
      );

      const done = expectEnvelope(ok(repo, ['advance', '--json']));
      expect(done.data).toMatchObject({
        from: 'Finalizing',
        to: 'Completed',
        event: 'design_complete',
        projectRemoved: true,
      });
      expect(repo.exists('.sow/project')).toBe(false);
      expect(repo.read('.sow/knowledge/adrs/0001-use-postgres.md')).toBe(
        '# Use Postgres\n\nWe store events in Postgres.\n',
      );
      expect(repo.read('.sow/knowledge/designs/event-store.md')).toBe('# Event store\n\nAppend-only table.\n');
      expect(repo.read('.sow/knowledge/designs/events.md')).toBe('# Events\n');
      expect(repo.read('.sow/knowledge/designs/flow.mmd')).toBe('graph LR; app-->db\n');
      expect(repo.exists('.sow/knowledge/designs/caching.md')).toBe(false);
      expect(parse(repo.read('.sow/knowledge/index.yaml'))).toEqual({
        entries: [
          {
            type: 'design',
            topic: 'Where do we store events?',
            name: 'storage',
            branch: 'design/storage',
            date: DATE,
            tags: ['storage', 'postgres'],
            documents: [
              { task: '010', type: 'adr', title: 'Use Postgres' },
              { task: '020', type: 'design', title: 'Event store design' },
              { task: '020', type: 'spec', title: 'Event store design' },
              { type: 'diagram', title: 'flow.mmd' },
            ],
            files: [
              '.sow/knowledge/adrs/0001-use-postgres.md',
              '.sow/knowledge/designs/event-store.md',
              '.sow/knowledge/designs/events.md',
              '.sow/knowledge/designs/flow.mmd',
            ],
          },
        ],
      });
      expect(repo.sow(['project', 'status']).code).not.toBe(0);
    },
  );
  // Only abandoned tasks (one document must be completed): src/app/type-design.test.ts.
});

// Where the documents go (a second ADR of the same name gets -2, knowledge.places): src/app/type-design.test.ts.
