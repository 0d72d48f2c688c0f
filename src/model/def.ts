// One command, described once: the commander tree, the MCP tools and completion are built from it. Types (and
// `command`, which only types `run`'s options), so a definition costs nothing to load until its group is asked for.
import type { AppContext } from '../app/context.js';
import type { CandidateSource, CommandResult } from '../domain/type-commands.js';

export type { CandidateSource, CommandResult };

export interface ArgDef {
  readonly name: string;
  readonly description?: string;
  readonly optional?: boolean;
  readonly variadic?: boolean;
  readonly default?: string;
  /** A closed set: commander lists it in the help and completion offers it. */
  readonly choices?: readonly string[];
  /** Checks the word as typed (a usage error, exit 2, for a mistake) and returns the value. */
  readonly parse?: (raw: string) => unknown;
  /** Where completion finds its values; default: the source the argument is named as (`task-id`, `agent`, `event`). */
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
  /** Where completion finds its values; default: the source the long flag is named as (`--agent`, `--phase`). */
  readonly complete?: CandidateSource;
  /** For a person at a terminal (`--watch`): not offered to MCP clients. */
  readonly terminal?: boolean;
}

/** The name commander gives an option's value: '-n, --dry-run' → 'dryRun', '--no-open' → 'open'. */
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type Long<F extends string> = F extends `${string}--${infer R}` ? (R extends `${infer N} ${string}` ? N : R) : never;
type KeyOf<F extends string> = Camel<Long<F> extends `no-${infer N}` ? N : Long<F>>;
/** What its parser returns, else a string for an option that takes a value, else a switch. */
type ValueOf<O> = O extends { parse: (...a: never[]) => infer R }
  ? R
  : O extends { flags: `${string}<${string}` }
    ? string
    : boolean;

/** Always has a value: required, defaulted, or a negated switch (true unless given). */
type Given = { required: true } | { default: unknown } | { flags: `${string}--no-${string}` };

/** A command's options, typed from its definitions' flags (untyped where a flag is only known as a string). */
export type OptionsOf<Os extends readonly OptionDef[]> = string extends Os[number]['flags']
  ? Readonly<Record<string, unknown>>
  : { readonly [O in Os[number] as O extends Given ? KeyOf<O['flags']> : never]: ValueOf<O> } & {
      readonly [O in Os[number] as O extends Given ? never : KeyOf<O['flags']>]?: ValueOf<O>;
    };

/** What a command receives: its arguments in order, its options by camel-cased name. */
export interface CommandInput<Opts = Readonly<Record<string, unknown>>> {
  readonly args: readonly unknown[];
  readonly opts: Opts;
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
  /** Every command, for `sow mcp`: handed down by main, so no command imports the registry. */
  readonly commands?: () => Promise<readonly CommandDef[]>;
}

/** How a command is offered to an MCP client: only what the command line does not say (the tool's name and words). */
export interface McpExposure {
  readonly tool: string;
  /** The tool's description (for a tool of several commands, on one of them). */
  readonly description?: string;
  /** A tool of several commands: the value of its `action` argument that runs this one. */
  readonly action?: string;
  /** A result that is a list goes under this member of `structuredContent`, which is an object. */
  readonly listKey?: string;
  /** Where a call must not wait without end or a person always says it: the tool's own defaults. */
  readonly defaults?: Readonly<Record<string, string>>;
  /** Options (by their MCP name) the tool leaves out: ways to trim a listing that the tool's JSON does not need. */
  readonly omit?: readonly string[];
}

export interface CommandDef<Os extends readonly OptionDef[] = readonly OptionDef[]> {
  /** The words after `sow`: 'advance', 'task add', 'iter log'. */
  readonly name: string;
  readonly description: string;
  readonly args?: readonly ArgDef[];
  readonly options?: Os;
  /** Shown after the options in --help (notes); a function when it says something only known then (a path in use). */
  readonly help?: string | (() => string);
  readonly examples?: readonly string[];
  /** Whether it changes state under .sow/ (or the repository): false for a command that only reads, else true. */
  readonly writes?: boolean;
  /** Takes `--name value` words it does not declare (they arrive as `rest`): what they are, and what MCP calls them. */
  readonly passThrough?: { readonly name: string; readonly description: string };
  readonly mcp?: McpExposure;
  /** Undefined: nothing to show (`sow mcp`, whose stdout is the protocol's). */
  run(ctx: CommandContext, input: CommandInput<OptionsOf<Os>>): Promise<CommandResult | undefined>;
}

/** A definition whose `run` reads its options by their names and types (see OptionsOf). */
export const command = <const Os extends readonly OptionDef[]>(def: CommandDef<Os>): CommandDef => def;

/** A command group (`sow task …`), its commands loaded only when argv, help or completion needs them. */
export interface GroupDef {
  readonly name: string;
  readonly description: string;
  /** Groups of several words under this one ('phase' under 'iter'), and what each does. */
  readonly subgroups?: Readonly<Record<string, string>>;
  load(): Promise<readonly CommandDef[]>;
}

/** A help topic: `sow help <name>` runs its page in this process (its text, or its data with --json). */
export interface TopicDef {
  readonly name: string;
  readonly description: string;
  load(): Promise<Pick<CommandDef, 'run'>>;
}

/** sow's own groups and the project types': main hands it down, so nothing below main imports the registry. */
export interface Registry {
  readonly groups: readonly GroupDef[];
  /** The help topics that are not commands (`sow help environment`); each page is a command run in-process. */
  readonly topics: readonly TopicDef[];
  /** The project types' groups: the one named `name`, or all of them. */
  typeGroups(name?: string): Promise<readonly GroupDef[]>;
}
