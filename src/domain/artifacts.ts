/**
 * The universal artifact (spec 000): type, path, approved, created_at, metadata. Known fields are
 * set directly; everything else goes to metadata. Which types a container accepts, and which
 * metadata values a type allows, come from the project type.
 */
import * as posix from 'node:path/posix';
import { IndexOutOfRangeError, InvalidValueError, PathOutsideRepositoryError, UnknownArtifactTypeError, UsageError } from './errors.js';
import { coerceField, parseValue, resolveField, setAtPath, type FieldSpec, type Scalar } from './fields.js';
import type { Artifact } from './schemas.js';

export interface ArtifactTypeDef {
  readonly name: string;
  readonly description: string;
  /** Approvable artifacts start with `approved: false` (task lists, reviews). */
  readonly approvable?: boolean;
  readonly defaultMetadata?: Readonly<Record<string, Scalar>>;
  /** Allowed values of type-specific metadata keys, e.g. review.assessment: pass | fail. */
  readonly metadataValues?: Readonly<Record<string, readonly string[]>>;
}

/** A place that holds artifacts: "phase planning outputs", "task 010 inputs". */
export interface ArtifactSlot {
  readonly label: string;
  readonly types: readonly ArtifactTypeDef[];
  readonly listCommand: string;
}

export function findArtifactType(slot: ArtifactSlot, type: string): ArtifactTypeDef {
  const def = slot.types.find((t) => t.name === type);
  if (!def) throw new UnknownArtifactTypeError(type, slot.label, slot.types.map((t) => t.name));
  return def;
}

/**
 * Artifact paths are relative to .sow/project/. They may reach elsewhere in the repository
 * (../knowledge/adr-001.md) but never outside it. Pure string logic: the repository root is two
 * levels above .sow/project/.
 */
export function checkArtifactPath(path: string): string {
  if (path.trim() === '') throw new UsageError('an artifact path cannot be empty', 'pass --path <path relative to .sow/project/>');
  if (posix.isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) {
    throw new InvalidValueError('path', path, 'a path relative to .sow/project/', "e.g. 'planning/tasks.md' or '../knowledge/adr-001.md'");
  }
  const fromRoot = posix.normalize(posix.join('.sow/project', path.replaceAll('\\', '/')));
  if (fromRoot === '..' || fromRoot.startsWith('../')) throw new PathOutsideRepositoryError(path);
  return path;
}

const ARTIFACT_FIELDS: Record<string, FieldSpec> = {
  type: { kind: 'readonly', why: 'an artifact keeps its type', hint: 'remove it and add a new one' },
  path: { kind: 'string', nonEmpty: true },
  approved: { kind: 'boolean' },
  created_at: { kind: 'readonly', why: 'it records when the artifact was added' },
};

function checkMetadataValue(def: ArtifactTypeDef, key: string, value: Scalar): void {
  const allowed = def.metadataValues?.[key];
  if (allowed && !allowed.includes(String(value))) {
    throw new InvalidValueError(key, String(value), `one of ${allowed.join(', ')} for a ${def.name} artifact`);
  }
}

export interface NewArtifact {
  type: string;
  path: string;
  approved?: string;
  /** Extra `--key value` flags: they go to metadata. */
  extra: Readonly<Record<string, string>>;
}

export function createArtifact(slot: ArtifactSlot, input: NewArtifact, now: string): Artifact {
  const def = findArtifactType(slot, input.type);
  const artifact: Artifact = { type: def.name, path: checkArtifactPath(input.path), created_at: now };
  if (input.approved !== undefined) artifact.approved = coerceField('approved', input.approved, { kind: 'boolean' }) as boolean;
  else if (def.approvable) artifact.approved = false;
  let meta: Record<string, unknown> = { ...def.defaultMetadata };
  for (const [key, raw] of Object.entries(input.extra)) {
    const field = resolveField(key, ARTIFACT_FIELDS);
    if (field.where === 'field') throw new UsageError(`--${key} is not a metadata field`);
    const value = parseValue(raw);
    if (field.path.length === 1) checkMetadataValue(def, field.path[0]!, value);
    meta = setAtPath(meta, field.path, value);
  }
  if (Object.keys(meta).length > 0) artifact.metadata = meta;
  return artifact;
}

export function artifactAt(list: readonly Artifact[], index: number, slot: ArtifactSlot): Artifact {
  const artifact = Number.isInteger(index) && index >= 0 ? list[index] : undefined;
  if (!artifact) throw new IndexOutOfRangeError(index, list.length, slot.label, slot.listCommand);
  return artifact;
}

export function setArtifactField(artifact: Artifact, slot: ArtifactSlot, field: string, raw: string): Artifact {
  const resolved = resolveField(field, ARTIFACT_FIELDS);
  if (resolved.where === 'field') {
    const value = coerceField(resolved.name, raw, resolved.spec);
    if (resolved.name === 'path') checkArtifactPath(String(value));
    return { ...artifact, [resolved.name]: value };
  }
  const value = parseValue(raw);
  const def = slot.types.find((t) => t.name === artifact.type);
  if (def && resolved.path.length === 1) checkMetadataValue(def, resolved.path[0]!, value);
  return { ...artifact, metadata: setAtPath({ ...artifact.metadata }, resolved.path, value) };
}

export function parseIndex(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new UsageError(`--index must be a number ≥ 0, got '${raw}'`, "the list command shows each artifact's index, e.g. 'sow output list'");
  return Number(raw);
}

/** `[0] review: review/report.md (assessment: pass, not approved)` as spec 000 prints it. */
export function formatArtifact(index: number, a: Artifact): string {
  const notes: string[] = [];
  for (const [key, value] of Object.entries(a.metadata ?? {})) {
    notes.push(`${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
  }
  if (a.approved !== undefined) notes.push(a.approved ? 'approved' : 'not approved');
  return `[${index}] ${a.type}: ${a.path}${notes.length ? ` (${notes.join(', ')})` : ''}`;
}
