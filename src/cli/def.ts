/**
 * One command, described once: its words, arguments, options, help, whether it writes, how it is
 * offered to an MCP client, and what it does. The commander tree (cli/build.ts), the tools of
 * `sow mcp` (mcp/tools.ts) and completion are built from these, so nothing about a command is
 * said twice. Types only: a definition costs nothing to load until its group is asked for.
 */
import type { z as Zod, ZodObject } from 'zod';
import type { AppContext } from '../app/context.js';
import type { CandidateSource, CommandResult } from '../domain/type-commands.js';

export type { CandidateSource, CommandResult };

export interface ArgDef {
  readonly name: string;
  readonly description?: string;
  readonly optional?: boolean;
  readonly variadic?: boolean;
  /** The value when it is not given. */
  readonly default?: string;
  /** A closed set: commander lists it in the help and completion offers it. */
  readonly choices?: readonly string[];
  /** Checks the word as typed (a usage error, exit 2, for a mistake) and returns the value. */
  readonly parse?: (raw: string) => unknown;
  readonly complete?: CandidateSource;
}

export interface OptionDef {
  /** commander's form: '-a, --agent <agent>', '--claim', '--max <n>'. */
  readonly flags: string;
  readonly description: string;
  readonly required?: boolean;
  readonly default?: unknown;
  readonly choices?: readonly string[];
  /** Checks the word as typed; `previous` is the value so far (a repeatable option collects). */
  readonly parse?: (raw: string, previous: unknown) => unknown;
  readonly complete?: CandidateSource;
}

/** What a command receives: its arguments in order, its options by camel-cased name. */
export interface CommandInput {
  readonly args: readonly unknown[];
  readonly opts: Readonly<Record<string, unknown>>;
  /** With `passThrough`: the words the command did not know (`--name value` metadata flags). */
  readonly rest?: readonly string[];
}

export interface CommandContext {
  readonly app: AppContext;
  /** The command line asked for one JSON document (`--json`): nothing else may reach stdout. */
  readonly json?: boolean;
  /** The client's cancellation (MCP), if any. */
  readonly signal?: AbortSignal;
  /** Reports progress of a long run (checks), when someone listens. */
  readonly progress?: (done: number, total: number, message: string) => void;
  /**
   * Every command, for a command that serves the others (`sow mcp`): given by whoever holds the
   * registry (main), so no command imports it and the registry's imports point one way.
   */
  readonly commands?: () => Promise<readonly CommandDef[]>;
}

/** Hints a client may show or act on (the MCP tool annotations). */
export interface ToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * How a command is offered to an MCP client. Schemas are built from the `z` that `sow mcp` passes
 * in, so defining them loads nothing on the command line's start-up.
 */
/** zod's `z`, as `sow mcp` hands it to the schema builders. */
export type ZodApi = typeof Zod;

export interface McpExposure {
  readonly tool: string;
  readonly description: string;
  /** Besides readOnlyHint, which a command that does not write gets by itself. */
  readonly annotations?: ToolAnnotations;
  /** The arguments, as a strict zod object. */
  input(z: ZodApi): ZodObject;
  /**
   * A result that is a list goes under this member of `structuredContent`, which is an object
   * (the text content is the list itself, as the command prints it under `data` with --json).
   */
  readonly listKey?: string;
  /** The shape of the result (`structuredContent`), as a zod object. */
  output(z: ZodApi): ZodObject;
  /** The tool's arguments as the command's input; without it, they are the command's options. */
  toInput?(args: Record<string, unknown>): CommandInput;
  /** A tool that does more than one command (artifact: add, set, list) says what it runs itself. */
  call?(ctx: CommandContext, args: Record<string, unknown>): Promise<unknown>;
}

export interface CommandDef {
  /** The words after `sow`: 'advance', 'task add', 'iter log'. */
  readonly name: string;
  readonly description: string;
  readonly args?: readonly ArgDef[];
  readonly options?: readonly OptionDef[];
  /** Shown after the options in --help (notes); a function when it says something only known then (a path in use). */
  readonly help?: string | (() => string);
  readonly examples?: readonly string[];
  /** Whether it changes state under .sow/ (or the repository). */
  readonly writes: boolean;
  readonly hidden?: boolean;
  /** Takes `--name value` words it does not declare (they arrive as `rest`). */
  readonly passThrough?: boolean;
  readonly mcp?: McpExposure;
  /** Undefined: nothing to show (`sow mcp`, whose stdout is the protocol's). */
  run(ctx: CommandContext, input: CommandInput): Promise<CommandResult | undefined>;
}

/** A command group (`sow task …`), its commands loaded only when argv, help or completion needs them. */
export interface GroupDef {
  readonly name: string;
  readonly description: string;
  /** Groups of several words under this one ('phase' under 'iter'), and what each does. */
  readonly subgroups?: Readonly<Record<string, string>>;
  load(): Promise<readonly CommandDef[]>;
}

/** A help topic: `sow help <name>` runs the page's command (its text, or its data with --json). */
export interface TopicDef {
  readonly name: string;
  readonly description: string;
  load(): Promise<CommandDef>;
}

/**
 * The commands a front end may reach: sow's own groups and the project types'. main holds it and
 * hands it down (to `__complete`, to `sow mcp`), so nothing below main imports the registry.
 */
export interface Registry {
  readonly groups: readonly GroupDef[];
  /** The help topics that are not commands (`sow help environment`); each page is a command run in-process. */
  readonly topics: readonly TopicDef[];
  /** The project types' groups: the one named `name`, or all of them. */
  typeGroups(name?: string): Promise<readonly GroupDef[]>;
}
