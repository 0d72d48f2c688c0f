/** The files of `.sow/project/` for `sow mcp`'s resources: regular files only, never through a link, read confined. */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readConfined, sowArea } from './confine.js';
import { quietly } from './io-errors.js';

/** A project holds a few hundred files; a listing stops well past any real one. */
export const MAX_LISTED = 20_000;
/** Documents beside the state files (a design, a review) may be longer than a state file. */
const MAX_BYTES = 4 * 1024 * 1024;

/** The regular files under `.sow/project/`, relative to it ('/' separated), in name order. */
export function listProjectFiles(root: string): string[] {
  const top = join(sowArea(root).base, 'project');
  const out: string[] = [];
  const walk = (abs: string, rel: string): void => {
    for (const name of quietly(() => readdirSync(abs).sort()) ?? []) {
      if (out.length >= MAX_LISTED) return;
      const st = lstatSync(join(abs, name), { throwIfNoEntry: false });
      if (!st) continue;
      const path = rel ? `${rel}/${name}` : name;
      if (st.isDirectory()) walk(join(abs, name), path);
      else if (st.isFile()) out.push(path);
    }
  };
  const st = lstatSync(top, { throwIfNoEntry: false });
  if (st?.isDirectory()) walk(top, '');
  return out;
}

/** A file of `.sow/project/`: its text, 'missing', or 'not-a-file' for a folder or a link (never followed). */
export function readProjectFile(root: string, rel: string): string | 'missing' | 'not-a-file' {
  const st = lstatSync(join(sowArea(root).base, 'project', rel), { throwIfNoEntry: false });
  if (!st) return 'missing';
  if (!st.isFile()) return 'not-a-file';
  return (
    readConfined(
      sowArea(root),
      `project/${rel}`,
      { max: MAX_BYTES, what: 'project files', why: 'a resource is a state file or a document, a few KB' },
      { display: `.sow/project/${rel}` },
    ) ?? 'missing'
  );
}
