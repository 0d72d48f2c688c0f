/**
 * `sow project continue` on the command line: the plain prompt is the --json one, a project that
 * skips planning, no project and no workspace; and a check that every `sow …` command the
 * templates tell an agent to run is one the CLI accepts. The prompt of every state of the
 * standard lifecycle, walked to the end, is in-process: src/app/continue.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, ok, type Repo } from './harness.js';
import { checkCommand, taskStatuses, type CommandProblem } from './cli-surface.js';

const TEMPLATES = fileURLToPath(new URL('../../templates/prompts/standard/', import.meta.url));
const ALL_TEMPLATES = fileURLToPath(new URL('../../templates/', import.meta.url));

/** Every markdown template sow ships, relative to templates/. */
function allTemplates(): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(ALL_TEMPLATES, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${name.name}` : name.name;
      if (name.isDirectory()) walk(child);
      else if (name.name.endsWith('.md')) out.push(child);
    }
  };
  walk('');
  return out.sort();
}
const STATES = [
  'PlanningActive',
  'ImplementationPlanning',
  'ImplementationExecuting',
  'ReviewActive',
  'FinalizeDocumentation',
  'FinalizeChecks',
  'FinalizeDelete',
] as const;

const NAME = 'add-auth';
const DESCRIPTION = 'Add JWT authentication to the API';

let repos: Repo[] = [];
afterEach(() => {
  for (const r of repos) r.cleanup();
  repos = [];
});
function repo(opts?: Parameters<typeof makeRepo>[0]): Repo {
  const r = makeRepo(opts);
  repos.push(r);
  return r;
}

/** Runs `sow project continue --full` (plain and --json) and checks what every state's prompt must hold. */
function expectPrompt(r: Repo, state: string, mustContain: string[]): string {
  const plain = r.sow(['project', 'continue', '--full']);
  expect(plain.code, plain.stderr).toBe(0);
  const prompt = plain.stdout;
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

  const json = r.sow(['project', 'continue', '--full', '--json']);
  expect(json.code, json.stderr).toBe(0);
  expect(json.json?.ok).toBe(true);
  expect(json.json?.data?.state).toBe(state);
  expect(json.json?.data?.prompt.trim()).toBe(prompt.trim());
  return prompt;
}

/** Runs `sow project continue` (the state card, plain and --json): the state, and the one next command. */
function expectCard(r: Repo, state: string, next: string): string {
  const plain = r.sow(['project', 'continue']);
  expect(plain.code, plain.stderr).toBe(0);
  const card = plain.stdout;
  expect(card.split('\n')[0]).toBe(`# sow: ${NAME} — ${state}`);
  expect(card).toContain(DESCRIPTION);
  expect(card).toMatch(new RegExp(`^Next: .*${next.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
  expect(card).toContain('`sow project continue --full`');
  // A card, not a manual: none of the prompt's sections.
  expect(card).not.toContain('## What to do');
  const json = r.sow(['project', 'continue', '--json']);
  expect(json.json?.data).toEqual({ state, prompt: card });
  return card;
}

describe('sow project continue', () => {
  it('starts at ImplementationPlanning when the project skips planning', () => {
    const r = repo();
    ok(r, ['project', 'new', NAME, '--description', DESCRIPTION, '--no-planning']);
    expectPrompt(r, 'ImplementationPlanning', [
      'sow task add "<name>" --agent implementer',
      'sow phase set tasks_approved true',
      'skipped planning',
    ]);
    expectCard(r, 'ImplementationPlanning', `sow task add "<name>" --agent implementer`);
  });

  it('the state card names the state and the one next command, as the work goes on', () => {
    const r = repo();
    ok(r, ['project', 'new', NAME, '--description', DESCRIPTION]);
    expectCard(r, 'PlanningActive', 'sow output add --type task_list --path planning/tasks.md');
    r.write('.sow/project/planning/tasks.md', '# Tasks\n');
    ok(r, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
    ok(r, ['output', 'set', '--index', '0', 'approved', 'true']);
    expectCard(r, 'PlanningActive', 'sow advance` (→ ImplementationPlanning)');
    ok(r, ['advance']);
    ok(r, ['task', 'add', 'Sign tokens', '--agent', 'implementer']);
    ok(r, ['task', 'add', 'Verify tokens', '--agent', 'implementer']);
    ok(r, ['phase', 'set', 'tasks_approved', 'true']);
    ok(r, ['advance']);
    // Tasks to do: a worker takes the next one; what advancing needs is said too.
    const card = expectCard(r, 'ImplementationExecuting', 'sow agent spawn implementer --next --detach');
    expect(card).toContain('Tasks: 2 (2 pending)');
    expect(card).toMatch(/^Advance: `sow advance` once every task is completed or abandoned/m);
    // A task waiting for review comes first.
    ok(r, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    ok(r, ['task', 'set', '--id', '010', 'status', 'needs_review']);
    expectCard(r, 'ImplementationExecuting', 'check the work of 010 (needs_review)');
    ok(r, ['task', 'set', '--id', '010', 'status', 'completed']);
    ok(r, ['task', 'abandon', '--id', '020']);
    expectCard(r, 'ImplementationExecuting', 'sow advance` (→ ReviewActive)');
    ok(r, ['advance']);
    expectCard(r, 'ReviewActive', 'sow output add --type review --path review/report.md --assessment pass|fail');
  });

  it('with no project, prints how to start one (exit 0), so an orchestrator always has a next step', () => {
    const r = repo();
    const json = r.sow(['project', 'continue', '--json']);
    expect(json.code).toBe(0);
    expect(json.json?.ok).toBe(true);
    expect(json.json?.data?.state).toBe('NoProject');

    const plain = r.sow(['project', 'continue', '--full']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('no sow project on this branch');
    expect(plain.stdout).toContain('`main`');
    expect(plain.stdout).toContain('sow project new <name> --description');
    expect(plain.stdout).toContain('sow project continue');
    expect(plain.stdout.trim()).toBe(r.sow(['project', 'continue', '--full', '--json']).json?.data?.prompt.trim());
    // The card: the branch, and the command that starts a project.
    const card = r.sow(['project', 'continue']);
    expect(card.stdout).toBe(json.json?.data?.prompt);
    expect(card.stdout.split('\n')[0]).toBe('# sow: no project on `main`');
    expect(card.stdout).toMatch(/^Next: `sow project new <name> --description "<what the work is for>"`/m);
    // Before `sow init` it is still an error that says what to run.
    const bare = makeRepo({ init: false });
    repos.push(bare);
    const early = bare.sow(['project', 'continue']);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain("run 'sow init'");
  });
});

// ---------------------------------------------------------------------------------------------
// Every `sow …` command in the templates must be one the CLI knows, with flags it accepts.

/** Values for the template placeholders (the set renderContinue provides). */
const TEMPLATE_VARS: Record<string, string> = {
  name: NAME,
  description: DESCRIPTION,
  branch: 'feat/add-auth',
  state: 'ReviewActive',
  task_count: '3',
  iteration: '2',
  base_branch: 'main',
  review_iteration: '2',
  // Agent spawn prompts (templates/agents/*.md).
  agent_id: 'implementer-1',
  assignment: 'Task 010: parser (iteration 1).',
  guidance: 'guidance/implementer/base',
  // The role prompt of `sow install` (templates/integrations/agent.md).
  role: 'implementer',
  first: 'sow prompt guidance/implementer/base',
  // The no-project prompt: the other branches that have a project.
  elsewhere: "'git branch' lists the branches",
};

function renderVars(template: string): string {
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (_m, key: string) => {
    const value = TEMPLATE_VARS[key];
    if (value === undefined) throw new Error(`unknown template placeholder {{${key}}}`);
    return value;
  });
}

