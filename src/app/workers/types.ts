/** The words of a worker's lifecycle, shared by its stages (plan, record, run, settle) and the commands using them. */
import type { Denial } from '../../adapters/denials.js';
import type { ResolvedExecutor, EffectiveConfig } from '../../domain/config.js';
import type { ExecutorModule } from '../../adapters/executors/types.js';
import type { LoadedConfig } from '../../adapters/user-config.js';

export interface AgentRunOptions {
  prompt?: string;
  verbose: boolean;
  quiet: boolean;
  force?: boolean;
  /** resume: start a fresh session with a handoff brief instead of continuing the recorded one. */
  fresh?: boolean;
  /** spawn on a task: the worker works in a checkout of its own (app/worker-checkout.ts); else as the config says. */
  worktree?: boolean;
  say: (line: string) => void;
}

/** Where a worker's stages speak: progress and --verbose lines (stderr), silenced by --quiet where it may be. */
export type Speaker = Pick<AgentRunOptions, 'verbose' | 'quiet' | 'say'>;

export interface AgentRunResult {
  agent: string;
  agent_id: string;
  task?: string;
  executor: string;
  session_id: string | null;
  status?: string;
  events_file: string;
  /** Tool calls the worker's CLI refused under its permissions (empty when none). */
  denials: Denial[];
  /** A worker without a task: what it reported during this run ('sow agent report'), if it did. */
  report?: { status: string; message?: string };
  /** Its own checkout, relative to the project checkout, when it works in one. */
  worktree?: string;
}

export type Target = { kind: 'task'; id: string } | { kind: 'project'; agent: string };

export const label = (t: Target) => (t.kind === 'task' ? `task ${t.id}` : `agent ${t.agent}`);

/** A fresh session taking a task over from one that cannot (or is not to) be continued. */
export interface Handoff {
  from_agent_id: string;
  from_session?: string;
  reason: 'asked' | 'session_gone';
  cli_said?: string;
}

/** The executor a worker runs with, resolved from the user's configuration (workers/resolve.ts). */
export interface Resolution {
  loaded: LoadedConfig;
  effective: EffectiveConfig;
  executor: ResolvedExecutor;
  spec: ExecutorModule;
  binaryPath: string;
  /** How sow talks to it: its command line, or the Agent Client Protocol (a session keeps the one it began with). */
  transport: 'cli' | 'acp';
}
