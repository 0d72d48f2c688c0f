// `sow breakdown publish`: each completed unit, in dependency order, becomes an issue or a file, recorded on its task
// in a write of its own: a failure midway keeps what was published, and running it again publishes the rest.
import { firstFreePath, PROJECT_DIR } from '../../artifacts.js';
import { notOneOf, SowError } from '../../errors.js';
import { routeTo } from '../../lifecycle.js';
import { contentDigest } from '../../approvals.js';
import type { TaskState } from '../../schemas.js';
import { compareIds, summaryOf } from '../../tasks.js';
import type {
  TypeCommandContext,
  TypeCommandGroup,
  CommandResult,
  TypeOptions,
  TypeSession,
} from '../../type-commands.js';
import type { ProjectType } from '../../project-type.js';
import {
  placeOf,
  publicationOf,
  publishOrder,
  specsOf,
  unitBody,
  unitFileName,
  unitProblems,
  type Publication,
  type PublishedDependency,
} from './units.js';

export const PUBLISHING = 'Publishing';

/** Where a breakdown's units go as files (repository-relative). */
export const unitsDir = (name: string) => `.sow/knowledge/breakdowns/${name}`;

type Target = 'github' | 'files';

type Status = 'published' | 'already_published' | 'would_publish';

/** A unit as `publish` reports it: where it went (or goes), and what it depends on. */
const rowOf = (task: TaskState, dependsOn: string[], status: Status, p?: Publication) => ({
  id: task.id,
  title: task.name,
  depends_on: dependsOn,
  status,
  ...placeOf(p),
});
type UnitRow = ReturnType<typeof rowOf>;

/** The project is not in Publishing: the way there, with what blocks its first step. */
async function notPublishing(s: TypeSession, type: ProjectType): Promise<SowError> {
  const project = await s.project();
  const tasks = await s.tasks();
  const state = project.statechart.current_state;
  const route = routeTo(type, { project, tasks: tasks.map(summaryOf), taskStates: tasks }, (st) => st === PUBLISHING);
  const hint = route
    ? `run 'sow advance' ` +
      `(${route.steps.join(' → ')})${route.first.blocked && route.first.hint ? `; first: ${route.first.hint}` : ''}`
    : `no transition leads from ${state} to ${PUBLISHING}; 'sow project status' shows where the project is`;
  return new SowError(
    'NOT_PUBLISHING',
    'blocked',
    `the units are published in ${PUBLISHING}, and the project is in ${state}`,
    hint,
    { state, publishes_in: PUBLISHING },
  );
}

/** The text of a unit's specs (each approved one, in order), or the error naming the missing file. */
function specText(s: TypeSession, task: TaskState): string {
  return specsOf(task)
    .map(({ index, artifact }) => {
      const text = s.readFile(`${PROJECT_DIR}/${artifact.path}`);
      if (text === undefined)
        throw new SowError(
          'SPEC_MISSING',
          'failed',
          `the spec of unit ${task.id} is missing: '${PROJECT_DIR}/${artifact.path}' does not exist`,
          `write it again and have the human approve it again ('sow task output set --id ${task.id} ` +
            `--index ${index} approved true'), then publish`,
          { task: task.id, path: artifact.path },
        );
      // What is published is what the human approved: a spec changed since its approval is not.
      if (typeof artifact.approved_sha256 === 'string' && contentDigest(text) !== artifact.approved_sha256)
        throw new SowError(
          'SPEC_CHANGED',
          'blocked',
          `the spec of unit ${task.id} ('${PROJECT_DIR}/${artifact.path}') changed since the human approved it`,
          `have the human read it again and approve it again ('sow task output set --id ${task.id} ` +
            `--index ${index} approved true'), then publish`,
          { task: task.id, path: artifact.path },
        );
      return text.replace(/\s+$/, '');
    })
    .join('\n\n');
}

/** The first free file for a unit: its name, or with -2, -3 … when an earlier breakdown took it. */
function freeFile(s: TypeSession, dir: string, name: string): string {
  return firstFreePath(`${dir}/${name}`, (p) => s.readFile(p) !== undefined);
}

