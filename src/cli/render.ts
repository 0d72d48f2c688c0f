// How results look on a terminal. Every value from a file goes through shown(), so a line break or an escape sequence
// in it is shown escaped and cannot forge a line.
import { guardSentence, type TransitionOption } from '../domain/lifecycle.js';
import { withdrawalSentence } from '../domain/approvals.js';
import { TASK_STATUSES, type Artifact, type HistoryEntry, type TaskStatus } from '../domain/schemas.js';
import { isFinished } from '../domain/tasks.js';
import type { ValidationReport } from '../app/config.js';
import { taskCounts, type StatusReport } from '../app/status.js';
import { renderLifecycleMap } from './graph.js';
import { paintFor, plain, type Paint } from './colour.js';
import { stdout } from './stdio.js';
import { shown } from '../domain/display.js';
import { unattendedText, type Worker } from '../domain/ownership.js';
import { remoteClaimRows, remoteClaimText } from '../domain/claims.js';
import { toJson } from '../domain/json.js';
import type { BudgetStanding, CostReport, CostRow } from '../domain/usage.js';
import type { LiveWorker } from '../app/detach.js';
import type { WorkerEvent } from '../adapters/agent-outputs.js';
import { renderValue } from './value.js';
import { emitYaml } from '../adapters/yaml/emit.js';
import type { TaskNeeds } from '../app/task.js';
import type { TaskRow } from '../app/ownership.js';

/** `[0] review: review/report.md (assessment: pass, not approved)`, the list format of the specification. */
export function formatArtifact(index: number, a: Artifact): string {
  const notes: string[] = [];
  for (const [key, value] of Object.entries(a.metadata ?? {})) {
    notes.push(`${shown(key)}: ${shown(typeof value === 'object' ? toJson(value) : renderValue(value))}`);
  }
  if (a.approved !== undefined) notes.push(a.approved ? 'approved' : 'not approved');
  return `[${index}] ${shown(a.type)}: ${shown(a.path)}${notes.length ? ` (${notes.join(', ')})` : ''}`;
}

/** `[010] pending      Name  (agent: implementer, parallel, after 005)`: a line on a terminal, for people. */
export function formatTaskLine(t: TaskRow, paint: Paint = plain): string {
  const extras = extrasOf(t, true);
  const line = `[${t.id}] ${paint(t.status, t.status.padEnd(12))} ${shown(t.name)}${extras ? `  (${extras})` : ''}`;
  return `${line}${workerNote(t, paint, '  ')}`;
}

/** `agent: architect, parallel, after 005`: what a task's line says after its name. */
function extrasOf(t: TaskRow, sayRole: boolean, blocked = false): string {
  // Plain concatenation: `task list` prints this 10,000 times in a large project.
  let extras = t.assigned_agent && sayRole ? `agent: ${shown(t.assigned_agent)}` : '';
  if (t.parallel) extras += extras ? ', parallel' : 'parallel';
  if (t.dependencies?.length)
    extras += `${extras ? ', ' : ''}after ${t.dependencies.join(',')}${blocked ? ', blocked' : ''}`;
  return extras;
}

/** What a line says of who holds its task: a claim on the remote, or nobody any more. */
function workerNote(t: TaskRow, paint: Paint, sep: string): string {
  if (t.remote_claim) return `${sep}— ${remoteClaimText(t.remote_claim)}`;
  return t.worker?.state === 'gone' && t.status === 'in_progress'
    ? `${sep}— ${paint('blocked', 'nobody works on it')}`
    : '';
}

type GroupOptions = { paint?: Paint; statusOf?: ReadonlyMap<string, TaskStatus>; finishedAsIds?: boolean };

/** A line per task on a terminal; off one, grouped by status (formatTaskGroups). */
export function formatTaskList(tasks: readonly TaskRow[], opts: GroupOptions = {}): string {
  const paint = opts.paint ?? paintFor();
  if (stdout.isTTY) return tasks.map((t) => formatTaskLine(t, paint)).join('\n');
  return formatTaskGroups(tasks, { ...opts, paint });
}

