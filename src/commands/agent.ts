/** `sow agent …`: spawn and resume agent workers, and what workers tell sow. */
import { agentArg, collect, taskIdArg, TIMEOUT_OPTION } from '../model/args.js';
import { writeText } from '../cli/output.js';
import { UsageError, WaitTimeoutError } from '../domain/errors.js';
// Only the path: user-config.ts loads its schema and YAML reader on first read, so help stays cheap.
import { userConfigExists, userConfigPath } from '../adapters/user-config.js';
import { command, type CommandDef } from '../model/def.js';

/** Computed when the help is shown: the path in use (the file is never read for --help). */
const configHelp = (): string => {
  const path = userConfigPath();
  return `Agent selection uses configuration \
from ${path}${userConfigExists(path) ? '' : ' (not found: the built-in defaults are used)'}
Run 'sow config init' to create a configuration file; SOW_AGENTS_<ROLE>=<executor> overrides it.
Run 'sow config validate' to check it.`;
};

const say = (line: string) => writeText(process.stderr, line);

const VERBOSE = {
  flags: '-v, --verbose',
  description: 'show how the executor was chosen and the command run',
} as const;
const QUIET = { flags: '-q, --quiet', description: 'no progress view' } as const;

export const commands: readonly CommandDef[] = [
  command({
    name: 'agent list',
    description: 'List the agents: what each does, what its CLI must be able to do, its prompt',
    writes: false,
    async run() {
      const { AGENTS, ORCHESTRATOR } = await import('../domain/agents.js');
      const all = [...AGENTS, ORCHESTRATOR];
      return {
        data: all.map(({ name, description, capabilities, template: prompt, guidance, scope }) => {
          return { name, description, capabilities, prompt, guidance, scope };
        }),
        text: all
          .map(
            (a) =>
              `${a.name.padEnd(12)} ${a.description}\n${' '.repeat(13)}needs: ${a.capabilities}\n${' '.repeat(13)}` +
              // The orchestrator runs its state's prompt first; a worker may read its guidance.
              (a.guidance === 'orchestrator'
                ? `prompt: templates/${a.template}, then 'sow project continue --full'`
                : `prompt: templates/${a.template}; guidance: 'sow prompt ${a.guidance}'`),
          )
          .join('\n'),
      };
    },
  }),
  command({
    name: 'agent spawn',
    description: 'Start a worker: with a task id it works on that task, without one on the project',
    examples: [
      'sow agent spawn implementer 010            # a worker on task 010, in the foreground',
      'sow agent spawn implementer --next --detach  # the next ready task; returns at once',
      'sow agent wait --timeout 30m                 # until a detached worker reports back',
    ],
    args: [
      {
        name: 'agent',
        description: 'implementer, architect, reviewer, planner, researcher, decomposer or orchestrator',
      },
      { name: 'task-id', description: 'the task to work on', optional: true },
    ],
    options: [
      {
        flags: '--next',
        description: 'work on the next ready task (the one `sow task next --claim` would take), chosen atomically',
      },
      {
        flags: '--iteration',
        description:
          'a fresh worker for the next iteration of the current work phase (projects that work in iterations; ' +
          'never a resume)',
      },
      { flags: '--prompt <text>', description: 'extra instructions added to the worker prompt' },
      {
        flags: '-d, --detach',
        description:
          'run the worker in the background and return once its session is recorded; it outlives this command (see ' +
          'sow agent wait)',
      },
      {
        flags: '--worktree',
        description:
          'work on the task in a checkout of its own (a git worktree under .sow/worktrees/.workers/, on a branch ' +
          "of the project branch); 'sow task merge' brings it back",
      },
      VERBOSE,
      QUIET,
      {
        flags: '--force',
        description:
          'start anyway: on a finished task, outside the executing state, over a live worker or a recorded session ' +
          '(those lose the task)',
      },
    ],
    help: () =>
      `${configHelp()}\n\nWith --detach the worker runs under a sow supervisor in its own session: the command ` +
      `returns at once with the task, the worker, its pid and where its events go, and the supervisor does what ` +
      `a waiting spawn does when the worker stops (the task's status, letting it go, counting what it used). ` +
      `'sow agent wait' waits for detached workers.`,
    async run(ctx, { args, opts }) {
      const [agentName, taskId] = args as [string, string | undefined];
      if (opts.next && taskId !== undefined)
        throw new UsageError('give a task id or --next, not both', `sow agent spawn ${agentName} --next`);
      if (opts.iteration && (taskId !== undefined || opts.next))
        throw new UsageError(
          "--iteration spawns a worker for the project's next iteration, not for a task",
          `sow agent spawn ${agentName} --iteration`,
        );
      if (opts.worktree && taskId === undefined && !opts.next)
        throw new UsageError(
          '--worktree gives a worker on a task a checkout of its own; name the task (or --next)',
          `sow agent spawn ${agentName} <task-id> --worktree`,
        );
      await agentArg(agentName);
      if (taskId !== undefined) taskIdArg(taskId, 'task id');
      // What the worker is to do, the same whether this command waits for it or not.
      const run = {
        ...(opts.prompt !== undefined ? { prompt: opts.prompt } : {}),
        verbose: opts.verbose === true,
        force: opts.force === true,
        next: opts.next === true,
        iteration: opts.iteration === true,
        ...(opts.worktree ? { worktree: true } : {}),
      };
      if (opts.detach) {
        const { spawnDetached } = await import('../app/detach.js');
        const r = await spawnDetached(ctx.app, agentName, taskId, run);
        return { data: r, text: detachedText('Started', r) };
      }
      const { spawnAgent } = await import('../app/workers/spawn.js');
      const r = await spawnAgent(ctx.app, agentName, taskId, { ...run, quiet: opts.quiet === true, say });
      return { data: r, ...(r.status ? { text: r.status } : {}) };
    },
  }),
  command({
    name: 'agent resume',
    description: 'Continue a worker session with a new prompt (feedback, an answer, corrections)',
    args: [
      { name: 'task-id', description: 'the task whose session to resume (omit with --agent)', optional: true },
      { name: 'prompt', description: 'what to tell the worker', optional: true },
    ],
    options: [
      { flags: '-a, --agent <agent>', description: 'resume the project-level session of this agent instead of a task' },
      VERBOSE,
      QUIET,
      { flags: '--force', description: 'resume even though another worker still owns the task (it loses the task)' },
      {
        flags: '--fresh',
        description:
          "don't continue the session: a fresh one of the same role takes the task over, with a brief of where it " +
          'stands (its description, feedback, log, changed files, the last message)',
      },
      {
        flags: '-d, --detach',
        description:
          'continue the worker in the background and return once it has started; it outlives this command (see sow ' +
          'agent wait)',
      },
    ],
    help: configHelp,
    async run(ctx, { args, opts }) {
      const [first, second] = args as [string | undefined, string | undefined];
      const { resumeAgent } = await import('../app/workers/resume.js');
      // `resume <task-id> <prompt>` or `resume --agent <agent> <prompt>`.
      const agent = opts.agent;
      if (agent !== undefined && second !== undefined)
        throw new UsageError(
          'give either a task id or --agent, not both',
          'sow agent resume --agent planner "<prompt>"',
        );
      if (agent === undefined && (first === undefined || second === undefined))
        throw new UsageError(
          'missing task id or prompt',
          'sow agent resume <task-id> "<prompt>", or sow agent resume --agent <agent> "<prompt>"',
        );
      if (agent !== undefined) await agentArg(agent);
      const target =
        agent !== undefined
          ? ({ kind: 'project', agent } as const)
          : ({ kind: 'task', id: taskIdArg(first!, 'task id') } as const);
      const prompt = agent !== undefined ? first : second;
      if (!prompt?.trim()) throw new UsageError('the prompt is empty', 'say what the worker should do next');
      const how = { verbose: opts.verbose === true, force: opts.force === true, fresh: opts.fresh === true };
      if (opts.detach) {
        const { resumeDetached } = await import('../app/detach.js');
        const r = await resumeDetached(ctx.app, target, prompt, how);
        return { data: r, text: detachedText(opts.fresh ? 'Started' : 'Resumed', r) };
      }
      const r = await resumeAgent(ctx.app, target, prompt, { ...how, quiet: opts.quiet === true, say });
      return { data: r, ...(r.status ? { text: r.status } : {}) };
    },
  }),
  command({
    name: 'agent wait',
    description: 'Wait until workers have stopped (default: every worker running now) and say how each task stands',
    args: [{ name: 'task-id', description: 'the tasks whose workers to wait for', optional: true, variadic: true }],
    options: [{ flags: '--any', description: 'return when one of them stops' }, TIMEOUT_OPTION],
    help:
      'A task no worker runs on counts as stopped at once. With a timeout an orchestrator whose tool calls are ' +
      'limited waits in slices: exit 0 when they stopped, 124 when the time ran out (like timeout(1)).',
    writes: false,
    mcp: {
      tool: 'agent_wait',
      description: "Wait for workers to stop: each task's status, or on timeout who still runs.",
      defaults: { timeout: '30s' },
    },
    async run(ctx, { args, opts }) {
      const ids = ((args[0] as string[] | undefined) ?? []).map((id) => taskIdArg(id, 'task id'));
      const { waitForWorkers } = await import('../app/detach.js');
      const { any, timeout } = opts;
      // An MCP client's cancel ends the wait.
      const timeoutMs = timeout === undefined ? undefined : timeout * 1000;
      const r = await waitForWorkers(ctx.app, ids, { any, timeoutMs, signal: ctx.signal });
      const lines = r.stopped.map(
        (t) => `${t.task}  ${t.unreported ? 'in_progress: its worker exited without reporting' : t.status}`,
      );
      if (r.timedOut) throw new WaitTimeoutError(timeout ?? 0, r.running, r.stopped);
      const running = r.running.map(
        (w) => `${w.task}  still running (${w.by}${w.pid !== undefined ? `, pid ${w.pid}` : ''})`,
      );
      return { data: r, text: [...lines, ...running].join('\n') || 'No worker is running.' };
    },
  }),
  command({
    name: 'agent ps',
    description:
      'The workers running now: task, worker, CLI, pid, running for, what it did last, tokens and cost so far',
    options: [{ flags: '--all', description: 'also those of every worktree' }],
    writes: false,
    mcp: {
      tool: 'agent_ps',
      description: 'Live workers (or gone ones): task, role, pid, last action, tokens, cost.',
      listKey: 'workers',
    },
    async run(ctx, { opts }) {
      const { liveWorkers, projectRemoteClaims } = await import('../app/detach.js');
      const rows = await liveWorkers(ctx.app, { all: opts.all === true });
      const { remoteClaimNotes, renderWorkers } = await import('../cli/render.js');
      // Claims on the remote: workers of other machines, which this one cannot see otherwise.
      const claims = remoteClaimNotes(await projectRemoteClaims(ctx.app), ctx.app.now());
      return { data: rows, text: [renderWorkers(rows, ctx.app.now(), opts.all === true), ...claims].join('\n') };
    },
  }),
  command({
    name: 'agent events',
    description:
      'What the worker on a task did, as it happens: its messages, tool calls, usage, errors and exit, the same ' +
      'for every CLI (the newest run)',
    args: [{ name: 'task-id', description: 'the task whose worker to show' }],
    options: [
      { flags: '-f, --follow', description: 'keep printing events as they come, until the worker stops' },
      { flags: '--raw', description: "print the CLI's own event stream instead (JSON lines, as it wrote them)" },
    ],
    help:
      "The events are kept in git's folder, under .git/sow/agent-outputs/<task>/, beside the CLI's raw stream, " +
      'one file each per spawn or resume. With --json: the events as a list (not with --follow, which prints lines ' +
      'as they come).',
    writes: false,
    async run(ctx, { args, opts }) {
      const id = taskIdArg(args[0] as string, 'task id');
      if (opts.follow && ctx.json)
        throw new UsageError(
          '--follow prints events as they come, and --json one document at the end: give one of them',
          `sow agent events ${id} --follow, or sow agent events ${id} --json`,
        );
      const { taskEvents, followEvents, rawEvents } = await import('../app/detach.js');
      const { eventLine } = await import('../cli/render.js');
      if (opts.raw) {
        const r = await rawEvents(ctx.app, id);
        return { data: r, text: r.raw ? r.lines.join('\n') : `No worker has run on task ${r.task} yet.` };
      }
      if (opts.follow) {
        await followEvents(ctx.app, id, (e) => writeText(process.stdout, eventLine(e)));
        return undefined;
      }
      const r = await taskEvents(ctx.app, id);
      return {
        data: r,
        text: r.events.length ? r.events.map(eventLine).join('\n') : `No events of a worker on task ${r.task} yet.`,
      };
    },
  }),
  command({
    name: 'agent stop',
    description:
      'End the worker on a task and everything it started (TERM, then KILL after 10 s); the task is paused, with a ' +
      'note in its log',
    args: [{ name: 'task-id', description: 'the task whose worker to stop' }],
    async run(ctx, { args }) {
      const id = taskIdArg(args[0] as string, 'task id');
      const { stopWorker } = await import('../app/detach.js');
      const r = await stopWorker(ctx.app, id);
      const group = r.stopped.how === 'group' ? ' and its process group' : '';
      const killed = r.stopped.killed ? ', killed after it did not end on TERM' : '';
      return {
        data: r,
        text:
          `Stopped ${r.stopped.by} (pid ${r.stopped.pid}${group}${killed}); ` +
          `task ${r.task} is ${r.status}.\nResume it with: sow agent resume ${r.task} "<prompt>"`,
      };
    },
  }),
  command({
    name: 'agent log',
    description:
      "For workers: add a note to your task's log (your task and agent id come from the environment sow gave you)",
    args: [{ name: 'message', description: 'what you did, found or decided', variadic: true }],
    options: [
      { flags: '--action <action>', description: 'the kind of entry (default note; see sow log --help)' },
      { flags: '--result <result>', description: 'success, error or partial (default success)' },
      {
        flags: '--file <path>',
        description: 'a file the note is about (repeatable; becomes a task output)',
        parse: collect,
        default: [],
      },
    ],
    async run(ctx, { args, opts }) {
      const { agentLog } = await import('../app/report.js');
      const r = await agentLog(ctx.app, {
        message: (args[0] as string[]).join(' '),
        files: opts.file,
        action: opts.action,
        result: opts.result,
      });
      return { data: r, message: `Logged to ${r.file}` };
    },
  }),
  command({
    name: 'agent report',
    description:
      'For workers: say how your work stands. On a task: in_progress, needs_review, paused or failed (sets its ' +
      'status); without a task: working, done, blocked or failed',
    args: [{ name: 'message', description: 'why, in a sentence (goes to the log)', optional: true, variadic: true }],
    options: [{ flags: '--status <status>', description: 'how the work stands', required: true }],
    async run(ctx, { args, opts }) {
      const { agentReport } = await import('../app/report.js');
      const r = await agentReport(ctx.app, opts.status, (args[0] as string[]).join(' '));
      return { data: r, message: `${r.agent_id} reported ${r.status}${r.task ? ` on task ${r.task}` : ''}` };
    },
  }),
];

/** What a detached start prints: who runs on what, where to watch it, how to wait for it. */
function detachedText(verb: 'Started' | 'Resumed', r: import('../app/detach.js').DetachedStart): string {
  const on = r.task !== undefined ? `task ${r.task}` : 'the project';
  return (
    `${verb} ${r.agent_id} on ${on} in the background ` +
    `(pid ${r.pid}${r.session_id ? `, session ${r.session_id}` : ''}).\nIts events: ${r.events_file}\nIts ` +
    `supervisor's log: ${r.log}\nWait for it: sow agent wait${r.task !== undefined ? ` ${r.task}` : ''}`
  );
}
