/**
 * What guards, prompts and approvals see of a project: its state, its tasks, and what the app
 * loaded for the guards of the current state. Below the project type and the approvals, which both
 * read it.
 */
import type { ProjectState, TaskState, TaskSummary } from './schemas.js';

/**
 * How a declared check stands for the code as it is now, judged by its newest evidence:
 * fresh-pass (it passed on this very tree), stale (it passed, but the code or the check's command
 * changed since), failed (its newest run failed or timed out), missing (it never ran).
 */
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

/** What guards and status views read: the project file and the tasks, read from their own files. */
export interface ProjectView {
  readonly project: ProjectState;
  readonly tasks: readonly TaskSummary[];
  /**
   * The declared checks a guard of the current state needs (GuardDef.evidence), judged against the
   * working tree. Computed by the app only in such a state: reading it takes git.
   */
  readonly checks?: readonly CheckStatus[];
  /**
   * Every task's whole state (outputs, metadata), for the guards that read more than a summary
   * (GuardDef.readsTasks). Loaded by the app only in a state whose transitions have such a guard.
   */
  readonly taskStates?: readonly TaskState[];
  /** Whether a file of the repository (relative to its root) exists, for guards that need a document written. */
  readonly docExists?: (rel: string) => boolean;
  /**
   * A file of the repository (relative to its root), or undefined: what approvals are judged
   * against (a document's content, a task's description). Read only when a guard asks.
   */
  readonly readDoc?: (rel: string) => string | undefined;
}
