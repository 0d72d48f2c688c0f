/** `sow project status` and `sow project continue`: what the project is, and what to do next. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listTransitions, type TransitionOption } from '../domain/transitions.js';
import { tasksOf } from '../domain/project-types/phase-ops.js';
import type { ProjectType } from '../domain/project-types/types.js';
import type { ProjectState } from '../domain/schemas.js';
import { Reader } from './workspace.js';

export interface StatusReport {
  name: string;
  type: string;
  description: string;
  branch: string;
  state: string;
  purpose: string;
  lead: 'human' | 'ai' | null;
  phases: { name: string; status: string; enabled: boolean; iteration: number; inputs: number; outputs: number }[];
  tasks: { total: number; by_status: Record<string, number> };
  next: TransitionOption[];
}

export function statusOf(type: ProjectType, project: ProjectState): StatusReport {
  const state = project.statechart.current_state;
  const def = type.states[state];
  const byStatus: Record<string, number> = {};
  for (const t of tasksOf(project)) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
  return {
    name: project.name,
    type: project.type,
    description: project.description,
    branch: project.branch,
    state,
    purpose: def?.purpose ?? '',
    lead: def?.lead ?? null,
    phases: type.phases.map((p) => {
      const phase = project.phases[p.name]!;
      return { name: p.name, status: phase.status, enabled: phase.enabled, iteration: phase.iteration, inputs: phase.inputs.length, outputs: phase.outputs.length };
    }),
    tasks: { total: tasksOf(project).length, by_status: byStatus },
    next: listTransitions(type, project),
  };
}

export async function projectStatus(cwd: string): Promise<StatusReport> {
  const reader = await Reader.open(cwd);
  return statusOf(reader.type, reader.project);
}

const MARK: Record<string, string> = { completed: '✓', in_progress: '▶', failed: '✗', pending: '·' };

function taskCounts(report: StatusReport): string {
  if (report.tasks.total === 0) return 'none yet';
  const parts = Object.entries(report.tasks.by_status).map(([s, n]) => `${n} ${s}`);
  return `${report.tasks.total} (${parts.join(', ')})`;
}

function nextLines(next: TransitionOption[]): string[] {
  if (next.length === 0) return ['  nothing: the project is complete'];
  return next.map((t) => {
    const guard = t.guardDescription ? ` — needs ${t.guardDescription}` : '';
    return `  ${t.blocked ? '✗' : '✓'} ${t.event} → ${t.to}${guard}${t.blocked ? ' (blocked)' : ' (ready)'}`;
  });
}

export function renderStatus(r: StatusReport): string {
  const lines = [
    `Project  ${r.name} (${r.type})`,
    `Branch   ${r.branch}`,
    `State    ${r.state}${r.lead ? ` — ${r.lead === 'human' ? 'human-led' : 'AI-led'}` : ''}`,
    ...(r.description ? [`About    ${r.description}`] : []),
    '',
    'Phases',
    ...r.phases.map((p) => {
      const status = p.enabled ? p.status : 'disabled';
      const iteration = p.iteration > 1 ? `  iteration ${p.iteration}` : '';
      return `  ${p.enabled ? (MARK[p.status] ?? '·') : '-'} ${p.name.padEnd(15)} ${status.padEnd(12)} ${p.inputs} in, ${p.outputs} out${iteration}`;
    }),
    '',
    `Tasks    ${taskCounts(r)}`,
    '',
    'Next (sow advance)',
    ...nextLines(r.next),
  ];
  return lines.join('\n');
}

/** Finds the shipped templates/ folder from wherever this module was bundled or run. */
export function templatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'templates', 'prompts'))) return join(dir, 'templates');
    dir = dirname(dir);
  }
  throw new Error('the templates/ folder is missing from the sow installation');
}

/** `{{name}}` placeholders; an unknown placeholder is a template bug and fails loudly. */
export function renderTemplate(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (_m, key: string) => {
    const value = vars[key];
    if (value === undefined) throw new Error(`template placeholder {{${key}}} has no value`);
    return value;
  });
}

export function promptTemplatePath(type: string, state: string): string {
  return join(templatesDir(), 'prompts', type, `${state}.md`);
}

export function renderContinue(type: ProjectType, project: ProjectState): string {
  const r = statusOf(type, project);
  const body = readFileSync(promptTemplatePath(type.name, r.state), 'utf8');
  const automatic = r.next.filter((t) => t.automatic);
  const header = [
    `# sow: ${r.name} — ${r.state}`,
    '',
    `- Project: ${r.name} (${r.type}) on branch \`${r.branch}\``,
    `- Description: ${r.description || '(none)'}`,
    `- State: ${r.state}`,
    `- Phases: ${r.phases.map((p) => `${p.name} ${p.enabled ? p.status : 'disabled'}`).join(', ')}`,
    `- Tasks: ${taskCounts(r)}`,
    '',
    '## What this state is for',
    '',
    r.purpose,
    '',
    r.lead === 'human'
      ? '**Human-led (ADR-008).** The human decides scope and approves; you ask questions, take notes and draft. Do not approve anything on the human\'s behalf.'
      : '**AI-led (ADR-008).** Work autonomously; ask the human only for decisions that change scope or need approval.',
    '',
  ];
  const advance = [
    '',
    '## Advancing',
    '',
    ...(automatic.length === 0
      ? ['There is nothing to advance to.']
      : [
          "When the work of this state is done, run `sow advance`. It checks:",
          '',
          ...automatic.map((t) => `- \`${t.event}\` → ${t.to}: ${t.guardDescription ?? 'no condition'}${t.blocked ? ` — **not yet met**: ${t.hint ?? ''}` : ' — met'}`),
        ]),
    '',
  ];
  const vars = {
    name: r.name,
    description: r.description,
    branch: r.branch,
    state: r.state,
    task_count: String(r.tasks.total),
    iteration: String(project.phases['implementation']?.iteration ?? 1),
  };
  return [...header, renderTemplate(body, vars).trim(), ...advance].join('\n');
}

export async function continueProject(cwd: string): Promise<{ state: string; prompt: string }> {
  const reader = await Reader.open(cwd);
  return { state: reader.project.statechart.current_state, prompt: renderContinue(reader.type, reader.project) };
}
