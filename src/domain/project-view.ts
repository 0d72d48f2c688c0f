/** What guards, prompts and approvals see of a project: its state, tasks, and what the app loaded for the guards. */
import type { ProjectState, TaskState, TaskSummary } from './schemas.js';

/** How a declared check stands for the code now, by its newest evidence (stale: the code or command changed). */
export type CheckState = 'fresh-pass' | 'stale' | 'failed' | 'missing';
export interface CheckStatus {
  readonly name: string;
  readonly state: CheckState;
  /** The newest evidence's log, relative to .sow/project/. */
  readonly evidence?: string;
  /** The newest run's exit code (null: it timed out or was killed). */
  readonly exit_code?: number | null;
  /** What changed since a stale pass: the code (the tree outside .sow/) or the check's command. */
  readonly changed?: 'code' | 'command';
}

/** A file of the repository (relative to its root), or undefined when it does not exist. */
export type ReadDoc = (rel: string) => string | undefined;

/** What guards and status views read: the project file and the tasks, read from their own files. */
export interface ProjectView {
  readonly project: ProjectState;
  readonly tasks: readonly TaskSummary[];
  /** The checks a guard of the current state needs (GuardDef.evidence), judged on the working tree: only then. */
  readonly checks?: readonly CheckStatus[];
  /** Every task's whole state, loaded only where a guard reads more than a summary (GuardDef.readsTasks). */
  readonly taskStates?: readonly TaskState[];
  /** Whether a file of the repository (relative to its root) exists, for guards that need a document written. */
  readonly docExists?: (rel: string) => boolean;
  /** A file of the repository, or undefined: what approvals are judged against, read only when a guard asks. */
  readonly readDoc?: ReadDoc;
}
