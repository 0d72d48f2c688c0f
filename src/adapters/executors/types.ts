import type { ExecutorSetting } from '../../domain/config.js';
import type { Integration } from '../../domain/integrations.js';
import type { ExecutorConfig, ExecutorType, PermissionProfile } from '../../domain/config-schemas.js';

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
  /**
   * The shell commands of the declared checks (.sow/config.yaml) the person allowed here: a safe worker may run them.
   */
  checks: readonly string[];
  /**
   * Repository-relative glob patterns of the files a safe worker may never edit: every agent CLI's own settings
   * (registry's agentSettingsFiles), for the CLI that can be told so itself.
   */
  protect: readonly string[];
}

/**
 * The files through which a repository, or a worker that edits it, could widen what this agent CLI may do: its own
 * project settings (permissions, hooks, MCP servers, …). A worker of any CLI is kept from editing every CLI's files (a
 * Claude Code worker that writes `.gemini/settings.json` widens the next Gemini worker), and a safe worker of this CLI
 * starts only where its files widen nothing: sow tells the CLI to ignore them, or refuses to start it.
 */
export interface Widening {
  /**
   * Repository-relative glob patterns (`**` any folders, `*` within a name) of the files it reads its own rights from.
   */
  readonly files: readonly string[];
  /** The settings in them that widen what it may do (for people: errors, docs). */
  readonly settings: readonly string[];
  /** How sow keeps them from widening a safe worker. */
  readonly how: string;
  /**
   * For the files sow cannot tell the CLI to ignore (on this transport): which to read, and what in each widens.
   * `paths` are repository-relative; a `*` in the last component matches any name in that folder. `found` returns each
   * widening setting the text holds, said as `key: value` (empty when it holds none).
   */
  check?(
    transport: 'cli' | 'acp',
  ): { paths: readonly string[]; found(path: string, text: string): string[] } | undefined;
}

/**
 * How sow keeps an ACP session asking: the modes that ask it before acting, and the config options that must keep their
 * value.
 */
export interface AskingModes {
  /**
   * Mode ids (session `modes`, or the `mode` config option) in which the agent asks sow; the first is the one to switch
   * to.
   */
  readonly asks: readonly string[];
  /** Config options (`configOptions`, by id) and the value they must have, e.g. Copilot's allow_all: off. */
  readonly options?: Readonly<Record<string, string>>;
  /** Where a mode that does not ask most likely came from, for the error. */
  readonly setBy: string;
}

/**
 * How sow learns a session id: it picks one (caller), the CLI creates one on request before the run (precreated), the
 * CLI reports one in its events (reported), or there is none.
 */
export type SessionIdMode = 'caller' | 'precreated' | 'reported' | 'none';

/** A refused tool call ("denial") in an agent CLI's output. */
export interface Denial {
  /** The CLI's own name for the tool: Bash, run_shell_command, bash, shell, Write, apply_patch, … */
  tool: string;
  /** The shell command or the file the call was about; null when the CLI does not say. */
  input: string | null;
  kind: 'command' | 'edit' | 'other';
  /** Why, in the CLI's words, when it gives a reason. */
  reason?: string;
}

/** Tokens and cost, as the CLI counts them; a figure it does not report is absent. */
export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
}

/** One run's reader of refused calls: what each parsed event (or stderr line) adds. */
export interface DenialReader {
  event(event: Record<string, unknown>): Denial[];
  stderr(line: string): Denial[];
}

/**
 * Everything sow knows about one agent CLI, in one module (adapters/executors/<cli>.ts): the spec's executor interface
 * (spawn, resume, supports-resumption, check-availability) as data, plus how its events read, the words about its
 * sandbox, the settings it ignores and how doctor checks it.
 */
export interface ExecutorModule {
  readonly type: ExecutorType;
  readonly title: string;
  readonly install: string;
  readonly sessionIds: SessionIdMode;
  binary(config: ExecutorConfig): string;
  /**
   * How the agent is started to speak the Agent Client Protocol on stdio (sow is the client), for `transport: acp`;
   * absent when it cannot. Its permissions are sow's to decide, so no permission flag goes here.
   */
  readonly acp?: {
    binary(config: ExecutorConfig): string;
    args(config: ExecutorConfig, permissions: PermissionProfile): string[];
    /**
     * For an agent that takes MCP servers only on its command line (Copilot accepts none but http/sse in session/new):
     * the arguments that give it `sow mcp`.
     */
    mcpArgs?(server: { name: string; command: string; args: string[]; env: Record<string, string> }): string[];
    /** What its environment needs so that it runs headless and asks sow before it acts. */
    env?(ctx: { runningAsRoot: boolean; permissions: PermissionProfile }): Record<string, string>;
    /** What `session/new` and `session/load` carry in `_meta` (Claude's adapter takes SDK options there). */
    sessionMeta?(permissions: PermissionProfile): Record<string, unknown> | undefined;
    /** Under safe: the modes in which it asks sow; any other is switched away from before the prompt. */
    modes?: AskingModes;
    install: string;
  };
  supportsResumption(config: ExecutorConfig): boolean;
  spawn(ctx: InvocationContext): Invocation;
  resume(ctx: InvocationContext & { sessionId: string }): Invocation;
  /** For 'precreated' ids: the command that prints a new session id. */
  createSession?(config: ExecutorConfig): { binary: string; args: string[] };
  /** For 'reported' ids: the id carried by this event, if any. */
  sessionFromEvent?(event: Record<string, unknown>): string | undefined;
  /**
   * Progress lines for the events of this CLI's own dialect; undefined when the event is not one of its shapes. Every
   * dialect is tried on every stream (a command of the user's own may speak any of them), so the shapes each module
   * claims must not overlap.
   */
  progress?(event: Record<string, unknown>): string[] | undefined;
  /**
   * When a resume failed because the CLI has no such session (not found, made on another machine, lost in an upgrade):
   * what it said, from its stderr; otherwise undefined.
   */
  sessionGone?(stderr: string): string | undefined;
  /** What this event adds to the run's tokens and cost, when its events carry them (summed over a run). */
  usage?(event: Record<string, unknown>): Usage | undefined;
  /**
   * For a CLI that tells its totals only when it ends: what an event says was used so far, while it runs (for `agent
   * ps`), keyed so that an event repeated for one model answer counts once.
   */
  usageSoFar?(event: Record<string, unknown>): { key: string; usage: Usage } | undefined;
  /** A new reader of the calls it refused, for one run; absent when its output says nothing sow can read. */
  denials?(): DenialReader;
  /**
   * Under permissions: safe, when its safe profile is a sandbox: what the sandbox does (a declared check gets no more).
   */
  readonly sandbox?: string;
  /** Why a declared, granted check can still be refused by this CLI. */
  readonly checkRefusedBecause?: string;
  /** Settings of the user configuration this type does not take, each with why (config validation reads them). */
  readonly ignores: Readonly<Partial<Record<ExecutorSetting, string>>>;
  /**
   * Its own settings files, and how a safe worker is kept from being widened by them; absent for a command of the
   * user's own.
   */
  readonly widening?: Widening;
  /**
   * What `sow doctor` checks: that every flag sow passes is in the CLI's --help, or only that it is on PATH (a command
   * of the user's own is never run).
   */
  readonly doctor: 'flags' | 'on-path';
  /** What `sow install <type>` writes for it; null when there is no such target (said why beside it). */
  readonly integration: Integration | null;
}
