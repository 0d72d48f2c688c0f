/** `sow agent spawn`: check, resolve the executor, plan and record the start, run and settle (workers/launch.ts). The
 * worker reports back by calling sow itself. */
import type { AppContext } from '../context.js';
import { findAgent } from '../../domain/agents.js';
import { currentBranch } from '../../adapters/repo.js';
import { readRepoConfig } from '../../adapters/repo-config.js';
import { refsForPrompt } from '../refs-index.js';
import { launch } from './launch.js';
import { spawnPreconditions } from './preconditions.js';
import { recordReportedSession, recordSpawn } from './record.js';
import { createSessionId, resolveFor, workerRights } from './resolve.js';
import { agentPrompt } from './run.js';
import type { AgentRunOptions, AgentRunResult, Handoff } from './types.js';

export type SpawnOptions = AgentRunOptions & { next?: boolean; iteration?: boolean; handoff?: Handoff };

export async function spawnAgent(
  ctx: AppContext,
  agentName: string,
  taskId: string | undefined,
  opts: SpawnOptions,
): Promise<AgentRunResult> {
  const agent = findAgent(agentName);
  const { force, iteration, handoff } = opts;
  const { root, target: named } = await spawnPreconditions(ctx, agent.name, taskId, opts);
  // Once the worker starts, the folder it was asked from may go: what follows is done from the root.
  const inRoot: AppContext = { ...ctx, cwd: root };
  const resolution = await resolveFor(agent.name, undefined, opts, ctx.env);
  // Read (and validate) .sow/config.yaml before anything is started or written.
  const rights = await workerRights(root, resolution, opts.say, ctx.env);
  const checkout =
    opts.worktree ?? ((await readRepoConfig(root)).config.workers?.worktree === true ? ('parallel' as const) : false);
  // Over ACP the agent opens the session and says its id (session/new).
  const sessionId = resolution.transport === 'acp' ? undefined : await createSessionId(resolution, root, ctx.env);
  const { executor: chosen, transport } = resolution;
  const executor = { name: chosen.name, type: chosen.config.type, transport };
  const asked = { agent, named, executor, sessionId, checkout, force, handoff, iteration };
  const recorded = await recordSpawn(inRoot, { ...asked, branch: currentBranch(root), now: ctx.now() });
  const { target, agentId } = recorded;
  const result = await launch(
    {
      ctx: inRoot,
      target,
      kind: 'spawn',
      agent: agent.name,
      agentId,
      resolution,
      rights,
      sessionId,
      cwd: recorded.workdir,
      recorded,
      onSession: (id) => recordReportedSession(inRoot, target, agent.name, agentId, id),
    },
    agentPrompt(agent, agentId, recorded.assignment, opts.prompt, refsForPrompt(root)),
    { say: opts.say, verbose: opts.verbose, quiet: opts.quiet },
  );
  return recorded.checkoutRel ? { ...result!, worktree: recorded.checkoutRel } : result!;
}
