// `sow install|uninstall <target>`: written from templates and recorded by hash, so reinstalling upgrades exactly what
// sow wrote and uninstalling removes only that; every path is checked before any change (decision 0025).
import {
  besides,
  besideText,
  claimedAddition,
  COMMANDS,
  claimedMade,
  unionAddition,
  removeFromJson,
  sectionOf,
  sha256,
  addToJson,
  withoutSection,
  withSection,
  type CommandName,
  type IntegrationSources,
  type Planned,
} from '../domain/integrations.js';
import type { ExecutorType as Target } from '../domain/config-schemas.js';
import { EXECUTORS, installTargets } from '../adapters/executors/registry.js';
import { printable } from '../domain/display.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../domain/json-text.js';
import { errorClass, notOneOf, UsageError } from '../domain/errors.js';
import type { Area } from '../adapters/confine.js';
import {
  checkWritable,
  inspect,
  removeFolderIfEmpty,
  removeWithEmptyFolders,
  writeWhole,
} from '../adapters/integration-files.js';
import { readTemplate } from '../adapters/templates.js';
import { quietly } from '../adapters/io-errors.js';
import { isRecord } from '../domain/json.js';
import { isHash, placeOf, readRecord, saveRecord, type RecordEntry } from './install-record.js';

export type Outcome = 'created' | 'updated' | 'unchanged' | 'kept' | 'removed' | 'left' | 'skipped';
export interface FileResult {
  path: string;
  outcome: Outcome;
  /** Why, for kept, left and skipped; where the new version went, for kept. */
  note?: string;
}

/** The result for one path, said by outcome and why. */
const saying =
  (path: string) =>
  (outcome: Outcome, note?: string): FileResult => ({ path, outcome, ...(note ? { note } : {}) });

/** A JSON file nested deeper than any settings file: refused before parsing (which would recurse that deep). */
export class JsonTooDeepError extends errorClass('JSON_TOO_DEEP', 'state', (file: string) => [
  `${file} nests maps and lists more than ${MAX_JSON_DEPTH} levels deep; settings files nest a few, so sow ` +
    `does not read it`,
  `sow changed nothing; look at ${file}: if it came with the repository, restore it ('git checkout ` +
    `-- ${file}') or remove it, then retry`,
  { path: file },
]) {}

function sources(version: string): IntegrationSources {
  const commands = Object.fromEntries(
    COMMANDS.map((c) => [c, readTemplate(`integrations/commands/${c}.md`)]),
  ) as Record<CommandName, string>;
  return {
    skill: readTemplate('integrations/skill.md'),
    agentsSection: readTemplate('integrations/agents-section.md'),
    agent: readTemplate('integrations/agent.md'),
    commands,
    version,
  };
}

/** A change to make once every path has been checked. */
type Step = { op: 'write'; rel: string; text: string; follow: boolean } | { op: 'remove'; rel: string };

function apply(area: Area, steps: readonly Step[]): void {
  for (const s of steps) {
    if (s.op === 'write') writeWhole(area, s.rel, s.text, s.follow);
    else removeWithEmptyFolders(area, s.rel);
  }
}

/** Whether JSON text is an object sow can read; one nested deeper than settings ever are is refused (exit 4). */
function isJsonObject(shown: string, text: string): boolean {
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new JsonTooDeepError(shown);
  return isRecord(quietly(() => JSON.parse(text)));
}

