/**
 * Reading and rendering YAML state files. Every read is parsed and validated; every write is
 * validated first. A file without comments is written by sow's own emitter (yaml/emit.ts); a file
 * a person commented is edited through yaml's Document API, so the comments and key order they
 * wrote survive. See docs/decisions/0003-state-file-cache.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GenericSchema, InferOutput } from 'valibot';
import { StateFileError } from '../domain/errors.js';
import { check } from '../domain/schemas.js';
import { emitYaml } from './yaml/emit.js';
import { editYaml, parseYaml, YamlSyntaxError } from './yaml/document.js';

export interface StateFile<T> {
  /** Path relative to the repository root, for messages. */
  readonly rel: string;
  readonly text: string;
  readonly data: T;
  readonly comments: boolean;
}

/** Parses YAML text; a syntax error becomes a StateFileError naming the file, line and column. */
export async function parseStateText(rel: string, text: string): Promise<{ data: unknown; comments: boolean }> {
  try {
    return await parseYaml(text);
  } catch (err) {
    if (!(err instanceof YamlSyntaxError)) throw err;
    const where = err.line !== undefined ? ` at line ${err.line}${err.column !== undefined ? `, column ${err.column}` : ''}` : '';
    throw new StateFileError(rel, `not valid YAML${where}: ${err.message}`);
  }
}

export function readText(root: string, rel: string): string {
  try {
    return readFileSync(join(root, rel), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StateFileError(rel, code === 'ENOENT' ? 'file is missing' : code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read (${code ?? String(err)})`);
  }
}

/** Validates parsed data against `schema`; the error names the file and the field path. */
export function validateState<S extends GenericSchema>(rel: string, schema: S, data: unknown): InferOutput<S> {
  const valid = check(schema, data);
  if (!valid.ok) throw new StateFileError(rel, valid.issue.message, valid.issue.path);
  return valid.value;
}

export async function readStateFile<S extends GenericSchema>(root: string, rel: string, schema: S, text = readText(root, rel)): Promise<StateFile<InferOutput<S>>> {
  const parsed = await parseStateText(rel, text);
  return { rel, text, data: validateState(rel, schema, parsed.data), comments: parsed.comments };
}

/** Validates `data` and renders the new text of the file, keeping comments if it had any. */
export async function renderStateFile<S extends GenericSchema>(
  previous: Pick<StateFile<unknown>, 'text' | 'comments'> | undefined,
  rel: string,
  schema: S,
  data: InferOutput<S>,
): Promise<string> {
  const valid = check(schema, data);
  if (!valid.ok) {
    // A bug, not a user mistake: a command produced data its own schema refuses.
    throw new Error(`refusing to write ${rel}: ${valid.issue.path}: ${valid.issue.message}`);
  }
  if (previous?.comments) return editYaml(previous.text, data);
  return emitYaml(data as Record<string, unknown>);
}
