// A safe worker's agent CLI settings files must not widen it: each executor module names the files and what widens,
// read here confined to the folder.
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { confine, readConfined, repoArea, type ReadLimits } from './confine.js';
import { ignoring, MISSING } from './io-errors.js';
import type { ExecutorModule } from './executors/types.js';

const LIMITS: ReadLimits = { max: 1024 * 1024, what: "agent CLIs' settings files", why: 'a settings file is a few KB' };

/** The files of `pattern` under `folder`: itself, or (a `*` in its last part) each matching file of that folder. */
function filesOf(folder: string, pattern: string): string[] {
  const slash = pattern.lastIndexOf('/');
  const dir = slash < 0 ? '' : pattern.slice(0, slash);
  const name = pattern.slice(slash + 1);
  if (!name.includes('*')) return [pattern];
  // The folder is confined first: a link out of the repository is refused, never listed.
  const names = ignoring(MISSING, () => readdirSync(dir ? confine(repoArea(folder), dir) : folder)) ?? [];
  const re = new RegExp(`^${name.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
  return names
    .filter((n) => re.test(n))
    .sort()
    .map((n) => (dir ? `${dir}/${n}` : n));
}

/** What in the CLI's own settings files of `folders` (repository first) widens a safe worker on `transport`. */
export function wideningSettings(
  spec: ExecutorModule,
  transport: 'cli' | 'acp',
  folders: readonly string[],
): { file: string; settings: string[] }[] {
  const check = spec.widening?.check?.(transport);
  if (!check) return [];
  const found: { file: string; settings: string[] }[] = [];
  for (const folder of [...new Set(folders)]) {
    for (const [pattern, widens] of Object.entries(check)) {
      for (const rel of filesOf(folder, pattern)) {
        // A folder where a file is expected, a device: not a settings file the CLI reads.
        const text = ignoring(['NOT_A_FILE'], () => readConfined(repoArea(folder), rel, LIMITS));
        if (text === undefined) continue;
        const settings = widens(text);
        // A file in a worker's checkout is named from the repository (the first folder), so that it can be found.
        const shown = folder === folders[0] ? rel : relative(folders[0]!, join(folder, rel)).split(sep).join('/');
        if (settings.length) found.push({ file: shown, settings });
      }
    }
  }
  return found;
}