/** Plans one change: reads what is there (checking its path), adds the writes to `steps`, updates `entries`. */
function planInstall(area: Area, p: Planned, target: Target, entries: RecordEntry[], steps: Step[]): FileResult {
  const found = entries.find((e) => e.path === p.path);
  // A record of another kind for this path is no claim of sow's on it.
  const rec = found?.kind === p.kind ? found : undefined;
  const shown = `${area.shown ?? ''}${p.path}`;
  const said = saying(p.path);
  const withTarget = (targets: string[]) => (targets.includes(target) ? targets : [...targets, target]);
  /** The record's entry for `path` says `fields` now, with this target; one of another kind is replaced whole. */
  const upsert = (path: string, kind: Planned['kind'], fields: Partial<RecordEntry>) => {
    const prior = entries.find((e) => e.path === path);
    const entry = { path, kind, ...fields, targets: withTarget(prior?.targets ?? []) };
    if (!prior) entries.push(entry);
    else if (prior.kind === kind) Object.assign(prior, entry);
    else entries.splice(entries.indexOf(prior), 1, entry);
  };
  const remember = (fields: Partial<RecordEntry>) => upsert(p.path, p.kind, fields);
  const write = (text: string, follow: boolean) => {
    checkWritable(area, p.path);
    steps.push({ op: 'write', rel: p.path, text, follow });
  };
  /** The new version beside the person's file, recorded as sow's own file. */
  const beside = (why: string): FileResult => {
    const rel = besides(p.path);
    checkWritable(area, rel);
    const text = besideText(p)!;
    steps.push({ op: 'write', rel, text, follow: false });
    upsert(rel, 'file', { sha256: sha256(text), created: true });
    if (found) found.targets = withTarget(found.targets);
    return said(
      'kept',
      `${why}; the new ${p.kind === 'section' ? 'section' : 'version'} is in ${area.shown ?? ''}${rel}`,
    );
  };
  if (p.kind === 'json') {
    const { text: current } = inspect(area, p.path);
    if (current !== undefined && !isJsonObject(shown, current))
      return said('skipped', 'it is not a JSON object sow can read, so it was left as it is; fix it and install again');
    const edit = addToJson(current, p.add, p.path);
    remember({
      add: unionAddition(claimedAddition(rec?.add, p.add), edit.added),
      made: [...new Set([...claimedMade(rec?.made, p.add), ...edit.made])],
      sha256: sha256(edit.text),
      created: current === undefined || (rec?.created ?? false),
    });
    if (edit.text === current) return said('unchanged');
    write(edit.text, true);
    return said(current === undefined ? 'created' : 'updated');
  }
  // A whole file, or a section of the person's file: what sow owns of what is there is `ours`.
  const { text: current, link } = inspect(area, p.path);
  const file = p.kind === 'file';
  // sow writes files, never links: a link there was made by someone else.
  if (file && link) return beside('it is a link, which sow never makes, so it is left as it is');
  const ours = file ? current : sectionOf(current ?? '');
  const next = file ? p.content : withSection(current ?? '', p.content);
  const hash = sha256(p.content);
  if (ours === undefined) {
    write(next, !file);
    remember({ sha256: hash, created: current === undefined || (rec?.created ?? false) });
    return said(current === undefined ? 'created' : 'updated');
  }
  if (ours === p.content) {
    remember({ sha256: hash, created: rec?.created ?? false });
    return said('unchanged');
  }
  if (rec?.sha256 !== undefined && sha256(ours) === rec.sha256) {
    write(next, !file);
    remember({ sha256: hash });
    return said('updated');
  }
  return beside(!file ? "you edited sow's section" : rec ? 'you edited it' : 'sow did not write it');
}

/** Plans taking out one recorded change whose path and kind sow's plan confirms (`planned`). */
function planUninstall(area: Area, rec: RecordEntry, planned: Planned, steps: Step[]): FileResult {
  const shown = `${area.shown ?? ''}${rec.path}`;
  const said = saying(rec.path);
  const { text: current, link } = inspect(area, rec.path);
  if (current === undefined && !link) return said('removed', 'it was already gone');
  const write = (text: string) => steps.push({ op: 'write', rel: rec.path, text, follow: true });
  const remove = () => steps.push({ op: 'remove', rel: rec.path });
  if (planned.kind === 'file') {
    if (link) return said('left', 'it is a link, which sow never makes; remove it yourself if you no longer want it');
    if (sha256(current!) !== rec.sha256)
      return said('left', 'it is not what sow wrote (you edited it); remove it yourself if you no longer want it');
    if (rec.created === false) return said('left', 'it was there before sow installed');
    remove();
    return said('removed');
  }
  if (current === undefined) return said('removed', 'it was already gone');
  if (planned.kind === 'json') {
    if (!isJsonObject(shown, current))
      return said('left', 'it is not a JSON object sow can read; remove its sow entries yourself');
    // Created by sow and not changed since: the whole file is sow's.
    if (rec.created === true && !link && isHash(rec.sha256) && sha256(current) === rec.sha256) {
      remove();
      return said('removed');
    }
    const rest = removeFromJson(current, claimedAddition(rec.add, planned.add), claimedMade(rec.made, planned.add));
    if (rest === current) return said('removed', "none of sow's entries were left in it");
    write(rest);
    return said('removed', "sow's entries");
  }
  const existing = sectionOf(current);
  if (existing === undefined) return said('removed', 'its section was already gone');
  if (sha256(existing) !== rec.sha256) return said('left', "you edited sow's section; remove it yourself");
  const rest = withoutSection(current);
  if (rest === '' && rec.created === true && !link) remove();
  else write(rest);
  return said('removed', "sow's section");
}

/** The agent CLIs a word names: one with an install target, or all of them. */
export function parseTarget(raw: string): Target[] {
  const targets = installTargets();
  if (raw === 'all') return targets;
  if ((targets as string[]).includes(raw)) return [raw as Target];
  throw notOneOf('target', raw, [...targets, 'all']);
}

function targetsFor(rawTarget: string, plugin: string | undefined, verb: 'install' | 'uninstall'): Target[] {
  const targets = parseTarget(rawTarget);
  if (plugin !== undefined && (targets.length !== 1 || !EXECUTORS[targets[0]!].integration?.plugin)) {
    const able = installTargets().filter((t) => EXECUTORS[t].integration?.plugin);
    throw new UsageError(`--plugin is for the ${able.join(', ')} target`, `sow ${verb} ${able[0]} --plugin ${plugin}`);
  }
  return targets;
}

/** What sow writes for `target`: into the repository, or as a plugin. */
function planOf(target: Target, src: IntegrationSources, plugin: boolean, withMcp: boolean): Planned[] {
  const integration = EXECUTORS[target].integration!;
  return plugin ? integration.plugin!(src, { withMcp }) : integration.repository(src, { withMcp });
}

