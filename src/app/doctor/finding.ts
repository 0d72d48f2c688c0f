/** What every check of `sow doctor` gives and shares: a finding, and the context it judges. */
import type { SowError } from '../../domain/errors.js';
import type { TaskState } from '../../domain/schemas.js';
import type { AppContext } from '../context.js';
import type { LoadedProject } from '../project-files.js';

export type DoctorStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  id: string;
  status: DoctorStatus;
  message: string;
  /** The command or step that fixes it. */
  fix?: string;
  /** `--fix` fixed it (the message says what was done). */
  fixed?: boolean;
}

/** A check's finding, with what `--fix` would do about it (returns what it did). */
export interface Finding extends DoctorCheck {
  repair?: () => Promise<string> | string;
}

export const FIX = 'sow doctor --fix';

/** A finding without a repair; `fix` is the command or step that fixes it. */
export const finding = (id: string, status: DoctorStatus, message: string, fix?: string): Finding => ({
  id,
  status,
  message,
  ...(fix !== undefined ? { fix } : {}),
});
export const ok = (id: string, message: string): Finding => finding(id, 'ok', message);

/** The first three of a list, with '…' when there are more. */
export const firstFew = (items: readonly string[], sep: string) =>
  items.slice(0, 3).join(sep) + (items.length > 3 ? `${sep}…` : '');

/** A failure sow knows (git missing, a file it cannot read) as the finding of check `id`. */
export const failure = (id: string, err: SowError): Finding => ({
  id,
  status: 'fail',
  message: err.message,
  ...(err.hint ? { fix: err.hint } : {}),
});

/** What the checks share: the command's context, where the repository is and how far sow is set up in it. */
export interface Context {
  app: AppContext;
  cwd: string;
  root?: string;
  /** `.sow/.version` says this sow's layout. */
  layoutOk: boolean;
  project?: LoadedProject;
  /** Why the project could not be read. */
  projectError?: SowError;
  /** Every task, once the tasks check found their files sound. */
  taskStates?: TaskState[];
}
