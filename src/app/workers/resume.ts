/** `sow agent resume` and the handoff: continue a recorded session, or (with --fresh, or when the CLI cannot) hand the
 * task to a fresh session with a brief of where it stands. */
import type { AppContext } from '../context.js';
import { executorOf, resumableTypes } from '../../adapters/executors/registry.js';
import { latestEventsFile, readEvents } from '../../adapters/supervisor.js';
import { diffOfTask } from '../task.js';
import { PROJECT_DIR, taskDir } from '../project-files.js';
import { Reader } from '../workspace.js';
import {
  AcpSessionNotLoadedError,
  NoSessionError,
  ResumeNotSupportedError,
  WorkerFailedError,
} from '../agent-errors.js';
import { lastMessageOf } from './events.js';
import { resumePreconditions } from './preconditions.js';
import { recordResume } from './record.js';
import { resolveFor, workerRights } from './resolve.js';
import { launch } from './launch.js';
import { spawnAgent } from './spawn.js';
import { label, type AgentRunOptions, type AgentRunResult, type Handoff, type Target } from './types.js';

export async function resumeAgent(
  ctx: AppContext,
  target: Target,
  prompt: string,
  opts: AgentRunOptions,
): Promise<AgentRunResult> {
  const found = await resumePreconditions(ctx, target, opts);
  const { root, session, sessionId, agentName } = found;
  if (opts.fresh && found.target.kind === 'task') {
    return handOff(ctx, found.target.id, agentName, prompt, opts, {
      from_agent_id: session.agent_id,
      ...(sessionId ? { from_session: sessionId } : {}),
      reason: 'asked',
    });
  }
  // Once the worker starts, the folder it was asked from may go: what follows is done from the root.
  const inRoot: AppContext = { ...ctx, cwd: root };
  const running = found.target;
  const resolution = await resolveFor(agentName, session, opts, ctx.env);
  // Over ACP, whether the agent can continue a session is its answer to initialize (session/load), known once it runs.
  if (resolution.transport === 'cli' && !resolution.spec.supportsResumption(resolution.executor.config)) {
    const resumable = Object.values(resolution.effective.executors)
      .filter((e) => executorOf(e.config.type)?.supportsResumption(e.config))
      .map((e) => e.name);
    throw new ResumeNotSupportedError(
      resolution.executor.name,
      label(running),
      resumable.length ? resumable : resumableTypes(),
    );
  }
  // A session whose CLI never reported its id (codex or opencode that failed early) cannot be continued.
  if (!sessionId)
    throw new NoSessionError(
      label(running),
      running.kind === 'task'
        ? `sow agent spawn ${agentName} ${running.id} --force`
        : `sow agent spawn ${agentName} --force`,
    );
  const rights = await workerRights(root, resolution, opts.say, ctx.env);
  const now = ctx.now();
  const { force } = opts;
  const recorded = await recordResume(inRoot, { target: running, session, sessionId, agentName, force, now });
  // Claude Code resumes only from the directory where the session began: a worker's own checkout is made again there if
  // it went (its branch is kept until the task is merged).
  const task = running.kind === 'task' ? await Reader.read(inRoot, (reader) => reader.task(running.id)) : undefined;
  let cwd = session.cwd;
  if (task?.worktree) cwd = (await import('../worker-checkout.js')).workerCheckoutOf(root, task, now) ?? cwd;
  let gone: string | undefined;
  const result = await launch(
    {
      ctx: inRoot,
      target: running,
      kind: 'resume',
      agent: agentName,
      agentId: session.agent_id,
      resolution,
      rights,
      cwd,
      sessionId,
      recorded,
    },
    prompt,
    { say: opts.say, verbose: opts.verbose, quiet: opts.quiet },
    (err: unknown) => {
      // The CLI could not resume the session (not found, another machine, an upgrade): not lost — a fresh session takes
      // the task over with a brief of where it stands.
      if (running.kind !== 'task') return false;
      if (err instanceof AcpSessionNotLoadedError) gone = err.reason;
      else if (err instanceof WorkerFailedError) gone = resolution.spec.sessionGone?.(err.stderrTail);
      return gone !== undefined;
    },
  );
  if (result !== undefined || running.kind !== 'task') return result!;
  opts.say(
    `${resolution.spec.title} could not resume session ${sessionId} (${gone}); ` +
      `a fresh session takes task ${running.id} over with a handoff brief.`,
  );
  return handOff(ctx, running.id, agentName, prompt, opts, {
    from_agent_id: session.agent_id,
    from_session: sessionId,
    reason: 'session_gone',
    cli_said: gone!,
  });
}

/** A fresh session of the same role takes the task over, its prompt a brief of where the task stands and what it is
 * asked now; the handoff is recorded in the task. */
async function handOff(
  ctx: AppContext,
  taskId: string,
  agentName: string,
  prompt: string,
  opts: AgentRunOptions,
  handoff: Handoff,
): Promise<AgentRunResult> {
  const brief = await Reader.read(ctx, async (reader) => {
    const task = await reader.task(taskId);
    const dir = taskDir(task.phase, task.id);
    const description = reader.readDoc(`${dir}/description.md`)?.trim();
    const feedback = task.inputs
      .filter((a) => a.type === 'feedback')
      .map((a) => `### ${a.path}\n\n${reader.readDoc(`${PROJECT_DIR}/${a.path}`)?.trim() ?? '(missing)'}`);
    const log = reader.readDoc(`${dir}/log.md`)?.trim();
    const files = task.outputs.filter((a) => a.type === 'modified').map((a) => a.path);
    const base = reader.project.base_branch;
    const diff = diffOfTask(reader, task);
    const events = latestEventsFile(reader.root, task.id);
    const last = events ? lastMessageOf(readEvents(reader.root, events)?.lines ?? []) : undefined;
    const cap = (text: string, max: number) =>
      text.length > max ? `${text.slice(0, max)}\n… (cut at ${max} characters)` : text;
    const said = handoff.cli_said ? ` (the agent CLI said: ${handoff.cli_said})` : '';
    const ended = handoff.reason === 'asked' ? 'is not to be continued' : `could not be resumed${said}`;
    return [
      `You take over task ${task.id} from ${handoff.from_agent_id}, whose session ${ended}. ` +
        `You start with no memory of its conversation: this is what it left.`,
      `## The task\n\n${description || task.name}`,
      ...(feedback.length ? [`## Feedback on its work\n\n${feedback.join('\n\n')}`] : []),
      ...(log ? [`## Its log\n\n${cap(log, 20_000)}`] : []),
      ...(files.length ? [`## Files it changed\n\n${files.map((f) => `- ${f}`).join('\n')}`] : []),
      ...(diff ? [`## How (against ${base ?? 'the last commit'})\n\n\`\`\`diff\n${cap(diff, 40_000)}\n\`\`\``] : []),
      ...(last ? [`## Its last message\n\n${cap(last, 4_000)}`] : []),
      `## What you are asked now\n\n${prompt}`,
    ].join('\n\n');
  });
  return spawnAgent(ctx, agentName, taskId, { ...opts, prompt: brief, handoff });
}
