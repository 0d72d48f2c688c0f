// The work units of a breakdown, purely: readiness, publishing order, where each went, and its published text.
import * as posix from 'node:path/posix';
import type { Artifact, TaskState } from '../../schemas.js';
import { compareIds, findCycle, isFinished } from '../../tasks.js';
import { taskGraph, topologicalOrder } from '../../graph.js';
import { isRecord } from '../../json.js';

export const SPEC = 'work_unit_spec';

/** Where a unit was published: a GitHub issue, or a markdown file (repository-relative). */
export type Publication =
  | { readonly issue: number; readonly url?: string; readonly at?: string }
  | { readonly file: string; readonly at?: string };

/** The publication recorded on a task (`metadata.published`), if there is a readable one. */
export function publicationOf(task: TaskState): Publication | undefined {
  const p = task.metadata['published'];
  if (!isRecord(p)) return undefined;
  const at = typeof p['at'] === 'string' ? { at: p['at'] } : {};
  if (typeof p['issue'] === 'number' && Number.isInteger(p['issue']) && p['issue'] > 0)
    return { issue: p['issue'], ...(typeof p['url'] === 'string' ? { url: p['url'] } : {}), ...at };
  if (typeof p['file'] === 'string' && p['file'] !== '') return { file: p['file'], ...at };
  return undefined;
}

/** Where a unit went, as its row and its index entry say it: issue and url, or file. */
export const placeOf = (p: Publication | undefined) => ({
  ...(p && 'issue' in p ? { issue: p.issue, ...(p.url ? { url: p.url } : {}) } : {}),
  ...(p && 'file' in p ? { file: p.file } : {}),
});

/** A unit's spec outputs, with their indexes among the task's outputs. */
export function specsOf(task: TaskState): { index: number; artifact: Artifact }[] {
  return task.outputs.flatMap((artifact, index) => (artifact.type === SPEC ? [{ index, artifact }] : []));
}

const done = (t: TaskState) => t.status === 'completed';
export const list = (ids: readonly string[]) =>
  ids.length <= 2 ? ids.join(' and ') : `${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;

/** Why the units cannot be published yet, one sentence each with the command that fixes it; empty when they can. */
export function unitProblems(tasks: readonly TaskState[]): string[] {
  if (tasks.length === 0) return ['add the work units, a task each: \'sow task add "<unit>" --depends-on <ids>\''];
  const problems: string[] = [];
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const open = tasks.filter((t) => !isFinished(t.status)).map((t) => t.id);
  if (open.length)
    problems.push(
      `finish or abandon ${list(open)} ('sow task set --id <id> status completed', or 'sow task abandon --id <id>')`,
    );
  const completed = tasks.filter(done);
  if (completed.length === 0 && open.length === 0)
    problems.push('complete at least one unit: a breakdown whose units were all abandoned has nothing to publish');
  for (const t of completed) {
    const specs = specsOf(t);
    if (specs.length === 0) {
      problems.push(
        `unit ${t.id} has no spec: write it and add it: 'sow task output add --id ${t.id} --type ${SPEC} --path ` +
          `units/${t.id}.md'`,
      );
      continue;
    }
    for (const s of specs.filter((s) => s.artifact.approved !== true)) {
      problems.push(
        `the spec of unit ${t.id} (${s.artifact.path}) is not approved: the human approves it with 'sow task ` +
          `output set --id ${t.id} --index ${s.index} approved true'`,
      );
    }
  }
  for (const t of tasks) {
    for (const dep of t.dependencies) {
      const d = byId.get(dep);
      if (!d)
        problems.push(
          `unit ${t.id} depends on ${dep}, which does not exist: drop it ('sow task set --id ${t.id} dependencies ` +
            `<the other ids>')`,
        );
      else if (done(t) && d.status === 'abandoned') {
        problems.push(
          `unit ${t.id} is completed but depends on ${dep}, which was abandoned: drop the dependency ('sow task ` +
            `set --id ${t.id} dependencies <the other ids>'), or reopen ${dep} ('sow task set --id ${dep} ` +
            `status pending')`,
        );
      }
    }
  }
  const cycle = findCycle(new Map(tasks.map((t) => [t.id, t.dependencies])));
  if (cycle)
    problems.push(
      `the dependencies form a cycle: ${cycle.join(' → ')}; drop one of them ('sow task set --id <id> dependencies ` +
        `<the other ids>')`,
    );
  return problems;
}

/** The completed units in publishing order: each after the units it depends on, ties by id. */
export function publishOrder(tasks: readonly TaskState[]): TaskState[] {
  const units = new Map(tasks.filter(done).map((t) => [t.id, t]));
  return topologicalOrder(taskGraph([...units.values()])).map(({ id }) => units.get(id)!);
}

/** `010-verify-tokens.md`: the id, then the title in lower-case words joined by dashes. */
export function unitFileName(task: Pick<TaskState, 'id' | 'name'>): string {
  const slug = task.name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug ? `${task.id}-${slug}.md` : `${task.id}.md`;
}

/** What a dependency is to a published unit: its id, title and where it was published. */
export interface PublishedDependency {
  readonly id: string;
  readonly title: string;
  readonly publication: Publication;
}

/** One line per dependency: `Depends on #12` in an issue, a link to the other unit in a file. */
export function dependencyLine(dep: PublishedDependency, target: { issue: true } | { file: string }): string {
  const p = dep.publication;
  if ('issue' in target)
    return 'issue' in p ? `Depends on #${p.issue}` : `Depends on ${dep.id} (${dep.title}): ${p.file}`;
  if ('issue' in p) return `Depends on [#${p.issue} ${dep.title}](${p.url ?? `#${p.issue}`})`;
  return `Depends on [${dep.id} ${dep.title}](${posix.relative(posix.dirname(target.file), p.file)})`;
}

/** The text a unit is published with: its spec, then a line per dependency. */
export function unitBody(
  spec: string,
  deps: readonly PublishedDependency[],
  target: { issue: true } | { file: string },
) {
  const text = spec.replace(/\s+$/, '');
  const lines = [...deps].sort((a, b) => compareIds(a.id, b.id)).map((d) => dependencyLine(d, target));
  return `${text}${lines.length ? `${text ? '\n\n' : ''}${lines.join('\n')}` : ''}\n`;
}
