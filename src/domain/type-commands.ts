// A project type's own commands (`sow <group> …`), as data and a `run` function that the app runs through the same
// lock, validation and transaction as every other command.
import type { ProjectState, TaskState } from './schemas.js';

/** Where completion finds the values of an argument or option that has no fixed list. */
export type CandidateSource =
  'task-id' | 'agent' | 'phase' | 'event' | 'ref' | 'check' | 'task-status' | 'project-type' | 'artifact-type';

/** Option values as commander gives them: a string, true for a switch, undefined when absent. */
export type TypeOptions = Readonly<Record<string, string | boolean | undefined>>;

/** What a command hands back; the front end renders it (the CLI: data with --json, else text and message). */
export interface CommandResult {
  readonly data: unknown;
  /** Human output on stdout (omitted with --json). */
  readonly text?: string;
  /** Human message on stderr (omitted with --json): a confirmation. */
  readonly message?: string;
  /** Printed on stderr as warnings (also with --json). */
  readonly warnings?: readonly string[];
}

/** One session inside a read or a write: the project and its tasks, and the documents under .sow/. */
export interface TypeSession {
  readonly now: string;
  project(): Promise<ProjectState>;
  /** Writes only: the changed project, validated and written when the command succeeds. */
  setProject(project: ProjectState): void;
  task(id: string): Promise<TaskState>;
  /** Every task's whole state, in id order, this command's changes included. */
  tasks(): Promise<TaskState[]>;
  setTask(task: TaskState): void;
  /** A file of the repository (relative to its root), or undefined when it does not exist. */
  readFile(rel: string): string | undefined;
  /** Writes only: written in the same transaction as the state files. */
  writeFile(rel: string, text: string): void;
}

/** What completed projects left in the repository's knowledge: a committed file, so every value is a claim to check. */
export interface Knowledge {
  /** The branch checked out (undefined on a detached HEAD). */
  readonly branch: string | undefined;
  /** The entries of .sow/knowledge/index.yaml, oldest first (each as written: check every field). */
  readonly entries: readonly Readonly<Record<string, unknown>>[];
  /** A file of the repository (relative to its root, confined to it), or undefined when it does not exist. */
  readFile(rel: string): string | undefined;
}

export interface TypeCommandContext {
  /** Runs `fn` on the project as it is, under the lock. */
  read<R>(fn: (s: TypeSession) => Promise<R> | R): Promise<R>;
  /** The repository's knowledge (what completed projects were archived as), read under the lock. */
  knowledge(): Promise<Knowledge>;
  /** Runs `fn` and commits what it changed, or nothing when it throws. */
  update<R>(fn: (s: TypeSession) => Promise<R> | R): Promise<R>;
  /** GitHub through the user's gh; `repo`: github.repo in .sow/config.yaml, else origin (else it throws). */
  readonly github: {
    repo(): Promise<string>;
    createIssue(input: { title: string; body: string }): Promise<{ number: number; url: string }>;
  };
  /** Whether gh is installed (on PATH). */
  hasGh(): boolean;
}

export interface TypeCommandDef {
  /** The words after the group: 'publish', 'phase add'. */
  readonly name: string;
  readonly description: string;
  readonly args?: readonly { readonly name: string; readonly description: string }[];
  /** `flags` in commander's form: '--did <text>', '--signal', '--max <n>'. */
  readonly options?: readonly { readonly flags: string; readonly description: string; readonly required?: boolean }[];
  /** Shown after the options in --help (examples). */
  readonly help?: string;
  /** Whether it changes the project: a command that does not is given a context whose `update` refuses. */
  readonly writes: boolean;
  run(ctx: TypeCommandContext, args: readonly string[], opts: TypeOptions): Promise<CommandResult>;
}

export interface TypeCommandGroup {
  /** The first word: `sow <name> …`. Must not be a command of sow itself. */
  readonly name: string;
  readonly description: string;
  readonly commands: readonly TypeCommandDef[];
  /** What each group of commands with several words does ('phase' → 'Define the work phases'). */
  readonly subgroups?: Readonly<Record<string, string>>;
}
