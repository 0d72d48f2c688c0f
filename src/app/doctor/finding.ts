/** What every check of `sow doctor` gives and shares: a verdict, and the context it judges. */
import type { SowError } from '../../domain/errors.js';
import { defined } from '../../domain/json.js';
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

/** What `--fix` would do about a finding (returns what it did). */
type Repair = () => Promise<string> | string;
export type Finding = DoctorCheck & { repair?: Repair };

/** What a check found; the doctor names it with the check's id. */
export type Verdict = Omit<Finding, 'id'>;

export const FIX = 'sow doctor --fix';

export const verdict = (status: DoctorStatus, message: string, fix?: string, repair?: Repair): Verdict => ({
  status,
  message,
  ...defined({ fix, repair }),
});
export const ok = (message: string): Verdict => verdict('ok', message);
export const warn = (message: string, fix?: string, repair?: Repair) => verdict('warn', message, fix, repair);
export const fail = (message: string, fix?: string, repair?: Repair) => verdict('fail', message, fix, repair);

/** A failure sow knows (git missing, a file it cannot read) as a check's verdict. */
export const failure = (err: SowError): Verdict => fail(err.message, err.hint || undefined);

/** The first three of a list, with '…' when there are more. */
export const firstFew = (items: readonly string[], sep: string) =>
  items.slice(0, 3).join(sep) + (items.length > 3 ? `${sep}…` : '');

/** What the checks share: the command's context, where the repository is and how far sow is set up in it. */
export interface Context {
  app: AppContext;
  root?: string;
  /** `.sow/.version` says this sow's layout. */
  layoutOk: boolean;
  project?: LoadedProject;
  /** Why the project could not be read. */
  projectError?: SowError;
  /** Every task, once the tasks check found their files sound. */
  taskStates?: TaskState[];
}