// A task list off a terminal, where an agent pays for every token: a heading per status, no default role, `blocked` on
// an open dependency; with `finishedAsIds` finished tasks are bare ids.
export function formatTaskGroups(tasks: readonly TaskRow[], opts: GroupOptions = {}): string {
  const paint = opts.paint ?? plain;
  const statusOf = opts.statusOf;
  // Plain loops, one string per line: this runs once per task (10,000 in a large project) in cold code.
  const groups = new Map<TaskStatus, TaskRow[]>(TASK_STATUSES.map((s) => [s, []]));
  for (let i = 0; i < tasks.length; i++) groups.get(tasks[i]!.status)?.push(tasks[i]!);
  let out = '';
  for (const [status, group] of groups) {
    if (group.length === 0) continue;
    if (out) out += '\n';
    out += `${paint(status, status)} (${group.length}):`;
    if (opts.finishedAsIds && isFinished(status)) {
      for (let i = 0; i < group.length; i++) out += ` ${group[i]!.id}`;
      continue;
    }
    const unfinished = !isFinished(status);
    for (let i = 0; i < group.length; i++) {
      const t = group[i]!;
      const blocked =
        statusOf !== undefined && unfinished && t.dependencies !== undefined && anyOpen(t.dependencies, statusOf);
      const extras = extrasOf(t, t.assigned_agent !== DEFAULT_ROLE, blocked);
      out += `\n${t.id} ${shown(t.name)}${extras ? ` (${extras})` : ''}${workerNote(t, paint, ' ')}`;
    }
  }
  return out;
}

/** Whether a dependency is unfinished (one not listed counts as pending). */
function anyOpen(dependencies: readonly string[], statusOf: ReadonlyMap<string, TaskStatus>): boolean {
  for (let i = 0; i < dependencies.length; i++)
    if (!isFinished(statusOf.get(dependencies[i]!) ?? 'pending')) return true;
  return false;
}

/** The role a task is worked by when it names none: a list need not say it on every line. */
const DEFAULT_ROLE = 'implementer';

/** A task's line of only the fields asked for, in their order; a field the task does not have is left out. */
export function formatTaskFields(t: TaskRow, fields: readonly string[], paint: Paint = plain): string {
  const parts: string[] = [];
  for (const f of fields) {
    if (f === 'id') parts.push(`[${t.id}]`);
    else if (f === 'name') parts.push(shown(t.name));
    else if (f === 'status') parts.push(paint(t.status, t.status));
    else if (f === 'assigned_agent' && t.assigned_agent) parts.push(`agent: ${shown(t.assigned_agent)}`);
    else if (f === 'parallel' && t.parallel) parts.push('parallel');
    else if (f === 'dependencies' && t.dependencies?.length) parts.push(`after ${t.dependencies.join(',')}`);
    else if (f === 'worker' && t.worker)
      parts.push(`${t.worker.kind === 'claim' ? 'claimed by' : 'worker'} ${shown(t.worker.by)} (${t.worker.state})`);
    else if (f === 'remote_claim' && t.remote_claim) parts.push(remoteClaimText(t.remote_claim));
  }
  return parts.join(' ');
}

/** `task get`: the fields as YAML without the timestamps (--json has them), then the description as a block. */
export function renderTask(t: Record<string, unknown> & { description?: string }): string {
  const { description, created_at: _c, updated_at: _u, ...fields } = t;
  const yaml = emitYaml(fields).trimEnd();
  return description === undefined ? yaml : `${yaml}\ndescription: |\n${indentBlock(description)}`;
}

const indentBlock = (text: string) =>
  text
    .split('\n')
    .map((l) => (l.trim() === '' ? '' : `  ${l}`))
    .join('\n');

/** `task next --claim`: the id first (what a script reads), then the description, the dependencies, the feedback. */
export function renderClaim(r: { id: string; task: { description?: string }; needs?: TaskNeeds }): string {
  const lines = [r.id];
  if (r.task.description !== undefined) lines.push('', r.task.description);
  for (const d of r.needs?.dependencies ?? []) {
    const outputs = d.outputs?.length ? `its outputs ${d.outputs.map(shown).join(', ')}` : 'no outputs recorded';
    lines.push('', `After ${d.id} ${shown(d.name)} (${d.status}): ${outputs}; its folder ${shown(d.folder)}`);
  }
  for (const f of r.needs?.feedback ?? []) {
    lines.push(
      '',
      `Feedback to address (input ${f.index}, pending): ${shown(f.path)}${f.text !== undefined ? `\n${f.text}` : ''}`,
    );
  }
  return lines.join('\n');
}

