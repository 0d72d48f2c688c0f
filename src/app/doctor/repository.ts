/** The doctor's checks of how git keeps .sow/: ignore lines, merge driver, unmerged files, lock, journal, worktrees. */
import { quoted, shown } from '../../domain/display.js';
import { SowError } from '../../domain/errors.js';
import { git, gitSucceeds, val } from '../../adapters/git.js';
import { inspectLock, removeStaleLock } from '../../adapters/lock.js';
import { findOnPath } from '../../adapters/process-runner.js';
import { legacyRuntimeFolders, shownRuntime } from '../../adapters/runtime.js';
import { hasJournal, inspectJournal } from '../../adapters/journal.js';
import { Transaction } from '../../adapters/transaction.js';
import { listWorktrees } from '../../adapters/worktrees.js';
import type { AppContext } from '../context.js';
import { GITIGNORE_LINES, missingIgnoreLines, repairIgnoreFile } from '../init.js';
import { conflictRecords, describeConflicts } from '../merge-driver.js';
import {
  ATTRIBUTES_FILE,
  ATTRIBUTES_LINE,
  attributesMissing,
  configureDriver,
  configuredDriver,
  findsSowOnPath,
  isSowDriver,
  MERGE_DRIVER,
  repairAttributesFile,
} from '../merge-setup.js';
import { checkJournalText } from '../project-files.js';
import { lockPath } from '../unit-of-work.js';
import { openRoot } from '../workspace.js';
import { pruneWorktreesFor } from '../worktree.js';
import { fail, firstFew, FIX, ok, warn, type Context, type Verdict } from './finding.js';

/** What the ignore check asks git about: one path under each folder sow keeps out of git. */
const RUNTIME_SAMPLES = ['.sow/.runtime/lock', '.sow/.backup/1/.version', '.sow/worktrees/x/.git'];

function gitignoreCheck(root: string): Verdict {
  const missing = missingIgnoreLines(root);
  if (missing.length) {
    return fail(
      `.sow/.gitignore lacks ${missing.join(', ')}, so git would see sow's runtime files, backups or worktrees`,
      `${FIX} (or 'sow init') adds the missing lines`,
      () => {
        const tx = new Transaction(root);
        const r = repairIgnoreFile(root, tx);
        tx.commit();
        return r.created
          ? `wrote .sow/.gitignore (${GITIGNORE_LINES.join(', ')})`
          : `added ${r.added.join(', ')} to .sow/.gitignore`;
      },
    );
  }
  const tracked = git(root, ['ls-files', '--', '.sow/.runtime', '.sow/.backup', '.sow/worktrees'])
    .split('\n')
    .filter(Boolean);
  if (tracked.length)
    return fail(
      `git tracks ${tracked.length} runtime file(s) of sow (${firstFew(tracked, ', ')}), which an ignore ` +
        `line does not untrack`,
      'git rm -r --cached .sow/.runtime .sow/.backup .sow/worktrees, then commit',
    );
  const seen = RUNTIME_SAMPLES.filter(
    (p) => !gitSucceeds(root, ['check-ignore', '-q', '--no-index', '--', val(p, 'a runtime path')]),
  );
  if (seen.length)
    return fail(
      `git does not ignore ${seen.join(', ')} although .sow/.gitignore lists their folders: another ignore ` +
        `rule takes them back`,
      `find the rule with 'git check-ignore -v --no-index ${seen[0]}' and remove it`,
    );
  return ok("git ignores sow's runtime files, backups and worktrees");
}

// Whether git merges `.sow/` with sow's driver: the committed attribute names it, git config says what it runs, and
// that command is found.
function mergeDriverCheck(app: AppContext, root: string): Verdict {
  const attribute = git(root, ['check-attr', 'merge', '--', '.sow/project/state.yaml']).split(': ').at(-1)?.trim();
  const command = configuredDriver(root);
  const problems: string[] = [];
  if (attribute !== 'sow')
    problems.push(
      attributesMissing(root)
        ? `${ATTRIBUTES_FILE} lacks '${ATTRIBUTES_LINE}'`
        : `another attributes rule takes .sow/ files from the merge driver (git says ` +
            `merge: ${attribute ?? 'unspecified'}; 'git check-attr -a -- .sow/project/state.yaml' shows them)`,
    );
  if (command === undefined) problems.push('git config has no merge.sow.driver');
  else if (!isSowDriver(command))
    problems.push(`git config merge.sow.driver is ${quoted(command)}, not '${MERGE_DRIVER}'`);
  if (problems.length) {
    const fixable = (attribute !== 'sow' && attributesMissing(root)) || command === undefined;
    const repair = () => {
      const did: string[] = [];
      const tx = new Transaction(root);
      const attributes = repairAttributesFile(root, tx);
      tx.commit();
      if (attributes) did.push(`${attributes === 'created' ? 'wrote' : 'added the line to'} ${ATTRIBUTES_FILE}`);
      const set = configureDriver(root);
      if (set.set.length) did.push(`set git config ${set.set.join(', ')}`);
      if (set.failed) throw new SowError('GIT_CONFIG_FAILED', 'external', `'git config' failed: ${set.failed}`);
      return did.join('; ');
    };
    return fail(
      `${problems.join('; ')}: git merges .sow/ files as text, and two branches that changed the same ` +
        `project conflict in them`,
      fixable ? `${FIX} (or 'sow init') registers it` : `git config merge.sow.driver '${MERGE_DRIVER}'`,
      fixable ? repair : undefined,
    );
  }
  if (findsSowOnPath(command!) && !findOnPath('sow', app.env))
    return warn(
      'git runs the merge driver for .sow/ files as sow from PATH, and no sow is on PATH: git merges them as ' +
        'text, and two branches that changed the same project conflict in them',
      "put sow on PATH (npm install -g sow-cli), or name it in full: git config merge.sow.driver '/path/to/sow " +
        "merge-driver %O %A %B %P'",
    );
  return ok(`git merges .sow/ files with ${quoted(command!)}`);
}

