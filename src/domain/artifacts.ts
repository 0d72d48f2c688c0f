/** The universal artifact (type, path, approved, created_at, metadata); its types come from the project type. */
import * as posix from 'node:path/posix';
import { errorClass, given, InvalidValueError, meant, PathOutsideRepositoryError, UsageError } from './errors.js';
import { quoted as q } from './display.js';
import { coerceField, own, parseValue, resolveField, setAtPath, type FieldSpec, type Scalar } from './fields.js';
import { nearMiss } from './suggest.js';
import type { Artifact, ProjectState } from './schemas.js';

export const PROJECT_DIR = '.sow/project';

/** What an artifact's path is relative to: .sow/project/ for the project's documents, else the repository root. */
export type PathRoot = 'project' | 'repository';

export interface ArtifactTypeDef {
  readonly name: string;
  readonly description: string;
  readonly root: PathRoot;
  /** Approvable artifacts start with `approved: false` (task lists, reviews). */
  readonly approvable?: boolean;
  readonly defaultMetadata?: Readonly<Record<string, Scalar>>;
  /** Allowed values of type-specific metadata keys, e.g. review.assessment: pass | fail. */
  readonly metadataValues?: Readonly<Record<string, readonly string[]>>;
  /** Metadata an artifact of this type must carry when it is added and when it is approved. */
  readonly requiredMetadata?: readonly string[];
  /** The command that records artifacts of this type (`sow check run`): observed facts, never added by hand. */
  readonly recordedBy?: string;
  /** The placeholders of the type's template: a file still holding one is unfinished and cannot be approved. */
  readonly placeholders?: readonly string[];
  /** Checks against the project beyond fixed metadata values, when the artifact is added or changed; throws. */
  readonly check?: (artifact: Artifact, project: ProjectState) => void;
}

/** The template placeholders `text` still holds, in the order the type lists them. */
export const placeholdersIn = (def: ArtifactTypeDef, text: string): string[] =>
  (def.placeholders ?? []).filter((p) => text.includes(p));

/** An artifact sow records itself (evidence of a check's run), added or changed by hand. */
export class RecordedArtifactError extends errorClass(
  'ARTIFACT_RECORDED_BY_SOW',
  'failed',
  (type: string, recordedBy: string, change: 'added' | 'changed') => [
    `a ${type} artifact cannot be ${change} by hand: '${recordedBy}' records it from what it observed`,
    `run '${recordedBy}' to record a new one`,
    { type, recorded_by: recordedBy },
  ],
) {}

// A place that holds artifacts: "phase planning outputs", "task 010 inputs"; `command`: its command group, for hints
// (`sow output`, `sow task input`); `owner`: the flag that names its owner (`--phase review`, `--id 010`).
export type ArtifactSlot = { label: string; types: readonly ArtifactTypeDef[]; command: string; owner: string };

export const slotCommand = (slot: ArtifactSlot, verb: 'add' | 'set' | 'list' | 'remove', extra = '') =>
  `${slot.command} ${verb} ${slot.owner}${extra ? ` ${extra}` : ''}`;

export function findArtifactType(slot: ArtifactSlot, type: string): ArtifactTypeDef {
  const def = slot.types.find((t) => t.name === type);
  if (!def) {
    // The types one may add by hand; those sow records itself are not offered.
    const valid = slot.types.filter((t) => !t.recordedBy).map((t) => t.name);
    throw new UnknownArtifactTypeError(type, slot.label, valid, nearMiss(type, valid));
  }
  return def;
}

const rootDir = (root: PathRoot) => (root === 'project' ? PROJECT_DIR : '');
const outside = (rel: string) => rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel);

