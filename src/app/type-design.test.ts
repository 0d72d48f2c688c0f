/**
 * The design type in-process: the guard out of Active over the ways a document can be missing
 * (each named with the command that fixes it), and where Completed keeps the approved documents
 * (ADRs in adrs/, the rest in designs/, or where .sow/config.yaml says; never over a document
 * already there), indexed. The walk through the command line is test/e2e/type-design.test.ts.
 */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, said, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { setPhaseField } from './phase.js';
import { newProject } from './project.js';
import { addTask } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';

const world = worlds();
const taskState = (id: string) => `.sow/project/phases/design/tasks/${id}/state.yaml`;
const taskOutput = (id: string) => ({ kind: 'task' as const, id });

/** The advance, refused by the guard out of Active: "message\nhint". */
const blocked = async (w: World) =>
  said(await refused(w, () => advanceProject(w.ctx(), undefined, false), 'TRANSITION_BLOCKED', 3));

/**
 * A design project named `name` with one completed task whose ADR (at `adr`) is written and approved, taken to
 * Completed.
 */
async function approvedAdr(w: World, name: string, adr: string, text: string): Promise<void> {
  const ctx = w.ctx();
  await newProject(ctx, {
    name,
    type: 'design',
    branch: `design/${name}`,
    description: `About ${name}`,
    planning: true,
  });
  await addTask(ctx, { name: `Decide ${name}` });
  w.write(`.sow/project/${adr}`, text);
  await addArtifact(ctx, taskOutput('010'), 'outputs', { type: 'adr', path: adr, approved: 'true', extra: {} });
  await setTaskField(ctx, '010', 'status', 'completed');
  expect((await advanceProject(ctx, undefined, false)).to).toBe('Finalizing');
  expect((await advanceProject(ctx, undefined, false)).to).toBe('Completed');
}

