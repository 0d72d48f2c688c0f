// An approval holds for what the person saw and nothing else: a document's records its content hash, the tasks' a
// digest per task. Both are judged when read, never written back, so an edit by hand withdraws an approval too.
import { createHash } from 'node:crypto';
import { PROJECT_DIR, repositoryPathOf } from './artifacts.js';
import { SowError } from './errors.js';
import type { ProjectView, ReadDoc } from './project-view.js';
import type { Artifact, Phase, ProjectState, TaskState, TaskSummary } from './schemas.js';
import { compareIds } from './tasks.js';
import { isRecord } from './json.js';

export const contentDigest = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The artifact as approved (`approved: true`, stamped with its file's content) or not (no stamp). */
export function stampApproval(artifact: Artifact, text: string | undefined): Artifact {
  const { approved_sha256: _old, ...rest } = artifact;
  return artifact.approved === true && text !== undefined ? { ...rest, approved_sha256: contentDigest(text) } : rest;
}

/** An approval that no longer counts, and how to give it again. */
export interface Withdrawal {
  /** What was approved: `planning/tasks.md`, `the tasks`. */
  readonly what: string;
  /** What changed since: `its content changed`, `task 030 added`, `010's description changed`. */
  readonly changed: readonly string[];
  /** The command that gives it again, once the person has seen it. */
  readonly again: string;
}

/** One sentence: "the approval of planning/tasks.md was withdrawn: its content changed since it was given; …". */
export function withdrawalSentence(w: Withdrawal): string {
  return (
    `the approval of ${w.what} was withdrawn: ${w.changed.join('; ')} since it was given; once the human has ` +
    `seen ${w.what === 'the tasks' ? 'them' : 'it'}, approve again with '${w.again}'`
  );
}

// A view in which a stamped approval counts only while its file has the content it was approved with, checked lazily
// when a guard reads `approved`; `watch` tells which withdrawn approvals a guard read.
export class JudgedView {
  readonly view: ProjectView;
  private reading?: Map<Artifact, Withdrawal>;

  constructor(view: ProjectView) {
    this.view = judge(view, (a, w) => this.reading?.set(a, w));
  }

  /** Runs `fn` on the judged view: its result, and the withdrawn approvals it read. */
  watch<T>(fn: (view: ProjectView) => T): { value: T; withdrawn: Withdrawal[] } {
    const outer = this.reading;
    const reading = new Map<Artifact, Withdrawal>();
    this.reading = reading;
    try {
      return { value: fn(this.view), withdrawn: [...reading.values()] };
    } finally {
      this.reading = outer;
      for (const [a, w] of reading) outer?.set(a, w);
    }
  }
}

const stamped = (a: Artifact) => a.approved === true && typeof a.approved_sha256 === 'string';

function judge(view: ProjectView, read: (a: Artifact, w: Withdrawal) => void): ProjectView {
  const readDoc = view.readDoc;
  // Without a way to read the documents nothing can be judged (a view made for a route hint).
  if (!readDoc) return view;
  const anyPhase = Object.values(view.project.phases).some((p) => p.inputs.some(stamped) || p.outputs.some(stamped));
  const anyTask = view.taskStates?.some((t) => t.inputs.some(stamped) || t.outputs.some(stamped)) ?? false;
  if (!anyPhase && !anyTask) return view;
  const lazy = (a: Artifact, again: string): Artifact => {
    if (!stamped(a)) return a;
    let verdict: Withdrawal | null | undefined;
    const copy = { ...a };
    Object.defineProperty(copy, 'approved', {
      enumerable: true,
      get: () => {
        if (verdict === undefined) {
          const text = readDoc(repositoryPathOf(a.path, 'project'));
          verdict =
            text !== undefined && contentDigest(text) === a.approved_sha256
              ? null
              : { what: a.path, changed: [text === undefined ? 'the file is gone' : 'its content changed'], again };
        }
        if (verdict) read(copy, verdict);
        return verdict === null;
      },
    });
    return copy;
  };
  const list = (items: Artifact[], command: (i: number) => string): Artifact[] =>
    items.some(stamped) ? items.map((a, i) => lazy(a, command(i))) : items;
  let project: ProjectState = view.project;
  if (anyPhase) {
    const phases: Record<string, Phase> = {};
    for (const [name, p] of Object.entries(view.project.phases)) {
      phases[name] = {
        ...p,
        inputs: list(p.inputs, (i) => `sow input set --phase ${name} --index ${i} approved true`),
        outputs: list(p.outputs, (i) => `sow output set --phase ${name} --index ${i} approved true`),
      } as Phase;
    }
    project = { ...view.project, phases };
  }
  const taskStates: TaskState[] | undefined = anyTask
    ? view.taskStates!.map((t) => ({
        ...t,
        inputs: list(t.inputs, (i) => `sow task input set --id ${t.id} --index ${i} approved true`),
        outputs: list(t.outputs, (i) => `sow task output set --id ${t.id} --index ${i} approved true`),
      }))
    : (view.taskStates as TaskState[] | undefined);
  return { ...view, project, ...(taskStates ? { taskStates } : {}) };
}

// The tasks' approval

/** The tasks' approval of a project type: `sow phase set <key> true`, given only in `state`. */
export interface TaskApprovalDef {
  /** The phase whose metadata holds it (standard: implementation). */
  readonly phase: string;
  /** The flag the person sets (tasks_approved). */
  readonly key: string;
  /** The record sow keeps beside it: what the approval covered, per task. */
  readonly record: string;
  /** The one state that asks for it: the approval is given there, after the tasks are added and before work starts. */
  readonly state: string;
}

export const taskDescriptionFile = (phase: string, id: string) =>
  `${PROJECT_DIR}/phases/${phase}/tasks/${id}/description.md`;

const short = (text: string) => contentDigest(text).slice(0, 12);
/** A description file that did not exist when the tasks were approved. */
const NO_FILE = '-';

/** What an approval covers of one task: "<name> <description> <dependencies>", a short digest each. */
function taskDigest(task: Pick<TaskSummary, 'name' | 'dependencies'>, description: string | undefined): string {
  const file = description === undefined ? NO_FILE : short(description);
  return `${short(task.name)} ${file} ${short(task.dependencies.join(','))}`;
}

/** The record an approval of these tasks keeps (task id → digest), read with `readDoc`. */
export function taskApprovalRecord(tasks: readonly TaskSummary[], phase: string, readDoc: ReadDoc) {
  return Object.fromEntries(tasks.map((t) => [t.id, taskDigest(t, readDoc(taskDescriptionFile(phase, t.id)))]));
}

/** What changed since the tasks were approved ("task 030 added"); a flag without a record covers nothing. */
export function taskApprovalChanges(def: TaskApprovalDef, view: ProjectView): string[] {
  const metadata = view.project.phases[def.phase]?.metadata ?? {};
  const raw = Object.hasOwn(metadata, def.record) ? metadata[def.record] : undefined;
  if (!isRecord(raw)) return [`no record of which tasks it covered`];
  const record = new Map(Object.entries(raw));
  const changes: string[] = [];
  const readDoc = view.readDoc ?? (() => undefined);
  for (const t of view.tasks) {
    const before = record.get(t.id);
    if (typeof before !== 'string') {
      changes.push(`task ${t.id} added`);
      continue;
    }
    const was = before.split(' ');
    const now = taskDigest(t, readDoc(taskDescriptionFile(def.phase, t.id))).split(' ');
    for (const [i, part] of ['name', 'description', 'dependencies'].entries())
      if (was[i] !== now[i]) changes.push(`${t.id}'s ${part} changed`);
  }
  const ids = new Set(view.tasks.map((t) => t.id));
  for (const id of [...record.keys()].filter((id) => !ids.has(id)).sort(compareIds)) changes.push(`task ${id} removed`);
  return changes;
}

/** The tasks' approval as a withdrawal, when it was given and no longer covers the tasks. */
export function taskApprovalWithdrawal(def: TaskApprovalDef, view: ProjectView): Withdrawal | undefined {
  if (view.project.phases[def.phase]?.metadata[def.key] !== true) return undefined;
  const changed = taskApprovalChanges(def, view);
  if (changed.length === 0) return undefined;
  // At most eight changes are named; the rest are counted.
  const named = changed.length <= 8 ? changed : [...changed.slice(0, 8), `${changed.length - 8} more`];
  return { what: 'the tasks', changed: named, again: `sow phase set ${def.key} true` };
}

/** `phase set tasks_approved` outside the state that asks for it (exit 3, as a guard). */
export function approvalNotHere(def: TaskApprovalDef, project: ProjectState): SowError {
  const state = project.statechart.current_state;
  const passed = (project.statechart.history ?? []).some((h) => h.from === def.state);
  return new SowError(
    'APPROVAL_NOT_HERE',
    'blocked',
    `${def.key} is given in ${def.state}, for the tasks as they are then, and the project is in ${state}`,
    passed
      ? `the tasks were approved when the project left ${def.state}; add further work with 'sow task add' once the ` +
          `human agreed to it`
      : `first finish ${state} ('sow project continue' says what it needs) and advance to ${def.state}; add the ` +
          `tasks there, show them to the human, then approve them`,
    { field: def.key, state, approved_in: def.state },
  );
}

/** `phase set tasks_approved true` with no task to approve (exit 3, as the guard would be). */
export function nothingToApprove(def: TaskApprovalDef): SowError {
  return new SowError(
    'NO_TASKS_TO_APPROVE',
    'blocked',
    `there are no tasks to approve: ${def.key} is given for the tasks as they are, and none exists yet`,
    "add them first ('sow task add \"<name>\" --agent implementer'), show them to the human ('sow task list'), " +
      'then approve them',
    { field: def.key },
  );
}
