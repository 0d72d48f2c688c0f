/** `sow project status` and `sow project continue`: what the project is, and what to do next. */
import { costOf } from '../domain/usage.js';
import type { AppContext } from './context.js';
import { remoteClaimRows, type RemoteClaimRow } from '../domain/claims.js';
import { remoteClaimsForReads } from './remote-claims.js';
import { shown } from '../domain/display.js';
import { NoProjectError } from '../domain/errors.js';
import { withdrawalSentence } from '../domain/approvals.js';
import { listTransitions, stateProblem, stateProblemHint, stateProblemText } from '../domain/lifecycle.js';
import { lifecycleMap, type LifecycleMap } from '../domain/graph.js';
import { taskPhase } from '../domain/phases.js';
import type { ProjectType, ProjectView } from '../domain/project-type.js';
import { readTemplate, renderTemplate } from '../adapters/templates.js';
import { head } from '../adapters/repo.js';
import { withCheckStatuses } from './checks.js';
import { workerNow } from './ownership.js';
import { unattendedText, type Worker } from '../domain/ownership.js';
import { openRoot, Reader } from './workspace.js';
import { refsForPrompt, refsOrNone, withRefs } from './refs-index.js';

/** The report; a terminal's status view adds the lifecycle map, a claims remote what it holds (or why not read). */
export type StatusReport = ReturnType<typeof statusOf> & {
  map?: LifecycleMap;
  remote_claims?:
    { remote: string; reached: true; claims: RemoteClaimRow[] } | { remote: string; reached: false; why: string };
};

export function statusOf(type: ProjectType, view: ProjectView, now: string) {
  const { project, tasks } = view;
  const state = project.statechart.current_state;
  const def = type.states[state];
  const byStatus: Record<string, number> = {};
  const unattended: { id: string; name: string; worker: Extract<Worker, { state: 'gone' }>; advice: string }[] = [];
  for (const t of tasks) {
    byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
    // Only tasks in progress can have been left: their owners are judged, the rest are not looked at.
    if (t.status !== 'in_progress') continue;
    const worker = workerNow(t, now);
    if (worker?.state === 'gone')
      unattended.push({ id: t.id, name: t.name, worker, advice: unattendedText(t, worker) });
  }
  const problem = stateProblem(type, view);
  return {
    name: project.name,
    type: project.type,
    description: project.description,
    branch: project.branch,
    base_branch: project.base_branch ?? null,
    state,
    purpose: def?.purpose ?? '',
    lead: def?.lead ?? null,
    phases: type.phases.map(({ name }) => {
      const { status, enabled, iteration, inputs, outputs } = project.phases[name]!;
      return { name, status, enabled, iteration, inputs: inputs.length, outputs: outputs.length };
    }),
    tasks: { total: tasks.length, by_status: byStatus, ...(unattended.length ? { unattended } : {}) },
    next: listTransitions(type, view),
    ...(problem
      ? {
          state_problem: {
            message: stateProblemText(problem),
            hint: stateProblemHint(problem),
            unmet: problem.unmet.map(({ hint: _hint, ...u }) => u),
            ...(problem.back ? { back: problem.back } : {}),
          },
        }
      : {}),
    ...(view.checks ? { checks: [...view.checks] } : {}),
    ...(project.usage?.length ? { usage: costOf(project.usage, 'task').total } : {}),
  };
}

export async function projectStatus(ctx: AppContext, opts: { map?: boolean } = {}): Promise<StatusReport> {
  const { report, root } = await Reader.read(ctx, async (reader) => {
    const { type, root, project } = reader;
    const r = statusOf(type, await withCheckStatuses(root, type, await reader.view()), reader.ctx.now());
    const { current_state, history } = project.statechart;
    return { report: opts.map ? { ...r, map: lifecycleMap(type, current_state, history ?? []) } : r, root };
  });
  // After the lock is let go: the remote may take a moment to answer.
  const now = ctx.now();
  const read = await remoteClaimsForReads(root, report.branch, now);
  if (!read) return report;
  return {
    ...report,
    remote_claims: read.reached
      ? { remote: read.remote, reached: true, claims: [...remoteClaimRows(read, now).values()] }
      : read,
  };
}

/** `3 (1 completed, 2 pending)`; `paint` may colour each status (a terminal's status view). */
export function taskCounts(report: Pick<StatusReport, 'tasks'>, paint: (status: string) => string = (s) => s): string {
  if (report.tasks.total === 0) return 'none yet';
  const parts = Object.entries(report.tasks.by_status).map(([s, n]) => `${n} ${paint(s)}`);
  return `${report.tasks.total} (${parts.join(', ')})`;
}

// The values of the prompt templates' variables ({{name}}, …) that this project knows; one line each, so a line break
// in the project file cannot forge a line of the prompt.
export function promptVariables(type: ProjectType, view: ProjectView): Record<string, string> {
  const { project } = view;
  const vars: Record<string, string> = {
    name: shown(project.name),
    description: shown(project.description),
    branch: shown(project.branch),
    base_branch: shown(project.base_branch ?? 'main'),
    state: shown(project.statechart.current_state),
    task_count: String(view.tasks.length),
  };
  // The round of the work: the iteration of the phase that holds the tasks.
  const work = project.phases[taskPhase(type)]?.iteration;
  if (work !== undefined) vars['iteration'] = String(work);
  return { ...vars, ...type.promptVariables?.(project) };
}

