// `sow hook stop` (the Stop hook of `sow install claude`): a spawned worker stopping without reporting is told to
// report first. Never twice in a row; a read problem lets it stop.
import type { AppContext } from './context.js';
import { Reader } from './workspace.js';
import { quietly } from '../adapters/io-errors.js';

export async function stopHook(ctx: AppContext, input: string): Promise<{ decision?: 'block'; reason?: string }> {
  const { env } = ctx;
  const agentId = env['SOW_AGENT_ID'];
  if (!agentId) return {};
  // Input that is not the hook's JSON is decided as a first stop.
  const hook = quietly(() => JSON.parse(input || '{}') as { stop_hook_active?: unknown } | null);
  if (hook?.stop_hook_active === true) return {};
  const taskId = env['SOW_TASK_ID'];
  const agent = env['SOW_AGENT'] ?? agentId.replace(/-\d+$/, '');
  try {
    return await Reader.read(
      ctx,
      async (r) => {
        if (taskId) {
          const task = await r.task(taskId);
          if (task.status !== 'in_progress') return {};
          return {
            decision: 'block',
            reason:
              `You are ${agentId}, working on sow task ${taskId}, and you have not reported back: its status ` +
              `is still in_progress. Before you stop, report through sow: 'sow task set --id ${taskId} status ` +
              `needs_review' when the work is done, or log why ('sow log "<why>"') and set 'paused' (a question ` +
              `for the human) or 'failed'.`,
          };
        }
        const session = r.project.sessions?.[agent];
        if (!session || session.agent_id !== agentId || session.report !== undefined) return {};
        return {
          decision: 'block',
          reason:
            `You are ${agentId}, a sow ${agent}, and you have not reported back. Before you stop, run 'sow ` +
            `agent report --status done "<one-line summary>"' (or --status blocked with your questions, --status ` +
            `failed with why).`,
        };
      },
      { otherBranch: 'quiet' },
    );
  } catch {
    return {};
  }
}