/** Publishes one unit and records it, in one write; what it was, if another run got there first. */
async function publishOne(
  ctx: TypeCommandContext,
  id: string,
  dependsOn: readonly string[],
  target: Target,
  dir: string,
) {
  return ctx.update(async (s) => {
    const task = await s.task(id);
    const already = publicationOf(task);
    if (already) return rowOf(task, [...dependsOn], 'already_published', already);
    const deps: PublishedDependency[] = [];
    for (const depId of dependsOn) {
      const dep = await s.task(depId);
      const publication = publicationOf(dep);
      if (!publication)
        throw new SowError(
          'DEPENDENCY_NOT_PUBLISHED',
          'failed',
          `unit ${id} depends on ${depId}, which is not published`,
          "run 'sow breakdown publish' again: it publishes every unit after the units it depends on",
        );
      deps.push({ id: depId, title: dep.name, publication });
    }
    const spec = specText(s, task);
    let publication: Publication;
    if (target === 'github') {
      const issue = await ctx.github.createIssue({ title: task.name, body: unitBody(spec, deps, { issue: true }) });
      publication = { issue: issue.number, url: issue.url, at: s.now };
    } else {
      const file = freeFile(s, dir, unitFileName(task));
      s.writeFile(file, unitBody(spec, deps, { file }));
      publication = { file, at: s.now };
    }
    s.setTask({ ...task, metadata: { ...task.metadata, published: publication }, updated_at: s.now });
    return rowOf(task, [...dependsOn], 'published', publication);
  });
}

function line(row: UnitRow, target: Target): string {
  const where = row.issue !== undefined ? `#${row.issue}${row.url ? ` ${row.url}` : ''}` : (row.file ?? '');
  if (row.status === 'already_published') return `${row.id} already published: ${where}`;
  if (row.status === 'published') return `${row.id} → ${where}`;
  const deps = row.depends_on.length ? ` (depends on ${row.depends_on.join(', ')})` : '';
  return target === 'github' ? `${row.id} → new issue "${row.title}"${deps}` : `${row.id} → ${row.file}${deps}`;
}

/** `err` with more to say after its hint (and more details). */
const alsoSay = (err: SowError, more: string, details: Record<string, unknown> = {}) =>
  new SowError(err.code, err.kind, err.message, `${err.hint ? `${err.hint}; ` : ''}${more}`, {
    ...err.details,
    ...details,
  });

const count = (n: number) => `${n} unit${n === 1 ? '' : 's'}`;

