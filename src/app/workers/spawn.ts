/**
 * `sow agent spawn`: the worker pipeline composed — check, resolve the executor, record the plan,
 * run the worker, settle its run — and the task's new status reported. The worker reports back by
 * calling sow itself.
 */
import { contextOf, type AppContext, type Where } from '../context.js';
import { findAgent } from '../../domain/agents.js';
import type { Usage } from '../../adapters/executors/types.js';
import { currentBranch } from '../../adapters/repo.js';
import { readRepoConfig } from '../../adapters/repo-config.js';
import { READY_VARIABLE } from '../../adapters/supervisor.js';
import { refsForPrompt } from '../refs.js';
import { workerEnv } from './plan.js';
import { spawnPreconditions } from './preconditions.js';
import { recordReportedSession, recordSpawn } from './record.js';
import { createSessionId, resolveFor, settingsGuard, workerRights } from './resolve.js';
import { agentPrompt, invocationOf, runFiles, runWorker } from './run.js';
import { announceStart, finish, settled } from './settle.js';
import type { AgentRunOptions, AgentRunResult, Handoff } from './types.js';

export type SpawnOptions = AgentRunOptions & { next?: boolean; iteration?: boolean; handoff?: Handoff };

export async function spawnAgent(
  where: Where,
  agentName: string,
  taskId: string | undefined,
  opts: SpawnOptions,
): Promise<AgentRunResult> {
  const ctx = contextOf(where);
  const agent = findAgent(agentName);
  const { root, target: named } = await spawnPreconditions(ctx, agentName, taskId, opts);
  // Once the worker starts, the folder it was asked from may go: what follows is done from the root.
  const inRoot: AppContext = { ...ctx, cwd: root };
  const resolution = await resolveFor(agent.name, undefined, opts, ctx.env);
  // Read (and validate) .sow/config.yaml before anything is started or written.
  const rights = await workerRights(root, resolution, opts.say, ctx.env);
  // Nor may the CLI's own settings in the repository widen a safe worker (its checkout is checked again once opened).
  const widening = settingsGuard(resolution, rights.permissions);
  widening([root]);
  const checkout =
    opts.worktree ?? ((await readRepoConfig(root)).config.workers?.worktree === true ? 'parallel' : false);
  // Over ACP the agent opens the session and says its id (session/new).
  const sessionId =
    resolution.transport === 'acp' ? undefined : await createSessionId(resolution.spec, resolution, root, ctx.env);
  const executor = {
    name: resolution.executor.name,
    type: resolution.executor.config.type,
    transport: resolution.transport,
  };
  const now = ctx.now();
  const recorded = await recordSpawn(inRoot, {
    agent,
    named,
    executor,
    sessionId,
    branch: currentBranch(root),
    checkout,
    force: opts.force,
    handoff: opts.handoff,
    iteration: opts.iteration,
    now,
  });
  const { target, agentId, workdir } = recorded;

  const prompt = agentPrompt(agent, agentId, recorded.assignment, opts.prompt, refsForPrompt(root));
  const files = runFiles(root, target, 'spawn');
  announceStart(ctx, root, {
    agent: agent.name,
    agent_id: agentId,
    target,
    session_id: sessionId ?? null,
    events_file: files.eventsFile,
  });
  const invocation = invocationOf(
    resolution,
    { permissions: rights.permissions, checks: rights.checks },
    { kind: 'spawn', cwd: workdir, prompt, promptFile: files.writePrompt(prompt), sessionId },
  );
  const env = workerEnv(agent.name, agentId, root, target.kind === 'task' ? target.id : undefined, sessionId);
  const startedAt = ctx.now();
  const meter = { usage: {} as Usage, now: ctx.now };
  const settlement = {
    ctx: inRoot,
    target,
    owned: recorded.owned,
    agent: agent.name,
    agentId,
    executor: executor.name,
    run: 'spawn' as const,
    sessionId,
    renew: recorded.pushed !== undefined,
    ownerRecord: recorded.ownerRecord,
    say: opts.say,
  };
  const run = await settled(
    settlement,
    meter,
    async () => {
      // The worker does not inherit where its supervisor reports (it is the supervisor's own business).
      const { [READY_VARIABLE]: _ready, ...base } = ctx.env;
      // Its own checkout, which an earlier worker may have changed (the repository was checked above).
      if (workdir !== root) widening([root, workdir]);
      const onSession = (id: string) => recordReportedSession(inRoot, target, agent.name, agentId, id);
      return runWorker(
        { files, target, withheld: rights.withheld, resolution, env, base, cwd: workdir, opts, meter, onSession },
        invocation,
      );
    },
    opts.say,
  );
  const result = await finish(
    inRoot,
    target,
    agent.name,
    agentId,
    executor.name,
    sessionId ?? run.reportedSession ?? null,
    run.eventsFile,
    opts,
    run.denials,
    startedAt,
  );
  return recorded.checkoutRel ? { ...result, worktree: recorded.checkoutRel } : result;
}