/** The stored form of a path given on the command line, relative to the type's root; outside the repository refused. */
export function artifactPath(raw: string, root: PathRoot, repoRoot: string): string {
  if (raw.trim() === '')
    throw new UsageError(
      'an artifact path cannot be empty',
      `pass --path <path relative to ${root === 'project' ? '.sow/project/' : 'the repository root'}>`,
    );
  const path = raw.replaceAll('\\', '/');
  let fromRepo: string;
  if (posix.isAbsolute(path) || /^[A-Za-z]:\//.test(path)) {
    fromRepo = posix.relative(repoRoot.replaceAll('\\', '/'), path);
    if (outside(fromRepo) || /^[A-Za-z]:\//.test(fromRepo)) throw new PathOutsideRepositoryError(raw);
  } else {
    fromRepo = posix.normalize(posix.join(rootDir(root) || '.', path));
    if (outside(fromRepo))
      throw new PathOutsideRepositoryError(
        raw,
        `paths of this type are relative to ${root === 'project' ? '.sow/project/' : 'the repository root'} ` +
          `and must stay inside the repository`,
      );
  }
  if (fromRepo === '' || fromRepo === '.')
    throw new InvalidValueError('path', raw, 'a file inside the repository, not the repository itself');
  return root === 'project' ? posix.relative(PROJECT_DIR, fromRepo) : fromRepo;
}

/** Where a stored artifact path is, relative to the repository root (for checking that it exists). */
export function repositoryPathOf(stored: string, root: PathRoot): string {
  return posix.normalize(posix.join(rootDir(root) || '.', stored));
}

const ARTIFACT_FIELDS: Record<string, FieldSpec> = {
  type: { kind: 'readonly', why: 'an artifact keeps its type', hint: 'remove it and add a new one' },
  path: { kind: 'string', nonEmpty: true },
  approved: { kind: 'boolean' },
  approved_sha256: {
    kind: 'readonly',
    why: 'sow records the content an approval was given for',
    hint: "set 'approved true' again to approve the file as it is now",
  },
  created_at: { kind: 'readonly', why: 'it records when the artifact was added' },
  metadata: { kind: 'readonly', why: 'it is a map', hint: "set one key of it, e.g. 'metadata.source'" },
};

/** The metadata keys the artifact types of a slot give meaning to (assessment, status, …). */
function metadataKeys(slot: ArtifactSlot): string[] {
  const keys = new Set<string>();
  for (const t of slot.types) {
    for (const k of Object.keys(t.metadataValues ?? {})) keys.add(k);
    for (const k of Object.keys(t.defaultMetadata ?? {})) keys.add(k);
    for (const k of t.requiredMetadata ?? []) keys.add(k);
  }
  return [...keys];
}

function checkMetadataValue(def: ArtifactTypeDef, key: string, value: Scalar): void {
  const allowed = own(def.metadataValues, key);
  if (allowed && !allowed.includes(String(value)))
    throw new InvalidValueError(
      key,
      String(value),
      `one of ${allowed.join(', ')} for a ${def.name} artifact`,
      undefined,
      nearMiss(String(value), allowed),
    );
}

/** Refuses an artifact without metadata its type requires; `say` words it, given the key and an example value. */
function checkRequired(
  def: ArtifactTypeDef,
  artifact: Artifact,
  say: (key: string, example: string) => [string, string],
) {
  const missing = def.requiredMetadata?.find((key) => artifact.metadata?.[key] === undefined);
  if (missing) throw new MissingMetadataError(...say(missing, def.metadataValues?.[missing]?.[0] ?? '<value>'));
}

/** `extra`: the other `--key value` flags, which go to metadata. */
export type NewArtifact = { type: string; path: string; approved?: string; extra: Readonly<Record<string, string>> };

export function createArtifact(slot: ArtifactSlot, input: NewArtifact, now: string, repoRoot: string): Artifact {
  const def = findArtifactType(slot, input.type);
  if (def.recordedBy) throw new RecordedArtifactError(def.name, def.recordedBy, 'added');
  const artifact: Artifact = { type: def.name, path: artifactPath(input.path, def.root, repoRoot), created_at: now };
  if (input.approved !== undefined)
    artifact.approved = coerceField('approved', input.approved, { kind: 'boolean' }) as boolean;
  else if (def.approvable) artifact.approved = false;
  let meta: Record<string, unknown> = { ...def.defaultMetadata };
  for (const [key, raw] of Object.entries(input.extra)) {
    const field = resolveField(key, ARTIFACT_FIELDS, `a ${def.name} artifact`, metadataKeys(slot));
    if (field.where === 'field')
      throw new UsageError(
        `--${key} is not a metadata field`,
        `'${key}' is set with its own flag, e.g. --${key === 'approved' ? 'approved true' : 'path <path>'}`,
      );
    const value = parseValue(raw);
    if (field.path.length === 1) checkMetadataValue(def, field.path[0]!, value);
    meta = setAtPath(meta, field.path, value);
  }
  if (Object.keys(meta).length > 0) artifact.metadata = meta;
  checkRequired(def, artifact, (key, example) => [
    `a ${def.name} needs --${key} ${def.metadataValues?.[key]?.join('|') ?? '<value>'}`,
    `add it with the artifact: '${slotCommand(slot, 'add', `--type ${def.name} --path ${artifact.path}`)} ` +
      `--${key} ${example}'`,
  ]);
  return artifact;
}

export function artifactAt(list: readonly Artifact[], index: number, slot: ArtifactSlot): Artifact {
  const artifact = Number.isInteger(index) && index >= 0 ? list[index] : undefined;
  if (!artifact) throw new IndexOutOfRangeError(index, list.length, slot.label, slotCommand(slot, 'list'));
  return artifact;
}

export function setArtifactField(
  artifact: Artifact,
  slot: ArtifactSlot,
  index: number,
  field: string,
  raw: string,
  repoRoot: string,
): Artifact {
  const def = slot.types.find((t) => t.name === artifact.type);
  if (def?.recordedBy) throw new RecordedArtifactError(def.name, def.recordedBy, 'changed');
  const resolved = resolveField(field, ARTIFACT_FIELDS, `a ${artifact.type} artifact`, metadataKeys(slot));
  if (resolved.where === 'field') {
    let value = coerceField(resolved.name, raw, resolved.spec);
    if (resolved.name === 'path') value = artifactPath(String(value), def?.root ?? 'project', repoRoot);
    const next = { ...artifact, [resolved.name]: value };
    if (resolved.name === 'approved' && value === true && def)
      checkRequired(def, next, (key, example) => [
        `cannot approve this ${def.name}: it has no ${key}`,
        `set it first: '${slotCommand(slot, 'set', `--index ${index} ${key} ${example}`)}'`,
      ]);
    return next;
  }
  const value = parseValue(raw);
  if (def && resolved.path.length === 1) checkMetadataValue(def, resolved.path[0]!, value);
  return { ...artifact, metadata: setAtPath({ ...artifact.metadata }, resolved.path, value) };
}

export function parseIndex(raw: string): number {
  if (!/^\d+$/.test(raw))
    throw new UsageError(
      `--index must be a number ≥ 0, got '${raw}'`,
      "the list command shows each artifact's index, e.g. 'sow output list'",
    );
  return Number(raw);
}

/** `path`, or with -2, -3 … before its extension: the first one `taken` says is free (archives never overwrite). */
export function firstFreePath(path: string, taken: (candidate: string) => boolean): string {
  let place = path;
  for (let n = 2; taken(place); n++) place = path.replace(/(\.[^./]*)?$/, `-${n}$1`);
  return place;
}

export class UnknownArtifactTypeError extends errorClass(
  'UNKNOWN_ARTIFACT_TYPE',
  'failed',
  (type: string, where: string, valid: readonly string[], suggestion?: string) => [
    `${q(type)} is not an artifact type of ${where}${meant(suggestion)}`,
    valid.length ? `valid types: ${valid.join(', ')}` : `no artifact goes in ${where}`,
  ],
) {}

export class IndexOutOfRangeError extends errorClass(
  'INDEX_OUT_OF_RANGE',
  'failed',
  (index: number, count: number, where: string, listCommand: string) => [
    count === 0
      ? `${where} are empty (index ${index})`
      : `index ${index} is out of range for ${where}: valid indexes are 0–${count - 1}`,
    `run '${listCommand}' to see the indexes`,
  ],
) {}

export class ArtifactFileMissingError extends errorClass(
  'ARTIFACT_FILE_MISSING',
  'failed',
  (path: string, file: string) => [
    `cannot approve ${q(path)}: ${q(file)} does not exist`,
    'write the file first; an approval vouches for what is in it',
  ],
) {}

/** An approval of a document that still holds its template's placeholders. */
export class ArtifactUnfinishedError extends errorClass(
  'ARTIFACT_UNFINISHED',
  'failed',
  (path: string, file: string, placeholders: readonly string[]) => [
    `cannot approve ${q(path)}: ${q(file)} still holds the template's ` +
      `placeholder${placeholders.length === 1 ? '' : 's'} ${placeholders.map(q).join(', ')}`,
    'replace each one with what was agreed (or delete the lines that do not apply), then approve it',
    { path, file, placeholders: [...placeholders] },
  ],
) {}

export class MissingMetadataError extends errorClass('METADATA_REQUIRED', 'failed', given) {}
