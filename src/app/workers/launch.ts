/** The run and settle stages composed, shared by a spawn and a resume once their record is written. */
import type { Usage } from '../../adapters/executors/types.js';
import { READY_VARIABLE } from '../../adapters/supervisor.js';
import { workerEnv } from './plan.js';
import { invocationOf, runFiles, runWorker } from './run.js';
import { announceStart, finish, settled, type Launch } from './settle.js';
import type { AgentRunResult, Speaker } from './types.js';

/** Runs the worker on `prompt` and settles its run however it ends. `recover`: a failure the caller takes over (a
 * session its CLI could not resume), answered undefined. */
export async function launch(
  l: Launch,
  prompt: string,
  speaker: Speaker,
  recover?: (err: unknown) => boolean,
): Promise<AgentRunResult | undefined> {
  const { ctx, target, resolution, rights, cwd, sessionId } = l;
  const root = ctx.cwd;
  const files = runFiles(root, target, l.kind);
  const events_file = files.eventsFile;
  announceStart(ctx, { agent: l.agent, agent_id: l.agentId, target, session_id: sessionId ?? null, events_file });
  const run = { cwd, prompt, promptFile: files.writePrompt(prompt), kind: l.kind, sessionId };
  const granted = { permissions: rights.permissions, checks: rights.checks };
  const invocation = invocationOf(resolution, granted, run);
  const env = workerEnv(l.agent, l.agentId, root, target.kind === 'task' ? target.id : undefined, sessionId);
  const startedAt = ctx.now();
  const meter = { usage: {} as Usage, now: ctx.now };
  const ran = await settled(
    l,
    meter,
    async () => {
      // The worker does not inherit where its supervisor reports (it is the supervisor's own business).
      const { [READY_VARIABLE]: _ready, ...base } = ctx.env;
      // Its own checkout, which an earlier worker may have changed (the repository was checked before).
      if (cwd !== root) rights.widening([root, cwd]);
      const { withheld } = rights;
      const onSession = l.onSession ? { onSession: l.onSession } : {};
      const load = l.kind === 'resume' ? { load: sessionId } : {};
      try {
        return await runWorker(
          { files, target, withheld, resolution, env, base, cwd, speaker, meter, ...onSession, ...load },
          invocation,
        );
      } catch (err) {
        if (recover?.(err)) return undefined;
        throw err;
      }
    },
    speaker.say,
  );
  return ran && finish(l, sessionId ?? ran.reportedSession ?? null, ran, startedAt, speaker);
}