const LEAD_TEXT = {
  human:
    '**Human-led.** The human decides the scope and approves; you ask questions, take notes and draft. ' +
    "Do not approve anything on the human's behalf: " +
    'a plan the human did not agree to is the most expensive mistake in a project.',
  ai:
    '**AI-led.** Work on your own; ask the human only for decisions that change the approved scope, ' +
    'and leave the approvals at the gates to them.',
} as const;

export function renderContinue(
  type: ProjectType,
  view: ProjectView,
  now: string,
  readDoc: (rel: string) => string | undefined = () => undefined,
): string {
  const r = statusOf(type, view, now);
  const body = readTemplate(`prompts/${type.name}/${r.state}.md`);
  const automatic = r.next.filter((t) => t.automatic);
  const header = [
    `# sow: ${shown(r.name)} — ${shown(r.state)}`,
    '',
    `- Project: ${shown(r.name)} (${shown(r.type)}) on branch ` +
      `\`${shown(r.branch)}\`${r.base_branch ? `, started from \`${shown(r.base_branch)}\`` : ''}`,
    `- Description: ${shown(r.description) || '(none)'}`,
    `- State: ${shown(r.state)}`,
    `- Phases: ${r.phases.map((p) => `${p.name} ${p.enabled ? p.status : 'disabled'}`).join(', ')}`,
    `- Tasks: ${taskCounts(r)}`,
    ...(r.tasks.unattended ?? []).map((u) => `- ${u.advice}`),
    ...(r.state_problem
      ? [`- **Warning**: ${r.state_problem.message}. \`sow advance\` refuses until then: ${r.state_problem.hint}`]
      : []),
    '',
    '## What this state is for',
    '',
    r.purpose,
    '',
    ...(r.lead ? [LEAD_TEXT[r.lead], ''] : []),
  ];
  const advance = [
    '',
    '## Advancing',
    '',
    ...(automatic.length === 0
      ? ['There is nothing to advance to.']
      : [
          'When the work of this state is done, run `sow advance`. It checks:',
          '',
          ...automatic.map((t) => {
            const met = t.blocked ? ` — **not yet met**: ${t.hint ?? ''}` : ' — met';
            const withdrawn = (t.withdrawn ?? []).map((w) => `; ${shown(withdrawalSentence(w))}`).join('');
            return `- \`${t.event}\` → ${t.to}: ${t.guardDescription ?? 'no condition'}${met}${withdrawn}`;
          }),
        ]),
    '',
  ];
  const vars = promptVariables(type, view);
  // What the type adds from the project's documents (where an interrupted iteration stopped).
  const notes = type.continueNotes?.(view, readDoc)?.trim();
  return [...header, renderTemplate(body, vars).trim(), ...(notes ? ['', notes] : []), ...advance].join('\n');
}

/** At most `max` characters of a value from a file, cut at a word: the card stays a card whatever the file holds. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const at = cut.lastIndexOf(' ');
  return `${(at > max / 2 ? cut.slice(0, at) : cut).trimEnd()}…`;
}

const LEAD_LINE = {
  human: 'Human-led: the human decides the scope and approves; you ask, take notes and draft.',
  ai: "AI-led: work on your own; approvals at the gates are the human's.",
} as const;

/** The next step of a state whose work is tasks: what the tasks' statuses call for first. */
function taskStep(r: StatusReport, view: ProjectView): string | undefined {
  const some = (status: string) =>
    view.tasks
      .filter((t) => t.status === status)
      .slice(0, 5)
      .map((t) => shown(t.id))
      .join(', ');
  const needsReview = some('needs_review');
  if (needsReview)
    return (
      `check the work of ${needsReview} (needs_review), then \`sow task set --id <id> status completed\` or ` +
      `\`sow task feedback --id <id> "<what to change>"\``
    );
  const stopped = some('paused') || some('failed');
  if (stopped)
    return (
      `${stopped} stopped (paused or failed): read the end of its log.md, then \`sow agent resume <id> "<answer ` +
      `or fix>" --detach\``
    );
  if (r.tasks.by_status['pending']) {
    // The role most pending tasks are assigned to (a tie: the one named first); a human-led state works with the human.
    const counts = new Map<string, number>();
    for (const t of view.tasks)
      if (t.status === 'pending' && t.assigned_agent)
        counts.set(t.assigned_agent, (counts.get(t.assigned_agent) ?? 0) + 1);
    let agent: string | undefined;
    for (const [name, n] of counts) if (agent === undefined || n > counts.get(agent)!) agent = name;
    return r.lead === 'human' || !agent
      ? '`sow task next` (the tasks ready to start), then work on one'
      : `\`sow agent spawn ${shown(agent)} --next --detach\` (a worker takes the next ready task; again for each ` +
          `task marked parallel), then \`sow agent wait --timeout 90s\``;
  }
  if (r.tasks.by_status['in_progress'])
    return '`sow agent wait --timeout 90s` (workers are on the tasks in progress; `sow agent ps` shows them)';
  return undefined;
}