/** The `sow …` commands of a template: lines of ```bash blocks, and `inline code` elsewhere. */
function extractCommands(markdown: string): string[] {
  const commands: string[] = [];
  const prose: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const trimmed = line.trim();
    const opening = /^```(\w*)/.exec(trimmed);
    if (opening) {
      fence = fence === null ? (opening[1] ?? '') : null;
      continue;
    }
    if (fence === null) prose.push(line);
    else if (fence === 'bash' && /^sow\s/.test(trimmed)) commands.push(trimmed);
  }
  for (const m of prose.join('\n').matchAll(/`(sow\s[^`]+)`/g)) commands.push(m[1]!.trim());
  return commands;
}

describe('the commands in the standard prompt templates', () => {
  it('has a template for every state that has a prompt', () => {
    for (const state of STATES) expect(existsSync(join(TEMPLATES, `${state}.md`)), `${state}.md`).toBe(true);
  });

  it('finds commands in a fenced bash block and in inline code, and rejects unknown ones', () => {
    const sample = 'Run `sow task list` now.\n\n```bash\nsow advance\necho no\n```\n\n```text\nsow ignored\n```\n';
    expect(extractCommands(sample).sort()).toEqual(['sow advance', 'sow task list']);
    const statuses = taskStatuses();
    // The checker must be able to fail: unknown commands, unknown flags and bad statuses.
    expect(checkCommand('t', 'sow agent fly <id>', statuses)).toHaveLength(1);
    expect(checkCommand('t', 'sow logs "x"', statuses)).toHaveLength(1);
    expect(checkCommand('t', 'sow prompt guidance/nobody/base', statuses)).toHaveLength(1);
    expect(checkCommand('t', 'sow task', statuses)).toHaveLength(1);
    expect(checkCommand('t', 'sow task add "<name>" --agentt implementer', statuses)).toHaveLength(1);
    expect(checkCommand('t', 'sow phase set tasks_approved true --assessment pass', statuses)).toHaveLength(1);
    expect(checkCommand('t', 'sow task set --id <id> status done', statuses)).toHaveLength(1);
    expect(
      checkCommand('t', 'sow task add "<name>" --agent implementer --depends-on 010,020 --parallel', statuses),
    ).toEqual([]);
  });

  it('uses only sow commands and flags the CLI accepts, in every template sow ships', () => {
    const statuses = taskStatuses();
    const files = allTemplates();
    expect(files.filter((f) => f.startsWith('prompts/')).length).toBeGreaterThanOrEqual(STATES.length);
    expect(files.filter((f) => f.startsWith('agents/')).length).toBeGreaterThanOrEqual(7);
    expect(files.filter((f) => f.startsWith('guidance/')).length).toBeGreaterThanOrEqual(10);
    const problems: CommandProblem[] = [];
    const seen = new Set<string>();
    for (const file of files) {
      const commands = extractCommands(renderVars(readFileSync(join(ALL_TEMPLATES, file), 'utf8')));
      if (!file.startsWith('guidance/implementer/') || file.endsWith('base.md'))
        expect(commands.length, `${file} names no sow command`).toBeGreaterThan(0);
      for (const command of commands) {
        seen.add(command);
        problems.push(...checkCommand(file, command, statuses));
      }
    }
    expect(problems).toEqual([]);
    // The extraction found the commands the lifecycle depends on.
    for (const needed of [
      'sow output add --type task_list --path planning/tasks.md',
      'sow phase set tasks_approved true',
      'sow phase set project_deleted true',
      'sow advance',
    ]) {
      expect(seen.has(needed), needed).toBe(true);
    }
  });
});
