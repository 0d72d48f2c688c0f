// The record of `sow install` (`.sow/integrations.yaml`, or `.sow-install.yaml` in a plugin folder): a claim, never an
// order (decision 0025).
import { resolve, sep } from 'node:path';
import * as v from 'valibot';
import type { JsonAddition, Planned } from '../domain/integrations.js';
import { errorClass } from '../domain/errors.js';
import {
  confineReal,
  pathWithin,
  readConfined,
  repoArea,
  sowArea,
  type Area,
  type ReadLimits,
} from '../adapters/confine.js';
import { realPath } from '../adapters/files.js';
import { ignoring } from '../adapters/io-errors.js';
import { removeWithEmptyFolders, writeWhole } from '../adapters/integration-files.js';
import { findRepoRoot } from '../adapters/repo.js';
import { parseStateText } from '../adapters/state-files.js';
import { emitYaml } from '../adapters/yaml/emit.js';
import { openRoot } from './workspace.js';

export const RECORD = '.sow/integrations.yaml';
export const PLUGIN_RECORD = '.sow-install.yaml';

/** 1 MiB: the record lists the few dozen files sow installs, a few KB; anything much larger was not written by sow. */
const RECORD_LIMITS: ReadLimits = {
  max: 1024 * 1024,
  what: 'install records',
  why: 'a record lists a few dozen files in a few KB',
};

export interface RecordEntry {
  path: string;
  kind: Planned['kind'];
  /** file: of the whole file; section: of the section's content; json: of the whole file as sow last wrote it. */
  sha256?: string;
  /** json: what sow added. */
  add?: JsonAddition;
  /** json: the keys sow made (`hooks`, `hooks.Stop`, `mcpServers`), taken out again once empty. */
  made?: string[];
  /** Whether sow created the file (then removing its last part removes the file). */
  created?: boolean;
  targets: string[];
}

export class RecordUnreadableError extends errorClass(
  'INSTALL_RECORD_INVALID',
  'state',
  (file: string, problem: string) => [
    `${file}: ${problem}`,
    `fix or remove ${file} (sow then treats every file as not its own, and writes new versions beside edited ones)`,
    { file },
  ],
) {}

// The plugin folder named: inside the repository every link on the way must stay inside it; outside, taken as named.
// Either way sow stays inside that folder.
function pluginArea(cwd: string, dir: string): Area {
  const lexical = resolve(cwd, dir);
  const shown = `${dir.replace(/[\\/]+$/, '') || dir}/`;
  const name = `the plugin folder ${shown}`;
  const root = ignoring(['NOT_A_GIT_REPOSITORY'], () => findRepoRoot(cwd));
  const rel = root === undefined ? undefined : pathWithin(root, lexical);
  if (rel === undefined) return { base: realPath(lexical), name, shown };
  if (rel === '') return { ...repoArea(root!), name, shown };
  return { base: confineReal(repoArea(root!), rel.split(sep).join('/')), name, shown };
}

/** Where an install writes (the repository, or a plugin folder), where its record lives, and its name in messages. */
export async function placeOf(cwd: string, plugin: string | undefined) {
  if (plugin !== undefined) {
    const area = pluginArea(cwd, plugin);
    return {
      area,
      plugin: true,
      recordArea: area,
      recordRel: PLUGIN_RECORD,
      recordShown: `${area.shown}${PLUGIN_RECORD}`,
    };
  }
  const root = await openRoot({ cwd });
  return {
    area: repoArea(root),
    plugin: false,
    recordArea: sowArea(root),
    recordRel: 'integrations.yaml',
    recordShown: RECORD,
  };
}

/** What every entry must have; the rest is a claim, checked against sow's plan where it is used. */
const ENTRIES = v.array(
  v.looseObject({ path: v.string(), kind: v.picklist(['file', 'json', 'section']), targets: v.array(v.string()) }),
);
export const isHash = (x: unknown): x is string => typeof x === 'string' && /^[0-9a-f]{64}$/.test(x);

type Place = Awaited<ReturnType<typeof placeOf>>;

export async function readRecord(place: Place): Promise<{ text: string | undefined; entries: RecordEntry[] }> {
  const text = readConfined(place.recordArea, place.recordRel, RECORD_LIMITS, { display: place.recordShown });
  if (text === undefined) return { text, entries: [] };
  const data = (await parseStateText(place.recordShown, text)).data as { files?: unknown } | null;
  const files = data?.files ?? [];
  if (!v.is(ENTRIES, files))
    throw new RecordUnreadableError(place.recordShown, "'files' must be a list of {path, kind, targets, …}");
  return { text, entries: files as RecordEntry[] };
}

const RECORD_HEADER =
  '# Written by `sow install`: what it wrote, so that installing again upgrades only that and\n' +
  '# `sow uninstall` removes only that. Commit it with the files.\n';

export function saveRecord(place: Place, before: string | undefined, entries: readonly RecordEntry[]): void {
  if (entries.length === 0) {
    if (before !== undefined) removeWithEmptyFolders(place.recordArea, place.recordRel);
    return;
  }
  const text = `${RECORD_HEADER}${emitYaml({ files: entries.map((e) => ({ ...e })) })}`;
  if (text !== before) writeWhole(place.recordArea, place.recordRel, text, false);
}