export async function install(
  cwd: string,
  rawTarget: string,
  opts: { plugin?: string; withMcp?: boolean; version: string },
) {
  const targets = targetsFor(rawTarget, opts.plugin, 'install');
  const src = sources(opts.version);
  const place = await placeOf(cwd, opts.plugin);
  const { text: recordBefore, entries } = await readRecord(place);
  // First every path is checked and every file read (the record's too, above); only then is anything written.
  const files: FileResult[] = [];
  const steps: Step[] = [];
  for (const target of targets) {
    for (const p of planOf(target, src, place.plugin, opts.withMcp === true)) {
      if (files.some((f) => f.path === p.path)) {
        // A file two targets share (.agents/skills/sow/SKILL.md, AGENTS.md): written once, used by both.
        for (const e of entries)
          if ((e.path === p.path || e.path === besides(p.path)) && !e.targets.includes(target)) e.targets.push(target);
        continue;
      }
      files.push(planInstall(place.area, p, target, entries, steps));
    }
  }
  apply(place.area, steps);
  saveRecord(place, recordBefore, entries);
  return { targets, base: place.area.base, plugin: place.plugin, files, warnings: [] };
}

// Every change sow's install makes for `target`, with every option, by path; and the `.sow-new` file beside each, with
// the path it is beside (`of`).
function installable(src: IntegrationSources, target: Target, plugin: boolean) {
  const out = new Map<string, { planned: Planned; of?: string }>();
  for (const p of planOf(target, src, plugin, true)) {
    out.set(p.path, { planned: p });
    const text = besideText(p);
    if (text !== undefined)
      out.set(besides(p.path), { planned: { kind: 'file', path: besides(p.path), content: text }, of: p.path });
  }
  return out;
}

export async function uninstall(cwd: string, rawTarget: string, opts: { plugin?: string; version?: string }) {
  const targets = targetsFor(rawTarget, opts.plugin, 'uninstall');
  const src = sources(opts.version ?? '0.0.0');
  const place = await placeOf(cwd, opts.plugin);
  const { text: recordBefore, entries } = await readRecord(place);
  const plans = new Map(targets.map((t) => [t, installable(src, t, place.plugin)]));
  const known: string[] = installTargets();
  // As for install: every path checked and every file read before the first removal.
  const files: FileResult[] = [];
  const warnings: string[] = [];
  const steps: Step[] = [];
  const kept: RecordEntry[] = [];
  const ignore = (path: string, note: string, warning: string) => {
    files.push({ path, outcome: 'left', note });
    warnings.push(`${place.recordShown} names ${printable(path)} ${warning}; sow left it as it is`);
  };
  for (const rec of entries) {
    const mine = targets.filter((t) => rec.targets.includes(t));
    if (mine.length === 0) {
      kept.push(rec);
      continue;
    }
    const remaining = rec.targets.filter((t) => known.includes(t) && !(targets as string[]).includes(t));
    if (remaining.length > 0) {
      kept.push({ ...rec, targets: remaining });
      files.push({ path: rec.path, outcome: 'left', note: `still used by ${remaining.join(', ')}` });
      continue;
    }
    // The record is a claim: sow acts only on what its own install for these targets writes.
    const planned = mine.map((t) => plans.get(t)!.get(rec.path)).find((x) => x !== undefined);
    if (!planned || planned.planned.kind !== rec.kind) {
      const what = rec.kind === 'file' ? 'a file' : rec.kind === 'json' ? 'JSON settings' : 'a section';
      ignore(
        rec.path,
        `sow does not install it for ${mine.join(', ')}`,
        `as ${what} of sow's, but sow's install for ${mine.join(', ')} writes no ${what.replace(/^a /, '')} there`,
      );
      continue;
    }
    // Files and sections are sow's only by their hash; JSON entries by their content (the hash decides only whether
    // the file goes), so an older record without a hash still takes them out.
    if (!isHash(rec.sha256) && rec.kind !== 'json') {
      ignore(
        rec.path,
        'the record has no content hash for it',
        'without a content hash, so sow cannot tell that what is there is what it wrote (remove it yourself if you ' +
          'no longer want it)',
      );
      continue;
    }
    files.push(planUninstall(place.area, rec, planned.planned, steps));
  }
  // `.sow-new` files the record does not name (an older sow left them): sow's when they hold what sow writes there.
  const named = new Set(entries.map((e) => e.path));
  const stillUsed = new Set(kept.map((e) => e.path));
  for (const plan of plans.values()) {
    for (const [path, { planned, of }] of plan) {
      if (of === undefined || named.has(path) || stillUsed.has(of) || files.some((f) => f.path === path)) continue;
      const { text, link } = inspect(place.area, path);
      if (text === undefined || link || text !== besideText(planned)) continue;
      steps.push({ op: 'remove', rel: path });
      files.push({ path, outcome: 'removed' });
    }
  }
  apply(place.area, steps);
  saveRecord(place, recordBefore, kept);
  // A plugin folder that held only what sow wrote goes with it.
  if (place.plugin) removeFolderIfEmpty(place.area.base);
  return { targets, base: place.area.base, plugin: place.plugin, files, warnings };
}
