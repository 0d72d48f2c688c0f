// Work phases (R1…Rn) in the execute phase's metadata, changed only by `sow iter`: pending → in_progress → confirming
// → verifying → done (issues found: back to in_progress), plus blocked (with a note) and timeout (maximum used up).
import { PROJECT_DIR } from '../../artifacts.js';
import { errorClass, given } from '../../errors.js';
import { defined, isRecord } from '../../json.js';
import { relativeInside } from '../../paths.js';
import { nearMiss } from '../../suggest.js';
import { findCycle } from '../../tasks.js';
import { phaseOf, withPhase } from '../../phases.js';
import { latestApprovedReview } from '../reviews.js';
import type { ProjectState } from '../../schemas.js';

export const WORK_STATUSES = [
  'pending',
  'in_progress',
  'confirming',
  'verifying',
  'done',
  'blocked',
  'timeout',
] as const;
export type WorkStatus = (typeof WORK_STATUSES)[number];

export interface WorkPhase {
  id: string;
  title: string;
  criteria: string;
  /** The phase's deliverable, relative to .sow/project/ (outputs/x.md). */
  output: string;
  max: number;
  after: string[];
  status: WorkStatus;
  /** Work iterations used (they count against max). */
  iterations: number;
  /** Confirmation iterations run (the N+1 checks; they do not count against max). */
  confirmations: number;
  verification?: 'passed' | 'failed';
  /** Why it is blocked, or what its verification found. */
  note?: string;
  /** The status a blocked phase returns to. */
  blocked_from?: WorkStatus;
  started_at?: string;
  completed_at?: string;
}

export const WORK_PHASES_KEY = 'work_phases';
export const EXECUTE = 'execute';
export const WORK_PHASE_ID = /^[A-Z][A-Za-z0-9_-]{0,15}$/;

/** `named`: who names it, when not the command line ("the review names"). */
export class WorkPhaseNotFoundError extends errorClass(
  'WORK_PHASE_NOT_FOUND',
  'failed',
  (id: string, known: readonly string[], named?: string) => {
    const near = nearMiss(id, known);
    return [
      (named ? `${named} '${id}', which is not a work phase` : `no work phase '${id}'`) +
        (near ? `; did you mean '${near}'?` : ''),
      known.length
        ? `the work phases are ${known.join(', ')} ('sow iter status')`
        : "define one with 'sow iter phase add R1 --title … --criteria … --output outputs/r1.md --max 5'",
      { id, known: [...known], ...(near ? { suggestion: near } : {}) },
    ];
  },
) {}

/** A move the phase's lifecycle does not allow now (exit 3), with the way forward. */
export class WorkPhaseBlockedError extends errorClass('WORK_PHASE_BLOCKED', 'blocked', given) {}

const STATUSES: ReadonlySet<string> = new Set(WORK_STATUSES);

