/**
 * `project continue` in-process: the orchestrator prompt of every state of the standard lifecycle
 * (templates/prompts/standard/<State>.md behind sow's own header and "Advancing" section), walked
 * through a failed review and a passed one to the end. The command line around it (the plain
 * prompt is the --json one, exit codes, before `sow init`) is test/e2e/continue.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact, listArtifacts, setArtifact } from './artifacts.js';
import { setPhaseField } from './phase.js';
import { newProject } from './project.js';
import { continueProject } from './status.js';
import { addTask } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';

const NAME = 'add-auth';
const DESCRIPTION = 'Add JWT authentication to the API';

const world = worlds();

/** The prompt of the current state, checked for what every state's prompt must hold. */
async function expectPrompt(w: World, state: string, mustContain: string[]): Promise<string> {
  const r = await continueProject(w.ctx());
  expect(r.state).toBe(state);
  const prompt = r.prompt;
  expect(prompt).toContain(`# sow: ${NAME} — ${state}`);
  expect(prompt).toContain(`- State: ${state}`);
  expect(prompt).toContain(NAME);
  expect(prompt).toContain(DESCRIPTION);
  // sow's header, then the template's body, then sow's guard section: each exactly once.
  for (const heading of ['## What this state is for', '## What to do', '## Advancing']) {
    expect(prompt.split(heading).length - 1, `${state}: '${heading}'`).toBe(1);
  }
  expect(prompt.indexOf('## What this state is for')).toBeLessThan(prompt.indexOf('## What to do'));
  expect(prompt.indexOf('## What to do')).toBeLessThan(prompt.indexOf('## Advancing'));
  expect(prompt).not.toMatch(/\{\{|\}\}/);
  for (const text of mustContain) expect(prompt, `${state} prompt`).toContain(text);
  return prompt;
}

