// `sow merge-driver` (decision 0058): git hands it the three versions of a `.sow/` file both branches changed (%O %A
// %B, path %P) and takes the merge from %A. The files may be hostile: read as regular files inside git's folder, with
// state-file size limits and the guarded parser, never run; what it does not understand goes to `git merge-file`.
import { SowError } from '../domain/errors.js';
import { quoted, shown } from '../domain/display.js';
import { toJson } from '../domain/json.js';
import { mergeData, mergeKindOf, mergeLog, type FieldConflict, type MergeKind } from '../domain/merge.js';
import * as v from 'valibot';
import { builtWhenUsed, check } from '../domain/schema-check.js';
import { ProjectStateSchema, TaskStateSchema } from '../domain/schemas.js';
import type { ReadLimits } from '../adapters/confine.js';
import { DOCUMENT_LIMITS } from '../adapters/files.js';
import { gitRun, val } from '../adapters/git.js';
import {
  forgetConflictRecord,
  gitTempFile,
  readConflictRecords,
  readGitTempFile,
  TempFileTooLarge,
  writeConflictRecord,
  writeGitTempFile,
} from '../adapters/merge-files.js';
import { MAX_STATE_BYTES, parseStateText } from '../adapters/state-files.js';
import { editYaml } from '../adapters/yaml/document.js';
import { emitYaml } from '../adapters/yaml/emit.js';

const SIDES = ['base', 'ours', 'theirs'] as const;
type Side = (typeof SIDES)[number];

/** Where conflicts are recorded for `sow doctor`, in the runtime folder (git's own folder: never committed). */
const CONFLICTS_FOLDER = 'merge-conflicts';

type ConflictRecord = { path: string; at: string; fields: FieldConflict[] };

