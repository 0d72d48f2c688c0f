/**
 * `sow prompt` and the resources of `sow mcp` in-process: the prompts filled with what the project
 * knows (or the branch, or nothing), and `sow://project/<path>` naming a file under .sow/project/
 * and nothing else.
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, said, TASK_LIST, toExecuting, worlds } from '../../test/inproc.js';
import { newProject } from './project.js';
import { listPrompts, PromptNotFoundError, readPrompt } from './prompts.js';
import { listResources, readResource, RESOURCE_SCHEME } from './resources.js';

const world = worlds({ executing: (w) => toExecuting(w, ['A', 'B', 'C']) });

describe('prompts', () => {
  it('lists the guidance of every role and the orchestrator prompts of every state', () => {
    const names = listPrompts();
    for (const name of [
      'guidance/implementer/base',
      'guidance/implementer/tdd',
      'guidance/implementer/feature',
      'guidance/implementer/bug',
      'guidance/implementer/refactor',
      'guidance/reviewer/base',
      'guidance/planner/base',
      'guidance/researcher/base',
      'guidance/architect/base',
      'guidance/decomposer/base',
      'orchestrator/standard/PlanningActive',
      'orchestrator/standard/ReviewActive',
      'orchestrator/standard/FinalizeDelete',
      'orchestrator/NoProject',
    ])
      expect(names, name).toContain(name);
  });

  it('in a project: its variables filled from it (the tasks and the round of the work)', async () => {
    const w = await world('executing');
    const r = await readPrompt(w.ctx(), 'orchestrator/standard/ImplementationExecuting');
    expect(r).toMatchObject({
      path: 'orchestrator/standard/ImplementationExecuting',
      unfilled: [],
      filled_from: 'project',
    });
    expect(r.text).toContain('Carry out the 3 task(s) of implementation iteration 1 until');
    // A .md suffix and leading slashes name the same prompt.
    expect((await readPrompt(w.ctx(), '/orchestrator/standard/ImplementationExecuting.md')).text).toBe(r.text);
  });

  it(
    'without a project the NoProject prompt is filled from the branch; another prompt stays as it is, saying ' +
      'what was left',
    async () => {
      const w = await world('init');
      const none = await readPrompt(w.ctx(), 'orchestrator/NoProject');
      expect(none).toMatchObject({ filled_from: 'branch', unfilled: [] });
      expect(none.text).toMatch(/^# sow: no project on `main`/);
      const left = await readPrompt(w.ctx(), 'orchestrator/standard/ImplementationExecuting');
      expect(left).toMatchObject({ filled_from: null, unfilled: ['task_count', 'iteration'] });
      expect(left.text).toContain('{{task_count}}');
      const bare = await world('bare');
      expect((await readPrompt(bare.ctx(), 'orchestrator/NoProject')).filled_from).toBeNull();
      // A prompt without variables is the template as it is, anywhere.
      const tdd = await readPrompt(bare.ctx(), 'guidance/implementer/tdd');
      expect(tdd).toMatchObject({ unfilled: [], filled_from: null });
      expect(tdd.text.length).toBeGreaterThan(200);
      expect(tdd.text).not.toContain('{{');
    },
  );

  it('an unknown prompt is a usage error (exit 2) with did-you-mean and the list command', async () => {
    const w = await world('init');
    const e = await refused(w, () => readPrompt(w.ctx(), 'guidance/implementer/tddd'), 'PROMPT_NOT_FOUND', 2);
    expect(said(e)).toBe(
      "no prompt 'guidance/implementer/tddd'; did you mean 'guidance/implementer/tdd'?\nrun 'sow prompt --list' " +
        'to see them',
    );
    expect(new PromptNotFoundError('x').hint).toBe(e.hint);
  });

  it('a project file sow cannot read is not a prompt without variables: its error', async () => {
    const w = await world('executing');
    w.write(PROJECT, 'name: [\n');
    await refused(
      w,
      () => readPrompt(w.ctx(), 'orchestrator/standard/ImplementationExecuting'),
      'STATE_FILE_INVALID',
      4,
    );
  });
});

describe('resources', () => {
  it('lists every file under .sow/project/ with its type, and reads one', async () => {
    const w = await world('executing');
    const { resources, truncated } = await listResources(w.ctx());
    expect(truncated).toBe(false);
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain(`${RESOURCE_SCHEME}state.yaml`);
    expect(uris).toContain(`${RESOURCE_SCHEME}planning/tasks.md`);
    expect(uris).toContain(`${RESOURCE_SCHEME}phases/implementation/tasks/010/state.yaml`);
    expect(resources.find((r) => r.uri === `${RESOURCE_SCHEME}state.yaml`)).toEqual({
      uri: `${RESOURCE_SCHEME}state.yaml`,
      name: '.sow/project/state.yaml',
      mimeType: 'application/yaml',
    });
    expect(resources.find((r) => r.uri.endsWith('tasks.md'))?.mimeType).toBe('text/markdown');
    expect(await readResource(w.ctx(), `${RESOURCE_SCHEME}state.yaml`)).toEqual({
      uri: `${RESOURCE_SCHEME}state.yaml`,
      mimeType: 'application/yaml',
      text: w.read(PROJECT),
    });
    // Percent-encoding is decoded.
    w.write('.sow/project/notes/a b.txt', 'hello\n');
    expect(await readResource(w.ctx(), `${RESOURCE_SCHEME}notes/a%20b.txt`)).toMatchObject({
      mimeType: 'text/plain',
      text: 'hello\n',
    });
  });

  it('without a project there are none', async () => {
    const w = await world('init');
    expect(await listResources(w.ctx())).toEqual({ resources: [], truncated: false });
  });

  it(
    'refuses another scheme, bad percent-encoding, `..`, a path not in its plain form, a missing file, a folder ' +
      'and a link',
    async () => {
      const w = await world('executing');
      symlinkSync(join(w.dir, 'outside.txt'), join(w.dir, '.sow/project/link.txt'));
      w.write('outside.txt', 'secret\n');
      const refuse = async (uri: string, why: string) =>
        expect((await refused(w, () => readResource(w.ctx(), uri), 'RESOURCE_NOT_FOUND', 1)).message).toBe(
          `no resource '${uri}': ${why}`,
        );
      await refuse('file:///etc/passwd', "sow's resources start with sow://project/");
      await refuse(`${RESOURCE_SCHEME}%E0%A4%A`, 'its path is not valid percent-encoding');
      const plain = 'a resource is a file under .sow/project/, named by its plain relative path';
      await refuse(`${RESOURCE_SCHEME}../config.yaml`, plain);
      await refuse(`${RESOURCE_SCHEME}..%2F..%2Fetc%2Fpasswd`, plain);
      await refuse(`${RESOURCE_SCHEME}planning//tasks.md`, plain);
      await refuse(`${RESOURCE_SCHEME}/etc/passwd`, plain);
      await refuse(`${RESOURCE_SCHEME}planning/nothing.md`, 'there is no such file');
      const notAFile = 'it is a link or a folder, not a file (sow never follows a link in the repository)';
      await refuse(`${RESOURCE_SCHEME}planning`, notAFile);
      await refuse(`${RESOURCE_SCHEME}link.txt`, notAFile);
      expect(w.read(TASK_LIST)).toBe('# Tasks\n');
    },
  );

  it('outside a workspace: NOT_INITIALIZED, whatever the URI', async () => {
    const w = await world('bare');
    await refused(w, () => listResources(w.ctx()), 'NOT_INITIALIZED', 1);
    await refused(w, () => readResource(w.ctx(), `${RESOURCE_SCHEME}state.yaml`), 'NOT_INITIALIZED', 1);
  });

  it('a project started by the use case is readable at once', async () => {
    const w = await world('init');
    await newProject(w.ctx(), { name: 'demo', description: 'd', planning: true });
    expect((await readResource(w.ctx(), `${RESOURCE_SCHEME}state.yaml`)).text).toContain('name: demo');
  });
});
