/** `sow init`: creates .sow/ at the repository root; run again, it fills in whatever is missing. */
import { LAYOUT_VERSION } from '../domain/schemas.js';
import { readFileIfExists } from '../adapters/files.js';
import { findRepoRoot } from '../adapters/repo.js';
import { Transaction } from '../adapters/transaction.js';
import { layoutVersion, VERSION_FILE } from './workspace.js';
import { MigrationNeededError, SowTooOldError } from '../domain/errors.js';

/** The lines `.sow/.gitignore` must hold; `sow init` adds any that are missing. */
export const GITIGNORE_LINES = ['.runtime/', '.backup/', 'worktrees/'];

export const SOW_GITIGNORE = `# Files sow writes while it runs (lock, journal, task index, worker events), the
# backups 'sow migrate' keeps, and the checkouts of 'sow worktree add': not part of the
# project's history.
${GITIGNORE_LINES.join('\n')}
`;

export interface InitResult {
  root: string;
  created: string[];
  repaired: string[];
  alreadyInitialised: boolean;
}

export function initWorkspace(cwd: string): InitResult {
  const root = findRepoRoot(cwd);
  const alreadyInitialised = readFileIfExists(root, VERSION_FILE) !== undefined;
  if (alreadyInitialised) {
    const version = layoutVersion(root);
    if (version < LAYOUT_VERSION) throw new MigrationNeededError(version, LAYOUT_VERSION);
    if (version > LAYOUT_VERSION) throw new SowTooOldError(version, LAYOUT_VERSION);
  }
  const tx = new Transaction(root);
  const created: string[] = [];
  const repaired: string[] = [];
  const file = (rel: string, text: string) => {
    if (readFileIfExists(root, rel) !== undefined) return;
    tx.write(rel, text);
    created.push(rel);
  };
  const gitignore = readFileIfExists(root, '.sow/.gitignore');
  if (gitignore === undefined) file('.sow/.gitignore', SOW_GITIGNORE);
  else {
    const have = new Set(gitignore.split('\n').map((l) => l.trim()));
    const missing = GITIGNORE_LINES.filter((l) => !have.has(l));
    if (missing.length) {
      tx.write('.sow/.gitignore', `${gitignore}${gitignore.endsWith('\n') || gitignore === '' ? '' : '\n'}${missing.join('\n')}\n`);
      repaired.push(...missing.map((l) => `.sow/.gitignore: ${l}`));
    }
  }
  file('.sow/knowledge/.gitkeep', '');
  file('.sow/refs/.gitkeep', '');
  // Last, so a half-done init is not taken for a workspace.
  file(VERSION_FILE, `${LAYOUT_VERSION}\n`);
  tx.commit();
  return { root, created, repaired, alreadyInitialised };
}
