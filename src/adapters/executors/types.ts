import type { ExecutorConfig, ExecutorType, PermissionProfile } from '../../domain/schemas.js';

/** One process to start: argv array (never a shell string), environment additions, stdin. */
export interface Invocation {
  binary: string;
  args: string[];
  env: Record<string, string>;
  /** The prompt goes through stdin unless the executor passes a file. */
  stdin?: string;
  /** Things --verbose should tell the user (e.g. IS_SANDBOX=1 for a root yolo run). */
  notes: string[];
  /** Files the run needs, written before it starts (e.g. a Gemini policy). */
  files?: { path: string; text: string }[];
  /** What the run may do unasked: its profile and the declared checks (said again when a call is refused). */
  granted: { permissions: PermissionProfile; checks: readonly string[] };
}

export interface InvocationContext {
  config: ExecutorConfig;
  cwd: string;
  prompt: string;
  promptFile: string;
  sessionId?: string;
  runningAsRoot: boolean;
  /** What the worker may do unasked (settings.permissions, or yolo_mode). */
  permissions: PermissionProfile;
  /** The shell commands of the declared checks (.sow/config.yaml) the person allowed here: a safe worker may run them. */
  checks: readonly string[];
}

/**
 * How sow learns a session id: it picks one (caller), the CLI creates one on request before the
 * run (precreated), the CLI reports one in its events (reported), or there is none.
 */
export type SessionIdMode = 'caller' | 'precreated' | 'reported' | 'none';

/** The spec's executor interface (spawn, resume, supports-resumption, check-availability) as data. */
export interface Executor {
  readonly type: ExecutorType;
  readonly title: string;
  readonly install: string;
  readonly sessionIds: SessionIdMode;
  binary(config: ExecutorConfig): string;
  supportsResumption(config: ExecutorConfig): boolean;
  spawn(ctx: InvocationContext): Invocation;
  resume(ctx: InvocationContext & { sessionId: string }): Invocation;
  /** For 'precreated' ids: the command that prints a new session id. */
  createSession?(config: ExecutorConfig): { binary: string; args: string[] };
  /** For 'reported' ids: the id carried by this event, if any. */
  sessionFromEvent?(event: Record<string, unknown>): string | undefined;
}