/** Files under .sow/ a merge left unmerged, with the fields and values the driver recorded for each. */
function mergeConflictsCheck(root: string): Verdict {
  const entries = git(root, ['ls-files', '-u', '-z', '--', '.sow']).split('\0').filter(Boolean);
  const unmerged = [...new Set(entries.map((line) => line.slice(line.indexOf('\t') + 1)))];
  if (unmerged.length === 0) return ok('no file under .sow/ is left unmerged');
  const records = new Map(conflictRecords(root).map((r) => [r.path, r]));
  const said = unmerged.map((path) => {
    const record = records.get(path);
    return record
      ? `${shown(path)}: ${describeConflicts(record.fields)}; it holds this branch's values`
      : `${shown(path)}: git's text merge left conflict markers in it`;
  });
  const first = unmerged[0]!;
  const how = records.has(first)
    ? 'so each field named holds the value you want'
    : 'to keep what both sides meant and remove the markers';
  return fail(
    `a merge stopped at ${unmerged.length} file(s) under .sow/: ${firstFew(said, '; ')}`,
    `edit ${shown(first)} ${how}, then 'git add ${shown(first)}' (and so on for each file), then 'git commit'`,
  );
}

function lockCheck(root: string): Verdict {
  const path = lockPath(root);
  const lock = inspectLock(path);
  if (!lock) return ok('no lock is held');
  const since = lock.since ? ` since ${lock.since}` : '';
  if (!lock.stale) return ok(`held by ${lock.holder}${since}: a sow command is writing`);
  return fail(
    `a stale lock: ${lock.holder} took it${since} and is gone`,
    `${FIX} removes it (the next sow command that writes would also take it over)`,
    () =>
      removeStaleLock(path) ? `removed the stale lock of ${lock.holder}` : 'the lock was no longer stale; left it',
  );
}

// `.sow/.runtime/`, `.sow/.backup/` in the work tree: left by an older sow or brought by the repository. sow reads
// nothing there; what was worth keeping moved to git's folder.
function legacyRuntimeCheck(root: string): Verdict {
  const found = legacyRuntimeFolders(root);
  if (!found.length) return ok(`sow's runtime files are in ${shownRuntime(root)}, where no commit can put any`);
  return warn(
    `${found.join(' and ')} ${found.length > 1 ? 'are' : 'is'} in the work tree, left by an older sow or ` +
      `brought by the repository; sow no longer reads ${found.length > 1 ? 'them' : 'it'} (its runtime files are ` +
      `in ${shownRuntime(root)})`,
    `look, then remove: 'rm -r ${found.join(' ')}'`,
  );
}

/** An unreadable journal is reported by the guard that runs every check, as its own failure. */
async function journalCheck(ctx: Context): Promise<Verdict> {
  const root = ctx.root!;
  if (!hasJournal(root)) return ok('no unfinished write');
  const { steps } = await inspectJournal(root, checkJournalText);
  const finish = async () => {
    await openRoot(ctx.app);
    return `finished the interrupted write (${steps} step(s))`;
  };
  return fail(
    `a write was cut short after its commit point (${shownRuntime(root, 'journal.json')}, ${steps} step(s) left)`,
    `${FIX} finishes it (so does the next sow command)`,
    ctx.layoutOk ? finish : undefined,
  );
}

export function worktreesCheck(ctx: Context): Verdict {
  const trees = listWorktrees(ctx.root!);
  const gone = trees.filter((t) => t.prunable);
  if (gone.length === 0) return ok(`${trees.length - 1} worktree(s) besides the main checkout; none to prune`);
  const prune = async () =>
    `forgot ${(await pruneWorktreesFor(ctx.app)).pruned.map((t) => t.branch ?? t.rel).join(', ')}`;
  return warn(
    `git still records ${gone.length} worktree(s) whose folder is ` +
      `gone: ${gone.map((t) => t.branch ?? t.path).join(', ')}`,
    `${FIX} (or 'sow worktree prune') forgets them`,
    ctx.layoutOk ? prune : undefined,
  );
}

/** The checks of how git keeps .sow/ (once it is initialised), by id, in the order shown. */
export const REPOSITORY_CHECKS: Record<string, (ctx: Context) => Verdict | Promise<Verdict>> = {
  gitignore: (ctx) => gitignoreCheck(ctx.root!),
  'merge-driver': (ctx) => mergeDriverCheck(ctx.app, ctx.root!),
  'merge-conflicts': (ctx) => mergeConflictsCheck(ctx.root!),
  lock: (ctx) => lockCheck(ctx.root!),
  journal: journalCheck,
  'legacy-runtime': (ctx) => legacyRuntimeCheck(ctx.root!),
};
