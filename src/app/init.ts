/** `sow init`: creates .sow/ at the repository root; run again, it fills in whatever is missing. */
import { LAYOUT_VERSION } from '../domain/schemas.js';
import { readFileIfExists } from '../adapters/files.js';
import { findRepoRoot } from '../adapters/repo.js';
import { Transaction } from '../adapters/transaction.js';
import { layoutVersion, VERSION_FILE } from './project-files.js';
import { MigrationNeededError } from '../domain/errors.js';
import { sowTooOld } from '../adapters/installation.js';
import { ATTRIBUTES_FILE, ATTRIBUTES_LINE, configureDriver, repairAttributesFile } from './merge-setup.js';

/** The lines `.sow/.gitignore` must hold; `sow init` adds any that are missing. */
export const GITIGNORE_LINES = ['.runtime/', '.backup/', 'worktrees/'];

export const SOW_GITIGNORE = `# Files sow writes while it runs (lock, journal, task index, worker events), the
# backups 'sow migrate' keeps, and the checkouts of 'sow worktree add': not part of the
# project's history.
${GITIGNORE_LINES.join('\n')}
`;

const IGNORE_FILE = '.sow/.gitignore';

/** The lines of GITIGNORE_LINES that `.sow/.gitignore` lacks (every one when there is no such file). */
export function missingIgnoreLines(root: string): string[] {
  const text = readFileIfExists(root, IGNORE_FILE);
  const have = new Set((text ?? '').split('\n').map((l) => l.trim()));
  return GITIGNORE_LINES.filter((l) => !have.has(l));
}

/** Adds what `.sow/.gitignore` lacks to `tx`: the whole file when there is none, else the missing lines at its end. */
export function repairIgnoreFile(root: string, tx: Transaction): { created: boolean; added: string[] } {
  const text = readFileIfExists(root, IGNORE_FILE);
  if (text === undefined) {
    tx.write(IGNORE_FILE, SOW_GITIGNORE);
    return { created: true, added: [...GITIGNORE_LINES] };
  }
  const missing = missingIgnoreLines(root);
  if (missing.length)
    tx.write(IGNORE_FILE, `${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${missing.join('\n')}\n`);
  return { created: false, added: missing };
}

/** What was made and repaired; `configured`: what was set in git config (the merge driver, decision 0058). */
export function initWorkspace(cwd: string) {
  const root = findRepoRoot(cwd);
  const alreadyInitialised = readFileIfExists(root, VERSION_FILE) !== undefined;
  if (alreadyInitialised) {
    const version = layoutVersion(root);
    if (version < LAYOUT_VERSION) throw new MigrationNeededError(version, LAYOUT_VERSION);
    if (version > LAYOUT_VERSION) throw sowTooOld(version, LAYOUT_VERSION);
  }
  const tx = new Transaction(root);
  const created: string[] = [];
  const repaired: string[] = [];
  const file = (rel: string, text: string) => {
    if (readFileIfExists(root, rel) !== undefined) return;
    tx.write(rel, text);
    created.push(rel);
  };
  const ignore = repairIgnoreFile(root, tx);
  if (ignore.created) created.push(IGNORE_FILE);
  else repaired.push(...ignore.added.map((l) => `${IGNORE_FILE}: ${l}`));
  const attributes = repairAttributesFile(root, tx);
  if (attributes === 'created') created.push(ATTRIBUTES_FILE);
  else if (attributes === 'added') repaired.push(`${ATTRIBUTES_FILE}: ${ATTRIBUTES_LINE}`);
  file('.sow/knowledge/.gitkeep', '');
  file('.sow/refs/.gitkeep', '');
  // Last, so a half-done init is not taken for a workspace.
  file(VERSION_FILE, `${LAYOUT_VERSION}\n`);
  tx.commit();
  // After the files: git config is not part of the transaction, and a failure there leaves a workspace that works (git
  // then merges .sow/ as text) and that doctor --fix completes.
  const driver = configureDriver(root);
  const warning =
    driver.failed &&
    `git merges .sow/ files as text until the merge driver is set in git config, which failed: ${driver.failed}; ` +
      `'sow doctor --fix' sets it`;
  return {
    root,
    created,
    repaired,
    alreadyInitialised,
    configured: driver.set,
    ...(warning ? { warnings: [warning] } : {}),
  };
}
