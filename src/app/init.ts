import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot } from '../adapters/repo.js';

export const SCHEMA_VERSION = '1';

export const SOW_GITIGNORE = `# Runtime files sow writes; they are not part of the project's history.
.lock
.lock.takeover
.journal.json
.cache/
.trash-*
*.tmp
project/agent-outputs/
`;

export interface InitResult {
  root: string;
  created: string[];
  alreadyInitialised: boolean;
}

/** Creates .sow/ at the repository root; run again, it fills in whatever is missing. */
export function initWorkspace(cwd: string): InitResult {
  const root = findRepoRoot(cwd);
  const sow = join(root, '.sow');
  const alreadyInitialised = existsSync(sow);
  const created: string[] = [];
  const file = (rel: string, text: string) => {
    const abs = join(sow, rel);
    if (existsSync(abs)) return;
    mkdirSync(join(abs, '..'), { recursive: true });
    writeFileSync(abs, text);
    created.push(`.sow/${rel}`);
  };
  file('.version', `${SCHEMA_VERSION}\n`);
  file('.gitignore', SOW_GITIGNORE);
  file('knowledge/.gitkeep', '');
  file('refs/.gitkeep', '');
  return { root, created, alreadyInitialised };
}