describe('the way out of Active', () => {
  it(
    'no task, open tasks, a document not written, a task without a document, one not approved (by its real index), ' +
      'a phase document not approved: each named with its command',
    async () => {
      const w = await world();
      const ctx = w.ctx();
      await newProject(ctx, {
        name: 'storage',
        type: 'design',
        description: 'Where do we store events?',
        planning: true,
      });
      expect(await blocked(w)).toContain("'sow task add <document>'");
      for (const name of ['Use Postgres', 'Event store design', 'Caching layer']) await addTask(ctx, { name });
      expect(await blocked(w)).toContain('finish or abandon 010, 020, 030');

      // 010: an ADR, approved only once its file exists.
      await setTaskField(ctx, '010', 'status', 'in_progress');
      await addArtifact(ctx, taskOutput('010'), 'outputs', {
        type: 'adr',
        path: 'adrs/0001-use-postgres.md',
        extra: {},
      });
      expect(
        said(
          await refused(
            w,
            () => setArtifact(ctx, taskOutput('010'), 'outputs', 0, 'approved', 'true'),
            'ARTIFACT_FILE_MISSING',
            1,
          ),
        ),
      ).toContain('does not exist');
      expect(w.yaml(taskState('010')).outputs[0].approved).toBe(false);
      w.write('.sow/project/adrs/0001-use-postgres.md', '# Use Postgres\n');
      await setArtifact(ctx, taskOutput('010'), 'outputs', 0, 'approved', 'true');
      await setTaskField(ctx, '010', 'status', 'completed');
      expect(await blocked(w)).toContain('finish or abandon 020, 030');
      w.write('.sow/project/designs/caching.md', '# Caching\n');
      await addArtifact(ctx, taskOutput('030'), 'outputs', {
        type: 'design',
        path: 'designs/caching.md',
        approved: 'true',
        extra: {},
      });
      await abandonTask(ctx, '030');
      expect(await blocked(w)).toMatch(/finish or abandon 020 \(/);

      await setTaskField(ctx, '020', 'status', 'completed');
      expect(await blocked(w)).toMatch(
        new RegExp(
          /\ntask 020 has no document: 'sow task output add --id 020 --type <type> --path <file>' /.source +
            /\(type: design, adr, architecture, diagram or spec\)$/.source,
        ),
      );
      w.write('.sow/project/designs/event-store.md', '# Event store\n');
      w.write('.sow/project/specs/events.md', '# Events\n');
      await addArtifact(ctx, taskOutput('020'), 'outputs', {
        type: 'design',
        path: 'designs/event-store.md',
        approved: 'true',
        extra: {},
      });
      await addArtifact(ctx, taskOutput('020'), 'outputs', { type: 'spec', path: 'specs/events.md', extra: {} });
      const unapproved = await blocked(w);
      expect(unapproved).toContain("approve task 020's spec: 'sow task output set --id 020 --index 1 approved true'");
      expect(unapproved).not.toContain('010');
      await setArtifact(ctx, taskOutput('020'), 'outputs', 1, 'approved', 'true');

      // A document added to the design phase itself must be approved too.
      w.write('.sow/project/diagrams/flow.mmd', 'graph LR; app-->db\n');
      await addArtifact(ctx, { kind: 'phase' }, 'outputs', { type: 'diagram', path: 'diagrams/flow.mmd', extra: {} });
      expect(await blocked(w)).toContain("'sow output set --index 0 approved true'");
      await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
      expect(await advanceProject(ctx, undefined, false)).toMatchObject({
        from: 'Active',
        to: 'Finalizing',
        event: 'documents_approved',
      });
    },
  );

  it('only abandoned tasks: one document must be completed', async () => {
    const w = await world();
    const ctx = w.ctx();
    await newProject(ctx, { name: 'idea', type: 'design', description: 'An idea', planning: true });
    await addTask(ctx, { name: 'Dropped' });
    await abandonTask(ctx, '010');
    expect(await blocked(w)).toContain('complete at least one document');
    expect(w.yaml(PROJECT).statechart.current_state).toBe('Active');
  });
});

describe('where Completed keeps the documents', () => {
  it('ADRs in adrs/, the rest in designs/, an abandoned task’s document not kept; indexed with the tags', async () => {
    const w = await world();
    const ctx = w.ctx();
    await newProject(ctx, {
      name: 'storage',
      type: 'design',
      description: 'Where do we store events?',
      planning: true,
    });
    await setPhaseField(ctx, 'metadata.tags', 'storage,postgres');
    for (const name of ['Use Postgres', 'Event store design', 'Caching layer']) await addTask(ctx, { name });
    const docs: [string, string, string, string][] = [
      ['010', 'adr', 'adrs/0001-use-postgres.md', '# Use Postgres\n'],
      ['020', 'design', 'designs/event-store.md', '# Event store\n'],
      ['020', 'spec', 'specs/events.md', '# Events\n'],
      ['030', 'design', 'designs/caching.md', '# Caching\n'],
    ];
    for (const [id, type, path, text] of docs) {
      w.write(`.sow/project/${path}`, text);
      await addArtifact(ctx, taskOutput(id), 'outputs', { type, path, approved: 'true', extra: {} });
    }
    await setTaskField(ctx, '010', 'status', 'completed');
    await setTaskField(ctx, '020', 'status', 'completed');
    await abandonTask(ctx, '030');
    w.write('.sow/project/diagrams/flow.mmd', 'graph LR; app-->db\n');
    await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
      type: 'diagram',
      path: 'diagrams/flow.mmd',
      approved: 'true',
      extra: {},
    });
    expect((await advanceProject(ctx, undefined, false)).to).toBe('Finalizing');
    w.clock.set('2026-12-02T12:00:00.000Z');
    expect(await advanceProject(ctx, undefined, false)).toMatchObject({
      from: 'Finalizing',
      to: 'Completed',
      event: 'design_complete',
      projectRemoved: true,
    });
    expect(w.exists('.sow/project')).toBe(false);
    expect(w.read('.sow/knowledge/adrs/0001-use-postgres.md')).toBe('# Use Postgres\n');
    expect(w.read('.sow/knowledge/designs/event-store.md')).toBe('# Event store\n');
    expect(w.read('.sow/knowledge/designs/events.md')).toBe('# Events\n');
    expect(w.read('.sow/knowledge/designs/flow.mmd')).toBe('graph LR; app-->db\n');
    expect(w.exists('.sow/knowledge/designs/caching.md')).toBe(false);
    expect(parse(w.read('.sow/knowledge/index.yaml'))).toEqual({
      entries: [
        {
          type: 'design',
          topic: 'Where do we store events?',
          name: 'storage',
          branch: 'design/storage',
          date: '2026-12-02',
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
  });

  it('a second ADR of the same name gets -2 (nothing overwritten); both are indexed', async () => {
    const w = await world();
    await approvedAdr(w, 'first', 'adrs/0001-storage.md', '# First\n');
    await approvedAdr(w, 'second', 'adrs/0001-storage.md', '# Second\n');
    expect(w.read('.sow/knowledge/adrs/0001-storage.md')).toBe('# First\n');
    expect(w.read('.sow/knowledge/adrs/0001-storage-2.md')).toBe('# Second\n');
    expect(parse(w.read('.sow/knowledge/index.yaml')).entries.map((e: any) => [e.name, e.files])).toEqual([
      ['first', ['.sow/knowledge/adrs/0001-storage.md']],
      ['second', ['.sow/knowledge/adrs/0001-storage-2.md']],
    ]);
  });

  it('.sow/config.yaml knowledge.places sends ADRs elsewhere; the other types keep their default', async () => {
    const w = await world();
    const ctx = w.ctx();
    w.write('.sow/config.yaml', 'knowledge:\n  places:\n    adr: decisions\n');
    await newProject(ctx, { name: 'api', type: 'design', description: 'The API', planning: true });
    await addTask(ctx, { name: 'Versioning' });
    await addTask(ctx, { name: 'API spec' });
    w.write('.sow/project/0002-versioning.md', '# Versioning\n');
    w.write('.sow/project/api.md', '# API\n');
    await addArtifact(ctx, taskOutput('010'), 'outputs', {
      type: 'adr',
      path: '0002-versioning.md',
      approved: 'true',
      extra: {},
    });
    await addArtifact(ctx, taskOutput('020'), 'outputs', { type: 'spec', path: 'api.md', approved: 'true', extra: {} });
    await setTaskField(ctx, '010', 'status', 'completed');
    await setTaskField(ctx, '020', 'status', 'completed');
    await advanceProject(ctx, undefined, false);
    await advanceProject(ctx, undefined, false);
    expect(w.read('.sow/knowledge/decisions/0002-versioning.md')).toBe('# Versioning\n');
    expect(w.exists('.sow/knowledge/adrs')).toBe(false);
    expect(w.read('.sow/knowledge/designs/api.md')).toBe('# API\n');
    expect(parse(w.read('.sow/knowledge/index.yaml')).entries[0].files).toEqual([
      '.sow/knowledge/decisions/0002-versioning.md',
      '.sow/knowledge/designs/api.md',
    ]);
  });
});