/** What to do about each task in progress that nobody works on any more (for stderr, below a list). */
export function unattendedLines(
  tasks: readonly { id: string; status: string; assigned_agent?: string; worker?: Worker }[],
): string[] {
  const lines: string[] = [];
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i]!;
    if (t.status === 'in_progress' && t.worker?.state === 'gone') lines.push(unattendedText(t, t.worker));
  }
  return lines;
}

const MARK: Record<string, string> = { completed: '✓', in_progress: '▶', failed: '✗', pending: '·' };

function nextLines(next: TransitionOption[], paint: Paint): string[] {
  if (next.length === 0) return ['  nothing: the project is complete'];
  return next.map((t) => {
    const guard = t.guardDescription ? ` — ${guardSentence.when(t.guardDescription)}` : '';
    const word = t.blocked ? 'blocked' : 'ready';
    const line = `  ${paint(word, t.blocked ? '✗' : '✓')} ${t.event} → ${t.to}${guard} (${paint(word)})`;
    // An approval that was given and no longer counts says what changed since.
    return [
      line,
      ...(t.withdrawn ?? []).map((w) => `    ${paint('blocked', '!')} ${shown(withdrawalSentence(w))}`),
    ].join('\n');
  });
}

export function renderStatus(r: StatusReport, paint: Paint = plain): string {
  const lines = [
    `Project  ${shown(r.name)} (${shown(r.type)})`,
    `Branch   ${shown(r.branch)}${r.base_branch ? ` (from ${shown(r.base_branch)})` : ''}`,
    `State    ${shown(r.state)}${r.lead ? ` — ${r.lead === 'human' ? 'human-led' : 'AI-led'}` : ''}`,
    ...(r.description ? [`About    ${shown(r.description)}`] : []),
    ...(r.map ? ['', 'Lifecycle', `  ${renderLifecycleMap(r.map, paint)}`] : []),
    '',
    'Phases',
    ...r.phases.map((p) => {
      const status = p.enabled ? p.status : 'disabled';
      const iteration = p.iteration > 1 ? `  iteration ${p.iteration}` : '';
      const mark = paint(status, p.enabled ? (MARK[p.status] ?? '·') : '-');
      const counts = `${p.inputs} in, ${p.outputs} out${iteration}`;
      return `  ${mark} ${p.name.padEnd(15)} ${paint(status, status.padEnd(12))} ${counts}`;
    }),
    '',
    `Tasks    ${taskCounts(r, (status) => paint(status))}`,
    ...(r.tasks.unattended ?? []).map((u) => `  ${paint('blocked', '!')} ${u.advice}`),
    ...remoteClaimLines(r.remote_claims),
    ...(r.usage ? [`Used     ${usageLine(r.usage)} (sow cost)`] : []),
    '',
    'Next (sow advance)',
    ...nextLines(r.next, paint),
  ];
  return lines.join('\n');
}

/** `Claims   2 on origin`, then a line per claim; or that the remote was not reached. */
function remoteClaimLines(c: StatusReport['remote_claims']): string[] {
  if (!c) return [];
  if (!c.reached) return [`Claims   not read: the remote '${shown(c.remote)}' ${shown(c.why)}`];
  return [
    `Claims   ${c.claims.length} on ${shown(c.remote)}`,
    ...c.claims.map((claim) => `  [${claim.task}] ${remoteClaimText(claim)}`),
  ];
}

/** What agent ps says below its table about the claims on the remote. */
export function remoteClaimNotes(c: import('../domain/claims.js').RemoteClaims | undefined, now: string): string[] {
  if (!c?.reached) return [];
  return [...remoteClaimRows(c, now).values()].map((claim) => `[${claim.task}] ${remoteClaimText(claim)}`);
}