async function publish(type: () => ProjectType, ctx: TypeCommandContext, opts: TypeOptions): Promise<CommandResult> {
  const to = opts['to'];
  if (to !== undefined && to !== 'github' && to !== 'files')
    throw notOneOf('destination', String(to), ['github', 'files'], 'destinations (--to)');
  const dryRun = opts['dryRun'] === true;
  const target: Target = to ?? (ctx.hasGh() ? 'github' : 'files');
  const notes =
    to === undefined && target === 'files'
      ? [
          'gh (the GitHub CLI) is not on PATH, so the units become markdown files; install gh to publish them as ' +
            'issues, or pass --to files to choose files yourself',
        ]
      : [];

  // What there is to publish, in order, read once.
  const plan = await ctx.read(async (s) => {
    const project = await s.project();
    if (project.statechart.current_state !== PUBLISHING) throw await notPublishing(s, type());
    const tasks = await s.tasks();
    const problems = unitProblems(tasks);
    if (problems.length)
      throw new SowError(
        'UNITS_NOT_READY',
        'blocked',
        'the units cannot be published as they are',
        problems.join('; '),
        { problems },
      );
    const order = publishOrder(tasks);
    const ids = new Set(order.map((t) => t.id));
    const dir = unitsDir(project.name);
    // The specs of what is still to publish must be there before anything is published.
    for (const t of order) if (!publicationOf(t)) specText(s, t);
    return {
      dir,
      units: order.map((t) => {
        const dependsOn = t.dependencies.filter((d) => ids.has(d)).sort(compareIds);
        const done = publicationOf(t);
        if (done) return rowOf(t, dependsOn, 'already_published', done);
        return {
          ...rowOf(t, dependsOn, 'would_publish'),
          ...(target === 'files' ? { file: freeFile(s, dir, unitFileName(t)) } : {}),
        };
      }),
    };
  });

  const todo = plan.units.filter((u) => u.status === 'would_publish');
  let repo: string | undefined;
  if (target === 'github' && todo.length > 0) {
    try {
      repo = await ctx.github.repo();
    } catch (err) {
      if (!(err instanceof SowError)) throw err;
      throw alsoSay(err, "or publish the units as files: 'sow breakdown publish --to files'");
    }
  }
  const where = target === 'github' ? `issues of ${repo ?? 'the GitHub repository'}` : `files under ${plan.dir}/`;
  const skipped = plan.units.length - todo.length;
  const also = skipped ? ` (${count(skipped)} already published)` : '';
  const result = (units: UnitRow[], message: string) => ({
    data: {
      target,
      dry_run: dryRun,
      ...(repo ? { repo } : {}),
      ...(target === 'files' ? { directory: plan.dir } : {}),
      units,
    },
    text: units.map((u) => line(u, target)).join('\n'),
    message: [...notes, message].join('\n'),
  });

  if (dryRun || todo.length === 0)
    return result(
      plan.units,
      todo.length === 0
        ? `nothing to publish: every completed unit is already published; run 'sow advance' to complete the breakdown`
        : `dry run: would publish ${count(todo.length)} as ${where}${also}; nothing was changed`,
    );

  const rows: UnitRow[] = [];
  for (const unit of plan.units) {
    if (unit.status === 'already_published') {
      rows.push(unit);
      continue;
    }
    try {
      rows.push(await publishOne(ctx, unit.id, unit.depends_on, target, plan.dir));
    } catch (err) {
      const published = rows.filter((r) => r.status === 'published');
      if (!(err instanceof SowError) || published.length === 0) throw err;
      const so = published.map((r) => `${r.id} (${r.issue !== undefined ? `#${r.issue}` : r.file})`).join(', ');
      throw alsoSay(
        err,
        `published and recorded before it failed: ${so}; run 'sow breakdown publish' again to publish the rest`,
        { published: published.map((r) => r.id), failed_on: unit.id },
      );
    }
  }
  const fresh = rows.filter((r) => r.status === 'published').length;
  const earlier = rows.length - fresh ? ` (${count(rows.length - fresh)} already published)` : '';
  return result(
    rows,
    `published ${count(fresh)} as ${where}${earlier}; every completed unit is published: run 'sow advance' to ` +
      `complete the breakdown`,
  );
}

/** The breakdown's command group; `type` gives the type itself (for the way to Publishing). */
export function publishCommands(name: string, type: () => ProjectType): TypeCommandGroup {
  return {
    name,
    description: 'Publish the work units of a breakdown',
    commands: [
      {
        name: 'publish',
        writes: true,
        description:
          'Publish each completed unit, in dependency order: a GitHub issue (through gh), or a markdown file under ' +
          '.sow/knowledge/breakdowns/<name>/; units already published are skipped',
        options: [
          { flags: '--dry-run', description: 'show what would be published, and change nothing' },
          {
            flags: '--to <target>',
            description: 'github (the default when gh is on PATH) or files (the default without gh)',
          },
        ],
        help: [
          'Examples:',
          '  sow breakdown publish --dry-run     # what would become an issue, in which order',
          '  sow breakdown publish               # issues through gh, each recorded on its task',
          '  sow breakdown publish --to files    # .sow/knowledge/breakdowns/<name>/<id>-<title>.md',
        ].join('\n'),
        run: (ctx, _args, opts) => publish(type, ctx, opts),
      },
    ],
  };
}
