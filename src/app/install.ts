/**
 * `sow install <target>` and `sow uninstall <target>`: the agent CLIs' view of sow, written from
 * sow's templates, and recorded (path, what kind of change, content hash, which targets use it)
 * so that installing again upgrades exactly what sow wrote and leaves what the person edited
 * alone (the new version goes beside it), and uninstalling removes exactly what sow wrote.
 * See docs/decisions/0025-integrations.md.
 */
import { resolve } from 'node:path';
import {
  COMMANDS, mergeJson, parseTarget, planPlugin, planRepository, sectionOf, sha256, unmergeJson, withoutSection, withSection,
  type CommandName, type IntegrationSources, type JsonAddition, type Planned, type Target,
} from '../domain/integrations.js';
import { SowError } from '../domain/errors.js';
import { readIfExists, removeFolderIfEmpty, removeWithEmptyFolders, writeWhole } from '../adapters/integration-files.js';
import { parseStateText } from '../adapters/state-files.js';
import { readTemplate } from '../adapters/templates.js';
import { emitYaml } from '../adapters/yaml/emit.js';
import { openRoot } from './workspace.js';

export const RECORD = '.sow/integrations.yaml';
export const PLUGIN_RECORD = '.sow-install.yaml';

interface RecordEntry {
  path: string;
  kind: Planned['kind'];
  /** file: of the whole file; section: of the section's content. */
  sha256?: string;
  /** json: what sow added. */
  add?: JsonAddition;
  /** Whether sow created the file (then removing its last part removes the file). */
  created?: boolean;
  targets: string[];
}

export type Outcome = 'created' | 'updated' | 'unchanged' | 'kept' | 'removed' | 'left' | 'skipped';
export interface FileResult {
  path: string;
  outcome: Outcome;
  /** Why, for kept, left and skipped; where the new version went, for kept. */
  note?: string;
}

export class RecordUnreadableError extends SowError {
  constructor(file: string, problem: string) {
    super('INSTALL_RECORD_INVALID', 'state', `${file}: ${problem}`, `fix or remove ${file} (sow then treats every file as not its own, and writes new versions beside edited ones)`, { file });
  }
}

function sources(version: string): IntegrationSources {
  const commands = Object.fromEntries(COMMANDS.map((c) => [c, readTemplate(`integrations/commands/${c}.md`)])) as Record<CommandName, string>;
  return { skill: readTemplate('integrations/skill.md'), agentsSection: readTemplate('integrations/agents-section.md'), agent: readTemplate('integrations/agent.md'), commands, version };
}

async function readRecord(base: string, rel: string): Promise<RecordEntry[]> {
  const text = readIfExists(base, rel);
  if (text === undefined) return [];
  const data = (await parseStateText(rel, text)).data as { files?: unknown } | null;
  const files = data?.files ?? [];
  if (!Array.isArray(files) || !files.every((f) => typeof f === 'object' && f !== null && typeof (f as RecordEntry).path === 'string' && Array.isArray((f as RecordEntry).targets))) {
    throw new RecordUnreadableError(rel, "'files' must be a list of {path, kind, targets, …}");
  }
  return files as RecordEntry[];
}

function writeRecord(base: string, rel: string, entries: readonly RecordEntry[]): void {
  if (entries.length === 0) {
    removeWithEmptyFolders(base, rel);
    return;
  }
  const header = '# Written by `sow install`: what it wrote, so that installing again upgrades only that and\n# `sow uninstall` removes only that. Commit it with the files.\n';
  writeWhole(base, rel, `${header}${emitYaml({ files: entries.map((e) => ({ ...e })) })}`);
}

const besides = (path: string) => `${path}.sow-new`;