export function renderTransitions(state: string, transitions: TransitionOption[], paint: Paint = plain): string {
  const lines = transitions.map((t) => {
    const mark = t.blocked ? paint('blocked') : paint('ready', 'ready  ');
    const when = t.guardDescription ? `  (${guardSentence.when(t.guardDescription)})` : '';
    return `  ${mark}  ${t.event} → ${t.to}${when}${t.automatic ? '' : '  [not automatic]'}`;
  });
  return [`From ${shown(state)}:${lines.length ? '' : ' no transitions'}`, ...lines].join('\n');
}

export function renderHistory(entries: readonly HistoryEntry[]): string {
  return entries
    .map(
      (e) =>
        `${shown(e.at)}  ${shown(e.event).padEnd(20)} ${shown(e.from)} → ${shown(e.to)}  ` +
        `by ${shown(e.by)}${e.session ? ` (session ${shown(e.session)})` : ''}`,
    )
    .join('\n');
}

export function renderValidation(r: ValidationReport): string {
  const mark = { ok: '✓', warning: '⚠', error: '✗' } as const;
  const warnings = r.lines.filter((l) => l.level === 'warning').length;
  const errors = r.lines.filter((l) => l.level === 'error').length;
  const verdict = errors
    ? `Configuration is invalid: ${errors} error(s)${warnings ? `, ${warnings} warning(s)` : ''}.`
    : `Configuration is valid${warnings ? ` with ${warnings} warning(s)` : ''}.`;
  return [
    `Validating configuration at ${r.path}...`,
    '',
    ...r.lines.map((l) => `${mark[l.level]} ${l.level === 'warning' ? 'Warning: ' : ''}${l.text}`),
    '',
    verdict,
  ].join('\n');
}

type WorktreeInfo = import('../app/worktree.js').WorktreeInfo;

/** `sow worktree list`, `sow status --all`: a line per checkout (branch, path, project, state, tasks, sessions). */
export function renderWorktrees(trees: readonly WorktreeInfo[], opts: { projectsOnly?: boolean } = {}): string {
  const rows = trees
    .filter((t) => !opts.projectsOnly || t.project)
    .map((t) => {
      const p = t.project;
      const where = [`${t.main ? '*' : ' '} ${shown(t.branch ?? '(detached)')}`, shown(t.rel)];
      if (!p)
        return [
          ...where,
          t.missing ? 'missing (sow worktree prune)' : t.problem ? `unreadable: ${shown(t.problem)}` : 'no project',
        ];
      const sessions = p.sessions.map((s) => `${shown(s.by)} on ${shown(s.task)}`).join(', ');
      return [
        ...where,
        shown(p.name),
        shown(p.state),
        `tasks ${p.tasks.done}/${p.tasks.total}`,
        ...(sessions ? [sessions] : []),
      ];
    });
  if (rows.length === 0) return 'No projects in the main checkout or its worktrees';
  return columns(rows);
}

/** Rows as columns two spaces apart, each as wide as its widest cell in the rows that go on past it. */
export function columns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) => row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell)).join('  '))
    .join('\n');
}

/** Tokens with thousands separated, a cost in dollars to the cent (to a tenth of a cent below a dollar). */
const tokens = (n?: number) => (n === undefined ? '-' : Math.round(n).toLocaleString('en-US'));
const dollars = (n?: number) => (n === undefined ? '-' : `$${n < 1 ? n.toFixed(3) : n.toFixed(2)}`);

/** `task  runs  input  output  cost` rows and the total: `-` for what no run reported, unreported runs apart. */
export function renderCost(report: CostReport & { budget?: BudgetStanding }): string {
  const budget = report.budget ? `\n${budgetLine(report.budget)}` : '';
  if (report.total.runs === 0)
    return (
      `No worker has run in this project yet (sow agent spawn); what each run uses is counted when it ` +
      `stops.${budget}`
    );
  const row = (key: string, r: Omit<CostRow, 'key'>) => [
    key,
    String(r.runs),
    tokens(r.input_tokens),
    tokens(r.output_tokens),
    dollars(r.cost_usd),
    ...(r.unreported ? [`${r.unreported} unreported`] : []),
  ];
  const table = columns([
    [report.by, 'runs', 'input', 'output', 'cost'],
    ...report.rows.map((r) => row(shown(r.key), r)),
    ['total', ...row('', report.total).slice(1)],
  ]);
  return `${table}${budget}`;
}

