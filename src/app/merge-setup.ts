// Registering `sow merge-driver` with git (decision 0058): `.sow/.gitattributes` names the driver, the repository's git
// config its command (git never takes one from a committed file).
import { readFileIfExists } from '../adapters/files.js';
import { gitRun, val } from '../adapters/git.js';
import type { Transaction } from '../adapters/transaction.js';

/** What git runs through `sh`: `sow` as found on PATH, else git's own text merge; git quotes the placeholders. */
export const MERGE_DRIVER =
  'if command -v sow >/dev/null; then sow merge-driver %O %A %B %P; else git merge-file -L ours -L base -L theirs ' +
  '%A %O %B; fi';
export const ATTRIBUTES_FILE = '.sow/.gitattributes';
export const ATTRIBUTES_LINE = '* merge=sow';
export const SOW_GITATTRIBUTES = `# git merges sow's files with 'sow merge-driver' (the command is in .git/config: \
'sow init'
# or 'sow doctor --fix' sets it): fields, artifacts and log entries of both branches are kept.
${ATTRIBUTES_LINE}
`;

/** Whether `.sow/.gitattributes` has the line that names the driver. */
export function attributesMissing(root: string): boolean {
  const text = readFileIfExists(root, ATTRIBUTES_FILE);
  return !(text ?? '').split('\n').some((l) => l.trim().replace(/\s+/g, ' ') === ATTRIBUTES_LINE);
}

/** Adds the line (or the whole file) to `tx`; says whether it did. */
export function repairAttributesFile(root: string, tx: Transaction): 'created' | 'added' | undefined {
  if (!attributesMissing(root)) return undefined;
  const text = readFileIfExists(root, ATTRIBUTES_FILE);
  if (text === undefined) tx.write(ATTRIBUTES_FILE, SOW_GITATTRIBUTES);
  else tx.write(ATTRIBUTES_FILE, `${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${ATTRIBUTES_LINE}\n`);
  return text === undefined ? 'created' : 'added';
}

/** The command git config names for the driver, or undefined without one. */
export function configuredDriver(root: string): string | undefined {
  const r = gitRun(root, ['config', '--get', 'merge.sow.driver']);
  return r.ok ? r.out : undefined;
}

/** Whether `command` runs sow's merge driver with every placeholder it needs (however it finds sow). */
export function isSowDriver(command: string): boolean {
  return /(^|[\s/'"])sow(\.cjs)?['"]? merge-driver %O %A %B %P($|[\s;])/.test(command.trim());
}

/** Whether `command` finds sow on PATH (rather than naming it in full). */
export const findsSowOnPath = (command: string): boolean =>
  /(^|[\s;])(command -v sow|sow merge-driver)\b/.test(command.trim());

/** Sets `merge.sow.driver` and `merge.sow.name` where missing (a user's own is left alone); says what it set. */
export function configureDriver(root: string): { set: string[]; failed?: string } {
  const set: string[] = [];
  const name = "sow's files under .sow/, merged by what they mean";
  for (const [key, value] of Object.entries({ 'merge.sow.driver': MERGE_DRIVER, 'merge.sow.name': name })) {
    if (gitRun(root, ['config', '--get', val(key, 'a git config key')]).ok) continue;
    const r = gitRun(root, ['config', '--local', val(key, 'a git config key'), val(value, 'its value')]);
    if (!r.ok) return { set, failed: r.err.split('\n').at(-1) || `'git config ${key}' failed` };
    set.push(key);
  }
  return { set };
}