describe('project continue', () => {
  it('prints the prompt of every state, through a failed review and a passed one, to the end', async () => {
    const w = await world('init');
    const ctx = w.ctx();
    const phase = { kind: 'phase' } as const;
    const task = (id: string) => ({ kind: 'task', id }) as const;
    const advance = () => advanceProject(ctx, undefined, false);
    await newProject(ctx, { name: NAME, description: DESCRIPTION, planning: true });

    await expectPrompt(w, 'PlanningActive', [
      'sow input add --type context',
      'sow output add --type task_list --path planning/tasks.md',
      'sow output set --index <n> approved true',
      'Human-led',
    ]);
    await addArtifact(ctx, phase, 'inputs', { type: 'context', path: 'context/auth.md', extra: {} });
    await addArtifact(ctx, phase, 'outputs', { type: 'task_list', path: 'planning/tasks.md', extra: {} });
    w.write('.sow/project/planning/tasks.md', '# Tasks\n');
    await setArtifact(ctx, phase, 'outputs', 0, 'approved', 'true');
    await advance();

    // Implementation planning is AI-led; the human approves the tasks.
    await expectPrompt(w, 'ImplementationPlanning', [
      'sow task add "<name>" --agent implementer',
      'sow phase set tasks_approved true',
      'iteration 1 ',
      'AI-led',
      'the human approves the list',
    ]);
    await addTask(ctx, { name: 'Sign tokens', agent: 'implementer', description: 'HS256' });
    await addTask(ctx, { name: 'Verify tokens', agent: 'implementer', parallel: true });
    await addTask(ctx, { name: 'Middleware', agent: 'implementer', dependsOn: '010,020' });
    await setPhaseField(ctx, 'tasks_approved', 'true');
    await advance();

    await expectPrompt(w, 'ImplementationExecuting', [
      'sow task set --id <id> status in_progress',
      'sow task output add --id <id> --type modified --path <file>',
      'sow task abandon --id <id>',
      'AI-led',
      // Workers: sow's own (spawn, resume) and the host's sub-agents.
      'sow agent spawn implementer <id>',
      'sow agent resume <id> "<what to change or answer>"',
      'sub-agent',
    ]);
    await setTaskField(ctx, '010', 'status', 'in_progress');
    await addArtifact(ctx, task('010'), 'inputs', {
      type: 'feedback',
      path: 'phases/implementation/tasks/010/feedback/001.md',
      extra: {},
    });
    await setArtifact(ctx, task('010'), 'inputs', 0, 'status', 'addressed');
    await addArtifact(ctx, task('010'), 'outputs', { type: 'modified', path: 'src/jwt.ts', extra: {} });
    await setTaskField(ctx, '010', 'status', 'needs_review');
    await setTaskField(ctx, '010', 'status', 'completed');
    await setTaskField(ctx, '020', 'status', 'completed');
    await abandonTask(ctx, '030');
    await advance();

    // The review names the branch to diff against: the one the project started from.
    await expectPrompt(w, 'ReviewActive', [
      'sow output add --type review --path review/report-1.md --assessment pass',
      'sow output set --index <n> approved true',
      'ImplementationPlanning',
      'git diff main...feat/add-auth',
      'sow agent spawn reviewer',
    ]);
    await addArtifact(ctx, phase, 'outputs', {
      type: 'review',
      path: 'review/report-1.md',
      extra: { assessment: 'fail' },
    });
    w.write('.sow/project/review/report-1.md', '# Review 1\n');
    await setArtifact(ctx, phase, 'outputs', 0, 'approved', 'true');
    await advance();

    // The fail loop: back to planning the rework, in the implementation phase's second iteration.
    const rework = await expectPrompt(w, 'ImplementationPlanning', [
      'sow phase set tasks_approved true',
      'iteration 2 ',
      'sow input list',
    ]);
    expect(rework).toContain('3 task(s) exist');
    expect((await listArtifacts(ctx, phase, 'inputs')).artifacts.map((a) => a.path).join('\n')).toContain(
      'review/report-1.md',
    );
    await addTask(ctx, { name: 'Fix review findings', agent: 'implementer' });
    await setPhaseField(ctx, 'tasks_approved', 'true');
    await advance();

    await expectPrompt(w, 'ImplementationExecuting', ['implementation iteration 2', 'sow task next']);
    await setTaskField(ctx, '040', 'status', 'completed');
    await advance();

    await expectPrompt(w, 'ReviewActive', ['sow output add --type review --path review/report-2.md']);
    await addArtifact(ctx, phase, 'outputs', {
      type: 'review',
      path: 'review/report-2.md',
      extra: { assessment: 'pass' },
    });
    w.write('.sow/project/review/report-2.md', '# Review 2\n');
    await setArtifact(ctx, phase, 'outputs', 1, 'approved', 'true');
    await advance();

    await expectPrompt(w, 'FinalizeDocumentation', [
      'sow output add --type documentation',
      '.sow/knowledge/',
      'git diff --stat main...feat/add-auth',
    ]);
    // An absolute path inside the repository is stored relative to .sow/project/.
    await addArtifact(ctx, phase, 'outputs', { type: 'documentation', path: join(w.dir, 'README.md'), extra: {} });
    expect(w.yaml(PROJECT).phases.finalize.outputs[0].path).toBe('../../README.md');
    await advance();

    await expectPrompt(w, 'FinalizeChecks', ['full test suite', 'linters', 'on `main`, the branch']);
    await advance();

    const last = await expectPrompt(w, 'FinalizeDelete', [
      'sow phase set project_deleted true',
      'removes `.sow/project/`',
    ]);
    expect(last).toContain('project_deleted');
    await setPhaseField(ctx, 'project_deleted', 'true');
    await advance();

    expect(w.exists('.sow/project')).toBe(false);
    // With no project, continue still gives the next step: how to start one.
    const after = await continueProject(ctx);
    expect(after.state).toBe('NoProject');
    expect(after.prompt).toContain('sow project new <name> --description');
  });
});
