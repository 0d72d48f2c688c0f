/** The run and settle stages composed, shared by a spawn and a resume once their record is written. */
import type { AppContext } from '../context.js';
import type { Usage } from '../../adapters/executors/types.js';
import { READY_VARIABLE } from '../../adapters/supervisor.js';
import { workerEnv } from './plan.js';
import type { Recorded } from './record.js';
import type { Rights } from './resolve.js';
import { invocationOf, runFiles, runWorker } from './run.js';
import { announceStart, finish, settled, type Settlement } from './settle.js';
import type { AgentRunResult, Resolution, Speaker, Target } from './types.js';

/** A worker whose start is recorded, ready to run. */
export interface Launch {
  /** The caller's context: the worker starts from its environment. */
  ctx: AppContext;
  root: string;
  target: Target;
  kind: 'spawn' | 'resume';
  agent: string;
  agentId: string;
  resolution: Resolution;
  /** What the worker may do unasked, and the declared checks withheld from it. */
  rights: Rights;
  cwd: string;
  /** The session known before the run: a resume's always, a spawn's when sow or the CLI made it first. */
  sessionId: string | undefined;
  recorded: Pick<Recorded, 'owned' | 'ownerRecord' | 'pushed'>;
  /** A spawn records the session id its CLI reports during the run at once. */
  onSession?: (id: string) => Promise<void>;
}

/** Runs the worker on `prompt` and settles its run however it ends. `recover`: a failure the caller takes over (a
 * session its CLI could not resume), answered undefined. */
export async function launch(
  l: Launch,
  prompt: string,
  speaker: Speaker,
  recover?: (err: unknown) => boolean,
): Promise<AgentRunResult | undefined> {
  const { ctx, root, target, resolution, rights, cwd, sessionId } = l;
  const files = runFiles(root, target, l.kind);
  const events_file = files.eventsFile;
  announceStart(ctx, root, { agent: l.agent, agent_id: l.agentId, target, session_id: sessionId ?? null, events_file });
  const run = { cwd, prompt, promptFile: files.writePrompt(prompt) };
  const granted = { permissions: rights.permissions, checks: rights.checks };
  const invocation = invocationOf(
    resolution,
    granted,
    l.kind === 'resume' ? { ...run, kind: 'resume', sessionId: sessionId! } : { ...run, kind: 'spawn', sessionId },
  );
  const env = workerEnv(l.agent, l.agentId, root, target.kind === 'task' ? target.id : undefined, sessionId);
  const startedAt = ctx.now();
  const meter = { usage: {} as Usage, now: ctx.now };
  const settlement: Settlement = {
    ctx: { ...ctx, cwd: root },
    target,
    owned: l.recorded.owned,
    agent: l.agent,
    agentId: l.agentId,
    executor: resolution.executor.name,
    run: l.kind,
    sessionId,
    renew: l.recorded.pushed !== undefined,
    ownerRecord: l.recorded.ownerRecord,
  };
  const ran = await settled(
    settlement,
    meter,
    async () => {
      // The worker does not inherit where its supervisor reports (it is the supervisor's own business).
      const { [READY_VARIABLE]: _ready, ...base } = ctx.env;
      // Its own checkout, which an earlier worker may have changed (the repository was checked before).
      if (cwd !== root) rights.widening([root, cwd]);
      const { withheld } = rights;
      const onSession = l.onSession ? { onSession: l.onSession } : {};
      try {
        return await runWorker(
          { files, target, withheld, resolution, env, base, cwd, speaker, meter, ...onSession },
          invocation,
        );
      } catch (err) {
        if (recover?.(err)) return undefined;
        throw err;
      }
    },
    speaker.say,
  );
  return ran && finish(settlement, sessionId ?? ran.reportedSession ?? null, ran, startedAt, speaker);
}