function parseJson(path: string, text: string): Record<string, unknown> | undefined {
  try {
    const data: unknown = JSON.parse(text);
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Installs one planned change; updates `entries` in place. */
function installOne(base: string, p: Planned, target: Target, entries: RecordEntry[]): FileResult {
  const rec = entries.find((e) => e.path === p.path);
  const current = readIfExists(base, p.path);
  const remember = (fields: Partial<RecordEntry>) => {
    if (rec) {
      Object.assign(rec, fields);
      if (!rec.targets.includes(target)) rec.targets.push(target);
    } else entries.push({ path: p.path, kind: p.kind, ...fields, targets: [target] });
  };
  switch (p.kind) {
    case 'file': {
      const hash = sha256(p.content);
      if (current === undefined) {
        writeWhole(base, p.path, p.content);
        remember({ sha256: hash, created: true });
        return { path: p.path, outcome: 'created' };
      }
      if (current === p.content) {
        remember({ sha256: hash, ...(rec ? {} : { created: false }) });
        return { path: p.path, outcome: 'unchanged' };
      }
      if (rec?.sha256 !== undefined && sha256(current) === rec.sha256) {
        writeWhole(base, p.path, p.content);
        remember({ sha256: hash });
        return { path: p.path, outcome: 'updated' };
      }
      writeWhole(base, besides(p.path), p.content);
      if (rec && !rec.targets.includes(target)) rec.targets.push(target);
      return { path: p.path, outcome: 'kept', note: `${rec ? 'you edited it' : 'sow did not write it'}; the new version is in ${besides(p.path)}` };
    }
    case 'json': {
      const data = current === undefined ? {} : parseJson(p.path, current);
      if (data === undefined) return { path: p.path, outcome: 'skipped', note: 'it is not a JSON object sow can read, so it was left as it is; fix it and install again' };
      let merged: Record<string, unknown>;
      try {
        merged = mergeJson(data, p.add, p.path);
      } catch (err) {
        if (!(err instanceof SowError)) throw err;
        return { path: p.path, outcome: 'skipped', note: err.message };
      }
      const text = `${JSON.stringify(merged, null, 2)}\n`;
      remember({ add: p.add, ...(rec ? {} : { created: current === undefined }) });
      if (current !== undefined && JSON.stringify(merged) === JSON.stringify(data)) return { path: p.path, outcome: 'unchanged' };
      writeWhole(base, p.path, text);
      return { path: p.path, outcome: current === undefined ? 'created' : 'updated' };
    }
    case 'section': {
      const text = current ?? '';
      const existing = sectionOf(text);
      const hash = sha256(p.content);
      if (existing === undefined) {
        writeWhole(base, p.path, withSection(text, p.content));
        remember({ sha256: hash, ...(rec ? {} : { created: current === undefined }) });
        return { path: p.path, outcome: current === undefined ? 'created' : 'updated' };
      }
      if (existing === p.content) {
        remember({ sha256: hash, ...(rec ? {} : { created: false }) });
        return { path: p.path, outcome: 'unchanged' };
      }
      if (rec?.sha256 !== undefined && sha256(existing) === rec.sha256) {
        writeWhole(base, p.path, withSection(text, p.content));
        remember({ sha256: hash });
        return { path: p.path, outcome: 'updated' };
      }
      writeWhole(base, besides(p.path), withSection('', p.content));
      if (rec && !rec.targets.includes(target)) rec.targets.push(target);
      return { path: p.path, outcome: 'kept', note: `you edited sow's section; the new section is in ${besides(p.path)}` };
    }
  }
}

function uninstallOne(base: string, rec: RecordEntry): FileResult {
  const current = readIfExists(base, rec.path);
  if (current === undefined) return { path: rec.path, outcome: 'removed', note: 'it was already gone' };
  switch (rec.kind) {
    case 'file':
      if (rec.sha256 !== undefined && sha256(current) !== rec.sha256) return { path: rec.path, outcome: 'left', note: 'you edited it; remove it yourself if you no longer want it' };
      if (rec.created === false) return { path: rec.path, outcome: 'left', note: 'it was there before sow installed' };
      removeWithEmptyFolders(base, rec.path);
      return { path: rec.path, outcome: 'removed' };
    case 'json': {
      const data = parseJson(rec.path, current);
      if (data === undefined || !rec.add) return { path: rec.path, outcome: 'left', note: 'it is not a JSON object sow can read; remove its sow entries yourself' };
      const rest = unmergeJson(data, rec.add);
      if (Object.keys(rest).length === 0 && rec.created) removeWithEmptyFolders(base, rec.path);
      else writeWhole(base, rec.path, `${JSON.stringify(rest, null, 2)}\n`);
      return { path: rec.path, outcome: 'removed', note: "sow's entries" };
    }
    case 'section': {
      const existing = sectionOf(current);
      if (existing === undefined) return { path: rec.path, outcome: 'removed', note: 'its section was already gone' };
      if (rec.sha256 !== undefined && sha256(existing) !== rec.sha256) return { path: rec.path, outcome: 'left', note: "you edited sow's section; remove it yourself" };
      const rest = withoutSection(current);
      if (rest === '' && rec.created) removeWithEmptyFolders(base, rec.path);
      else writeWhole(base, rec.path, rest);
      return { path: rec.path, outcome: 'removed', note: "sow's section" };
    }
  }
}

export interface InstallResult {
  targets: Target[];
  /** The folder written into: the repository root, or the plugin folder. */
  base: string;
  plugin: boolean;
  files: FileResult[];
}

export interface InstallOptions {
  plugin?: string;
  withMcp?: boolean;
  version: string;
}

export async function install(cwd: string, rawTarget: string, opts: InstallOptions): Promise<InstallResult> {
  const targets = parseTarget(rawTarget);
  if (opts.plugin !== undefined && (targets.length !== 1 || targets[0] !== 'claude')) {
    throw new SowError('USAGE', 'usage', '--plugin is for the claude target', `sow install claude --plugin ${opts.plugin}`);
  }
  const src = sources(opts.version);
  const base = opts.plugin !== undefined ? resolve(cwd, opts.plugin) : await openRoot(cwd);
  const recordPath = opts.plugin !== undefined ? PLUGIN_RECORD : RECORD;
  const entries = await readRecord(base, recordPath);
  const files: FileResult[] = [];
  for (const target of targets) {
    const plan = opts.plugin !== undefined ? planPlugin(src, { withMcp: opts.withMcp === true }) : planRepository(target, src, { withMcp: opts.withMcp === true });
    for (const p of plan) {
      if (files.some((f) => f.path === p.path)) {
        // A file two targets share (.agents/skills/sow/SKILL.md, AGENTS.md): written once, used by both.
        const rec = entries.find((e) => e.path === p.path);
        if (rec && !rec.targets.includes(target)) rec.targets.push(target);
        continue;
      }
      files.push(installOne(base, p, target, entries));
    }
  }
  writeRecord(base, recordPath, entries);
  return { targets, base, plugin: opts.plugin !== undefined, files };
}

export async function uninstall(cwd: string, rawTarget: string, opts: { plugin?: string }): Promise<InstallResult> {
  const targets = parseTarget(rawTarget);
  const base = opts.plugin !== undefined ? resolve(cwd, opts.plugin) : await openRoot(cwd);
  const recordPath = opts.plugin !== undefined ? PLUGIN_RECORD : RECORD;
  const entries = await readRecord(base, recordPath);
  const files: FileResult[] = [];
  const kept: RecordEntry[] = [];
  for (const rec of entries) {
    const remaining = rec.targets.filter((t) => !(targets as string[]).includes(t));
    if (remaining.length === rec.targets.length) {
      kept.push(rec);
      continue;
    }
    if (remaining.length > 0) {
      kept.push({ ...rec, targets: remaining });
      files.push({ path: rec.path, outcome: 'left', note: `still used by ${remaining.join(', ')}` });
      continue;
    }
    files.push(uninstallOne(base, rec));
  }
  writeRecord(base, recordPath, kept);
  // A plugin folder that held only what sow wrote goes with it.
  if (opts.plugin !== undefined) removeFolderIfEmpty(base);
  return { targets, base, plugin: opts.plugin !== undefined, files };
}