// The state card for the start of every session: where the project stands and the one next command, a few lines
// whatever the files hold (the state's how-to is `renderContinue`).
export function renderCard(type: ProjectType, view: ProjectView, now: string, refs = 0): string {
  const r = statusOf(type, view, now);
  const def = type.states[r.state];
  const automatic = r.next.filter((t) => t.automatic);
  const ready = automatic.find((t) => !t.blocked);
  const hint = automatic.find((t) => t.blocked && t.hint)?.hint;
  // The state's own work first; else what the guard still needs; else advancing.
  const work = def?.next ?? (def?.executesTasks ? taskStep(r, view) : undefined);
  const next =
    work ??
    (ready
      ? `\`sow advance\` (→ ${ready.to}) once this state's work is done`
      : hint
        ? `${clip(shown(hint), 240)}; then \`sow advance\``
        : undefined);
  const unattended = r.tasks.unattended ?? [];
  const guard = automatic[0]?.guardDescription ?? "this state's work is done";
  const lines = [
    `# sow: ${clip(shown(r.name), 80)} — ${shown(r.state)}`,
    `${shown(r.type)} project on ` +
      `\`${clip(shown(r.branch), 80)}\`: ${clip(shown(r.description), 160) || '(no description)'}`,
    `Tasks: ${taskCounts(r)}`,
    // A state its guards do not hold (set by hand) comes first: nothing else on the card is true until it is fixed.
    ...(r.state_problem
      ? [
          `Warning: ${clip(shown(r.state_problem.message), 300)}; \`sow advance\` refuses until ` +
            `then: ${clip(shown(r.state_problem.hint), 300)}`,
        ]
      : []),
    ...unattended.slice(0, 3).map((u) => `- ${clip(u.advice, 400)}`),
    ...(unattended.length > 3 ? [`- and ${unattended.length - 3} more that nobody works on (\`sow task list\`)`] : []),
    `Now: ${r.purpose}${r.lead ? ` ${LEAD_LINE[r.lead]}` : ''}`,
    ...(next ? [`Next: ${next}`] : []),
    ...(work && automatic.length
      ? [`Advance: \`sow advance\` ${ready ? `(→ ${ready.to}) is ready` : `once ${guard}`}`]
      : []),
    ...(refs ? [`References: ${refs} (\`sow refs list\`): read them before you decide how to do something.`] : []),
    'How to work in this state: `sow project continue --full`',
  ];
  return `${lines.join('\n')}\n`;
}

/** The NoProject prompt's variables (`elsewhere`: the branches that have a project). */
export function noProjectVariables(root: string, elsewhere: readonly string[] = []): Record<string, string> {
  const others = elsewhere.length
    ? `these branches have one: ${elsewhere.map((b) => `\`${b}\``).join(', ')}`
    : "'git branch' lists the branches";
  return { branch: head(root).branch ?? '(detached HEAD)', elsewhere: others };
}

/** The card of a branch without a project: how to start one, and where the others are. */
function noProjectCard(root: string, elsewhere: readonly string[]): string {
  const vars = noProjectVariables(root, elsewhere);
  return [
    `# sow: no project on \`${clip(shown(vars['branch']!), 80)}\``,
    'Next: `sow project new <name> --description "<what the work is for>"` (ask the human for both if they have ' +
      'not said; on main or master it makes the branch feat/<name>)',
    `A project started elsewhere: ${clip(shown(vars['elsewhere']!), 300)}; \`git checkout <branch>\` resumes it.`,
    'How to work here: `sow project continue --full`',
    '',
  ].join('\n');
}

/** What to do now: the state card (`card`), or the state's whole prompt (`sow project continue --full`). */
export async function continueProject(ctx: AppContext, opts: { card?: boolean } = {}) {
  try {
    return await Reader.read(ctx, async (reader) => {
      const view = await withCheckStatuses(reader.root, reader.type, await reader.view());
      return {
        state: reader.project.statechart.current_state,
        prompt: opts.card
          ? renderCard(reader.type, view, reader.ctx.now(), refsOrNone(reader.root).length)
          : withRefs(
              renderContinue(reader.type, view, reader.ctx.now(), (rel) => reader.readDoc(rel)),
              refsForPrompt(reader.root),
            ),
      };
    });
  } catch (err) {
    if (!(err instanceof NoProjectError)) throw err;
    // Without a project, how to start one, so an orchestrator always has a next step.
    const root = await openRoot(ctx);
    const prompt = opts.card
      ? noProjectCard(root, err.elsewhere)
      : renderTemplate(readTemplate('prompts/NoProject.md'), noProjectVariables(root, err.elsewhere)).trim();
    return { state: 'NoProject', prompt };
  }
}