const isStatus = (v: unknown) => typeof v === 'string' && STATUSES.has(v);
const isText = (v: unknown) => typeof v === 'string';
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const statusRule = `must be one of ${WORK_STATUSES.join(', ')}`;
/** What each stored field must be, in the order they are checked. */
const FIELD_RULES: [string, (v: unknown) => boolean, string][] = [
  ['title', isText, 'must be text'],
  ['criteria', isText, 'must be text'],
  ['output', isText, 'must be text'],
  [
    'output',
    (v) => v === '' || relativeInside(PROJECT_DIR, v as string) !== undefined,
    `must be a path inside ${PROJECT_DIR}/, relative to it (outputs/r1.md), without '..' leading out`,
  ],
  ['max', isCount, 'must be a whole number ≥ 0'],
  ['iterations', isCount, 'must be a whole number ≥ 0'],
  ['confirmations', isCount, 'must be a whole number ≥ 0'],
  ['after', (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'), 'must be a list of work phase ids'],
  ['status', isStatus, statusRule],
  ['blocked_from', (v) => v === undefined || isStatus(v), statusRule],
  ['verification', (v) => v === undefined || v === 'passed' || v === 'failed', 'must be passed or failed'],
];

/** What is wrong with the stored work phases (a hand edit), as a path and a message; undefined when fine. */
export function workPhasesProblem(raw: unknown): { path: string; message: string } | undefined {
  const base = `phases.${EXECUTE}.metadata.${WORK_PHASES_KEY}`;
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) return { path: base, message: 'must be a list of work phases' };
  const ids = new Set<string>();
  for (const [i, p] of raw.entries()) {
    const at = `${base}.${i}`;
    if (!isRecord(p))
      return { path: at, message: 'must be a map (id, title, criteria, output, max, after, status, …)' };
    if (typeof p['id'] !== 'string' || !WORK_PHASE_ID.test(p['id']))
      return { path: `${at}.id`, message: 'must be an id such as R1' };
    if (ids.has(p['id'])) return { path: `${at}.id`, message: `'${p['id']}' is used twice` };
    ids.add(p['id']);
    for (const [key, ok, message] of FIELD_RULES) if (!ok(p[key])) return { path: `${at}.${key}`, message };
  }
  return undefined;
}

export function workPhasesOf(project: ProjectState): WorkPhase[] {
  const raw = phaseOf(project, EXECUTE).metadata[WORK_PHASES_KEY];
  return Array.isArray(raw) ? (raw as WorkPhase[]).map((p) => ({ ...p, after: [...p.after] })) : [];
}

/** A phase in progress that has used its maximum is timeout. */
export const settle = (p: WorkPhase): WorkPhase =>
  p.status === 'in_progress' && p.iterations >= p.max ? { ...p, status: 'timeout' } : p;

/** Stores the list (settled, without empty fields). */
export function withWorkPhases(project: ProjectState, list: readonly WorkPhase[]): ProjectState {
  const execute = phaseOf(project, EXECUTE);
  const stored = list.map((p) => defined({ ...settle(p) }));
  return withPhase(project, EXECUTE, { ...execute, metadata: { ...execute.metadata, [WORK_PHASES_KEY]: stored } });
}

const idsOf = (list: readonly WorkPhase[]) => list.map((p) => p.id);

export function findPhase(list: readonly WorkPhase[], id: string): WorkPhase {
  const p = list.find((x) => x.id === id);
  if (!p) throw new WorkPhaseNotFoundError(id, idsOf(list));
  return p;
}

export const replace = (list: readonly WorkPhase[], next: WorkPhase) => list.map((p) => (p.id === next.id ? next : p));

/** The work phases that come after each other in a cycle, if some do. */
export const cycleOf = (list: readonly WorkPhase[]) =>
  findCycle(new Map(list.filter((p) => p.after.length).map((p) => [p.id, p.after])));

/** The dependency problem of the list: a phase it comes after that does not exist, or a cycle (named). */
export function dependencyProblem(list: readonly WorkPhase[]): string | undefined {
  const ids = new Set(idsOf(list));
  for (const p of list) {
    const unknown = p.after.find((a) => !ids.has(a));
    if (unknown) return `${p.id} comes after ${unknown}, which is not a work phase`;
  }
  const cycle = cycleOf(list);
  return cycle ? `the work phases depend on each other in a cycle: ${cycle.join(' → ')}` : undefined;
}

/** What the plan still lacks before it can be approved, per phase; empty when it is complete. */
export function planGaps(list: readonly WorkPhase[]): string[] {
  const gaps: string[] = [];
  if (list.length === 0)
    gaps.push("no work phases yet: 'sow iter phase add R1 --title … --criteria … --output outputs/r1.md --max 5'");
  for (const p of list) {
    if (!p.criteria.trim()) gaps.push(`${p.id} has no criteria ('sow iter phase set ${p.id} criteria "<measurable>"')`);
    if (!p.output.trim()) gaps.push(`${p.id} has no output ('sow iter phase set ${p.id} output outputs/<file>.md')`);
    if (p.max < 1) gaps.push(`${p.id} has no maximum of iterations ('sow iter phase set ${p.id} max 5')`);
  }
  const deps = dependencyProblem(list);
  if (deps) gaps.push(deps);
  return gaps;
}

const ACTIVE: ReadonlySet<WorkStatus> = new Set(['in_progress', 'confirming', 'verifying']);

/** The phases a phase waits for: those it comes after that are not done. */
export const waitingFor = (list: readonly WorkPhase[], p: WorkPhase) =>
  p.after.filter((a) => list.find((x) => x.id === a)?.status !== 'done');

/** The phase to work on now: the first active one, else the first pending one whose phases before it are done. */
export function currentPhase(list: readonly WorkPhase[]): WorkPhase | undefined {
  return (
    list.find((p) => ACTIVE.has(p.status)) ??
    list.find((p) => p.status === 'pending' && waitingFor(list, p).length === 0)
  );
}

/** Where the phase stands in its work iterations (confirmations take no number), the same in every view. */
export function nextStep(p: WorkPhase): string {
  if (p.status === 'confirming') return `its confirmation after iteration ${p.iterations}`;
  if (p.status === 'verifying') return `its verification after iteration ${p.iterations}`;
  return `iteration ${p.iterations + 1}`;
}

/** Sends the phases a failed review names back to work. */
export function reopenPhases(list: readonly WorkPhase[], ids: readonly string[]): WorkPhase[] {
  return list.map((p) => {
    if (!ids.includes(p.id)) return p;
    // Its counts go on (the next entry's number follows the last one's): only its status changes.
    const q: WorkPhase = { ...p, status: 'in_progress', verification: 'failed', note: 'reopened by a failed review' };
    delete q.completed_at;
    return settle(q);
  });
}

/** The work phases the deciding review of the verify round names that exist. */
export function reopenedBy(project: ProjectState): string[] {
  const ids = new Set(workPhasesOf(project).map((p) => p.id));
  return phasesNamed(latestApprovedReview(project, 'verify')?.metadata?.['phases']).filter((id) => ids.has(id));
}

/** A reopened phase that has no iteration left (timeout at once), in a sentence with the way out. */
export const outOfIterations = (p: WorkPhase) =>
  `${p.id} was reopened by the failed review, but it has used its ${p.iterations} of ${p.max} iterations: raise ` +
  `its maximum before work on it can go on ('sow iter extend ${p.id} --max ${p.iterations + 3}')`;

/** Refuses `phases` metadata (of a review) that names an id that is not a work phase. */
export function checkPhasesNamed(list: readonly WorkPhase[], raw: unknown): void {
  const known = idsOf(list);
  const unknown = phasesNamed(raw).find((id) => !known.includes(id));
  if (unknown !== undefined) throw new WorkPhaseNotFoundError(unknown, known, 'the review names');
}

/** The ids a review's `phases` metadata names (R2,R3, a list, or one value). */
function phasesNamed(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.map((s) => String(s).trim()).filter(Boolean);
  return raw === undefined || raw === null
    ? []
    : String(raw)
        .split(/[\s,]+/)
        .filter(Boolean);
}

/** plan.md (spec 002's template), rendered from the work phases. */
export function renderPlan(project: ProjectState, list: readonly WorkPhase[], domain: string | undefined): string {
  const phases = list.map((p) =>
    [
      `- [${p.status === 'done' ? 'x' : ' '}] **${p.id}**: ${p.title}`,
      `  - Criteria: ${p.criteria || '(not set)'}`,
      `  - Output: \`${p.output || '(not set)'}\``,
      `  - Max iterations: ${p.max}`,
      ...(p.after.length ? [`  - After: ${p.after.join(', ')}`] : []),
    ].join('\n'),
  );
  return [
    `# ${project.description || project.name} - Phases`,
    '',
    // When the plan was begun: the plan phase's start, stable however often plan.md is redrawn.
    `**Created:** ${project.phases['plan']?.started_at ?? project.created_at}`,
    `**Domain:** ${domain ?? '(not set)'}`,
    `**Total:** ${list.length} phases`,
    '',
    '<!-- Written by sow from the work phases (sow iter phase add|set); edits here are overwritten. -->',
    '',
    '## Phases',
    '',
    phases.join('\n\n') || '(none yet)',
    '',
    '## Dependencies',
    '',
    dependencyLines(list),
    '',
  ].join('\n');
}

function dependencyLines(list: readonly WorkPhase[]): string {
  if (list.length === 0) return '(none)';
  const chain = list.every((p, i) =>
    i === 0 ? p.after.length === 0 : p.after.length === 1 && p.after[0] === list[i - 1]!.id,
  );
  if (chain) return `${idsOf(list).join(' → ')}${list.length > 1 ? ' (sequential)' : ''}`;
  return list
    .map((p) => (p.after.length ? `${p.after.join(', ')} → ${p.id}` : `${p.id} (can start at once)`))
    .join('\n');
}

/** A progress.md entry: its heading, then a `**Field:** value` line each (what parseProgress reads back). */
export const progressEntry = (phase: string, label: string, at: string, fields: Record<string, string>) =>
  [`## ${phase} - ${label} - ${at}`, ...Object.entries(fields).map(([k, v]) => `**${k}:** ${v}`)].join('\n');

/** The entries of progress.md, in order; `label`: the iteration (Iteration 2), or the kind (Verification, Blocked). */
export function parseProgress(text: string) {
  const out: { phase: string; label: string; at: string; fields: Record<string, string> }[] = [];
  for (const line of text.split('\n')) {
    const head = /^## (\S+) - (.+?) - (\S+)\s*$/.exec(line);
    const field = head ? null : /^\*\*([^*]+):\*\* ?(.*)$/.exec(line);
    if (head) out.push({ phase: head[1]!, label: head[2]!, at: head[3]!, fields: {} });
    else if (field && out.length) out.at(-1)!.fields[field[1]!] = field[2]!;
  }
  return out;
}

/** The latest entry a worker of the phase left: an iteration or a confirmation. */
export const lastIteration = (entries: ReturnType<typeof parseProgress>, id: string) =>
  [...entries].reverse().find((e) => e.phase === id && /^(Iteration|Confirmation) \d+$/.test(e.label));

export const wordCount = (text: string) => (text.match(/\S+/g) ?? []).length;
export const CONTEXT_WORDS = 200;