/** `Budget   $0.25 of $1.00 used, $0.75 left`; none set, or not in force and why. */
function budgetLine(b: BudgetStanding): string {
  if (!b.in_force) {
    return b.problem === undefined
      ? 'Budget   none set (to set one: budget: {usd: 20} in .sow/config.yaml)'
      : `Budget   not in force: .sow/config.yaml is not valid ` +
          `(${shown(b.problem.replace(/^\.sow\/config\.yaml: /, ''))})`;
  }
  const part = (used: string, limit: string, left: number, leftText: string) =>
    `${used} of ${limit} used, ${left > 0 ? `${leftText} left` : 'none left: no worker starts or resumes'}`;
  const parts = [
    ...(b.usd ? [part(dollars(b.usd.used), dollars(b.usd.limit), b.usd.left, dollars(b.usd.left))] : []),
    ...(b.tokens
      ? [part(`${tokens(b.tokens.used)} tokens`, tokens(b.tokens.limit), b.tokens.left, tokens(b.tokens.left))]
      : []),
  ];
  return `Budget   ${parts.join(' · ')}`;
}

/** `3 runs · 2,050 in / 405 out tokens · $0.054`, leaving out what no run reported. */
function usageLine(u: Omit<CostRow, 'key'>): string {
  const parts = [`${u.runs} ${u.runs === 1 ? 'run' : 'runs'}`];
  if (u.input_tokens !== undefined || u.output_tokens !== undefined)
    parts.push(`${tokens(u.input_tokens)} in / ${tokens(u.output_tokens)} out tokens`);
  if (u.cost_usd !== undefined) parts.push(dollars(u.cost_usd));
  if (u.unreported) parts.push(`${u.unreported} unreported`);
  return parts.join(' · ');
}

/** 45s, 12m, 3h 05m. */
function ago(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  return `${Math.floor(seconds / 3600)}h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/** `agent ps`: a row per live worker; what it did last, cut to fit a line. */
export function renderWorkers(workers: readonly LiveWorker[], now: string, all: boolean): string {
  const gone = workers.filter((w) => w.state === 'gone');
  const rows = workers.filter((w) => w.state === 'running');
  const notes = gone.map((w) => `! ${shown(w.advice ?? '')}`);
  if (rows.length === 0) return [`No worker is running${all ? ' in any checkout' : ''}.`, ...notes].join('\n');
  const t = Date.parse(now);
  // Where each works, when any works in a checkout of its own ('.': the project checkout).
  const own = rows.some((w) => w.worktree !== '.');
  const header = [...(all ? ['checkout'] : []), 'task', 'worker', ...(own ? ['worktree'] : [])];
  header.push('cli', 'pid', 'running', 'last', 'tokens', 'cost', 'doing');
  const body = rows.map((w) => {
    const tokensUsed =
      w.input_tokens !== undefined || w.output_tokens !== undefined
        ? tokens((w.input_tokens ?? 0) + (w.output_tokens ?? 0))
        : '-';
    const last = w.last_activity_at
      ? `${ago(Math.max(0, Math.round((t - Date.parse(w.last_activity_at)) / 1000)))} ago`
      : '-';
    const doing = shown(w.last_activity ?? '').slice(0, 60);
    const row = [...(all ? [shown(w.checkout)] : []), w.task, shown(w.agent_id), ...(own ? [shown(w.worktree)] : [])];
    const running = ago(w.running_seconds);
    return [...row, shown(w.executor), String(w.pid), running, last, tokensUsed, dollars(w.cost_usd), doing];
  });
  return [columns([header, ...body]), ...notes].join('\n');
}

const EVENT_MARK: Readonly<Record<WorkerEvent['kind'], string>> = {
  session: '◦',
  message: '›',
  tool_call: '●',
  finished: '■',
  error: '✗',
  usage: '$',
  text: ' ',
  exit: '■',
  agent_plan: '☐',
};

/** `10:01:02 ● Bash: npm test`: the time (UTC) an event came, its kind as a mark, what it says. */
export function eventLine(e: WorkerEvent): string {
  return `${e.at.slice(11, 19)} ${EVENT_MARK[e.kind] ?? ' '} ${shown(e.text)}`;
}