/** A value of a conflict, on one line: a string in quotes, anything else as JSON; "nothing" where a side removed it. */
function showValue(v: unknown): string {
  if (v === undefined) return 'nothing (removed)';
  const text = typeof v === 'string' ? v : toJson(v);
  return quoted(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

export function describeConflicts(fields: readonly FieldConflict[], max = 3): string {
  const shown = fields
    .slice(0, max)
    .map((f) => `${quoted(f.field)} is ${showValue(f.ours)} here and ${showValue(f.theirs)} on the other branch`);
  return `${shown.join('; ')}${fields.length > max ? `; and ${fields.length - max} more` : ''}`;
}

/** git's own text merge, in place in %A (what git would have done without the driver). */
function textMerge(cwd: string, files: Record<Side, string>, path: string) {
  const r = gitRun(cwd, [
    'merge-file',
    '-L',
    'ours',
    '-L',
    'base',
    '-L',
    'theirs',
    '--',
    val(files.ours, 'a temp file'),
    val(files.base, 'a temp file'),
    val(files.theirs, 'a temp file'),
  ]);
  forgetConflictRecord(cwd, CONFLICTS_FOLDER, path);
  if (!r.ok) {
    // A count of conflicts (markers written) says nothing; a failure (a binary file) says why, and wrote nothing.
    if (/^(error|fatal):/m.test(r.err))
      throw new SowError(
        'GIT_MERGE_FILE_FAILED',
        'external',
        `'git merge-file' failed on ${quoted(path)}: ${r.err.split('\n').at(-1)}`,
        'the merge stops with this file as it was on this branch; merge it by hand, then git add it',
      );
    // git's text merge left conflict markers in a file sow does not merge by meaning.
    throw new SowError(
      'MERGE_TEXT_CONFLICT',
      'failed',
      `${quoted(path)}: both branches changed the same lines; git's text merge left conflict markers in it`,
      `edit it to keep what both sides meant and remove the markers, then 'git add ${shown(path)}' and 'git commit'`,
      { path },
    );
  }
  return { path, how: 'text' as const };
}

const SCHEMAS = { project: ProjectStateSchema, task: TaskStateSchema } as const;

/** Parsed data of one version (undefined for an empty base: both branches added the file), or 'unreadable'. */
async function parsed(kind: MergeKind, path: string, text: string, isBase: boolean) {
  if (isBase && text.trim() === '') return { data: undefined, handWritten: false };
  try {
    const p = await parseStateText(path, text);
    return validFor(kind, p.data) ? p : 'unreadable';
  } catch (err) {
    if (err instanceof SowError) return 'unreadable';
    throw err;
  }
}

function validFor(kind: MergeKind, data: unknown): boolean {
  if (kind === 'project' || kind === 'task') return check(SCHEMAS[kind], data).ok;
  return kind === 'knowledge' && !Array.isArray(data) && Array.isArray((data as { entries?: unknown } | null)?.entries);
}

// Runs the driver on the temp files git wrote (relative to where it runs it, or absolute): the merge in %A (`how`:
// by-meaning), a conflict error (git stops), or git's text merge (`how`: text) for what sow does not read.
export async function runMergeDriver(cwd: string, req: Record<Side, string> & { path: string }, now: () => string) {
  const files = {
    base: gitTempFile(cwd, req.base, 'the base version'),
    ours: gitTempFile(cwd, req.ours, 'this branch’s version'),
    theirs: gitTempFile(cwd, req.theirs, 'the other branch’s version'),
  };
  const path = req.path;
  const kind = mergeKindOf(path);
  if (!kind) return textMerge(cwd, files, path);
  const limits: ReadLimits =
    kind === 'log'
      ? DOCUMENT_LIMITS
      : { max: MAX_STATE_BYTES, what: 'state files', why: 'a project or a task takes a few KB' };
  const texts = {} as Record<Side, string>;
  try {
    for (const side of SIDES) texts[side] = readGitTempFile(files[side], path, limits);
  } catch (err) {
    if (err instanceof TempFileTooLarge) return textMerge(cwd, files, path);
    throw err;
  }
  let merged: string;
  let conflicts: FieldConflict[] = [];
  if (kind === 'log') {
    const log = mergeLog(texts.base, texts.ours, texts.theirs);
    if (log === undefined) return textMerge(cwd, files, path);
    merged = log;
  } else {
    const base = await parsed(kind, path, texts.base, true);
    const ours = await parsed(kind, path, texts.ours, false);
    const theirs = await parsed(kind, path, texts.theirs, false);
    if (base === 'unreadable' || ours === 'unreadable' || theirs === 'unreadable') return textMerge(cwd, files, path);
    const result = mergeData(kind, base.data, ours.data, theirs.data);
    conflicts = result.conflicts;
    let value = result.value;
    // Fields merged each on its own may not fit together: then this branch's file stands whole, the person decides.
    if (!validFor(kind, value)) {
      const valid = kind === 'knowledge' ? undefined : check(SCHEMAS[kind], value);
      const field = valid && !valid.ok ? valid.issue.path : '(the whole file)';
      const theirs = '(the other branch’s file, merged with this one: it would not be valid)';
      value = ours.data;
      conflicts = [{ field, ours: '(this branch’s file)', theirs }];
    }
    merged = ours.handWritten ? await editYaml(texts.ours, value) : emitYaml(value as Record<string, unknown>);
  }
  if (merged !== texts.ours) writeGitTempFile(files.ours, merged);
  if (conflicts.length) {
    writeConflictRecord(cwd, CONFLICTS_FOLDER, path, `${toJson({ path, at: now(), fields: conflicts }, 2)}\n`);
    // Both branches changed fields differently: git stops the merge (exit 1), the file keeps this branch's values.
    const n = conflicts.length === 1 ? 'a field' : `${conflicts.length} fields`;
    throw new SowError(
      'MERGE_CONFLICT',
      'failed',
      `${quoted(path)}: ${n} both branches changed to different values: ${describeConflicts(conflicts)}; the file ` +
        `keeps this branch's values`,
      `edit ${shown(path)} so each field named holds the value you want (it holds this branch's now), then 'git ` +
        `add ${shown(path)}' and 'git commit'; 'sow doctor' names them again`,
      { path, fields: conflicts },
    );
  }
  forgetConflictRecord(cwd, CONFLICTS_FOLDER, path);
  return { path, how: 'by-meaning' as const };
}

// The conflicts the driver recorded in this checkout; one that does not read as a record (changed by hand) is skipped.
const RecordSchema = builtWhenUsed(() =>
  v.looseObject({ path: v.string(), at: v.string(), fields: v.array(v.looseObject({ field: v.string() })) }),
);

export function conflictRecords(root: string): ConflictRecord[] {
  return readConflictRecords(root, CONFLICTS_FOLDER).filter((r): r is ConflictRecord => v.is(RecordSchema, r));
}
