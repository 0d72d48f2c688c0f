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
  /** The declared checks' commands the person allowed here: a safe worker may run them. */
  checks: readonly string[];
  /** Globs of the files a safe worker may never edit (agentSettingsFiles), for a CLI that can be told so. */
  protect: readonly string[];
}

// The files through which a repository or a worker could widen what this CLI may do (decision 0063): sow tells the CLI
// to ignore them, or refuses to start it.
export interface Widening {
  /** Globs (`**` any folders, `*` within a name) of the files it reads its own rights from. */
  readonly files: readonly string[];
  /** The settings in them that widen what it may do (for people: errors, docs). */
  readonly settings: readonly string[];
  /** How sow keeps them from widening a safe worker. */
  readonly how: string;
  // For files sow cannot tell the CLI to ignore: by the path of each (`*` in the last component: any name), what in its
  // text widens, as `key: value`.
  check?(transport: 'cli' | 'acp'): Readonly<Record<string, (text: string) => string[]>> | undefined;
}

/** How sow keeps an ACP session asking: the modes that ask before acting, and config options' required values. */
export interface AskingModes {
  /** Mode ids (session `modes`, or the `mode` config option) in which the agent asks sow; the first is switched to. */
  readonly asks: readonly string[];
  /** Config options (`configOptions`, by id) and the value they must have, e.g. Copilot's allow_all: off. */
  readonly options?: Readonly<Record<string, string>>;
  /** Where a mode that does not ask most likely came from, for the error. */
  readonly setBy: string;
}

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

/** Everything sow knows about one agent CLI (docs/decisions/0042-one-module-per-agent-cli.md). */
export interface ExecutorModule {
  readonly type: ExecutorType;
  readonly title: string;
  readonly install: string;
  /** How sow learns a session id: it picks one, the CLI makes one before the run, reports one in events, or none. */
  readonly sessionIds: 'caller' | 'precreated' | 'reported' | 'none';
  binary(config: ExecutorConfig): string;
  // How the agent is started to speak ACP on stdio, for `transport: acp`; sow decides its permissions (no flags). Its
  // binary and install are the CLI's own unless an adapter's.
  readonly acp?: {
    binary?(config: ExecutorConfig): string;
    args(config: ExecutorConfig, permissions: PermissionProfile): string[];
    /** The arguments that give `sow mcp` to an agent that takes a stdio MCP server only on its command line. */
    mcpArgs?(server: { name: string; command: string; args: string[]; env: Record<string, string> }): string[];
    /** What its environment needs so that it runs headless and asks sow before it acts. */
    env?(ctx: { runningAsRoot: boolean; permissions: PermissionProfile }): Record<string, string>;
    /** What `session/new` and `session/load` carry in `_meta` (Claude's adapter takes SDK options there). */
    sessionMeta?(permissions: PermissionProfile): Record<string, unknown> | undefined;
    /** Under safe: the modes in which it asks sow; any other is switched away from before the prompt. */
    modes?: AskingModes;
    install?: string;
  };
  supportsResumption(config: ExecutorConfig): boolean;
  spawn(ctx: InvocationContext): Invocation;
  resume(ctx: InvocationContext & { sessionId: string }): Invocation;
  /** For 'precreated' ids: the command that prints a new session id. */
  createSession?(config: ExecutorConfig): { binary: string; args: string[] };
  /** For 'reported' ids: the id carried by this event, if any. */
  sessionFromEvent?(event: Record<string, unknown>): string | undefined;
  /** Progress lines for an event of its own dialect, else undefined; every dialect reads every stream (no overlap). */
  progress?(event: Record<string, unknown>): string[] | undefined;
  // What its stderr said when a resume failed because it has no such session, else undefined (as captured in
  // test/fixtures/agent-help/<type>@*__resume-session-gone.stderr.txt).
  sessionGone?(stderr: string): string | undefined;
  /** What this event adds to the run's tokens and cost, when its events carry them (summed over a run). */
  usage?(event: Record<string, unknown>): Usage | undefined;
  /** For a CLI that tells its totals only at the end: what an event says was used so far, keyed by answer. */
  usageSoFar?(event: Record<string, unknown>): { key: string; usage: Usage } | undefined;
  /** A new reader of the calls it refused, for one run: what each parsed event (or stderr line) adds. */
  denials?(): { event?(event: Record<string, unknown>): Denial[]; stderr?(line: string): Denial[] };
  /** When its safe profile is a sandbox: what the sandbox does (a declared check gets no more). */
  readonly sandbox?: string;
  /** Why a declared, granted check can still be refused by this CLI. */
  readonly checkRefusedBecause?: string;
  /** Settings of the user configuration this type does not take, each with why (config validation reads them). */
  readonly ignores: Readonly<Partial<Record<ExecutorSetting, string>>>;
  /** Its own settings files, and how a safe worker is kept from being widened by them. */
  readonly widening?: Widening;
  /** What `sow doctor` checks: every flag sow passes in the CLI's --help, or only that it is on PATH. */
  readonly doctor: 'flags' | 'on-path';
  /** What `sow install <type>` writes for it; null when there is no such target (said why beside it). */
  readonly integration: Integration | null;
}
