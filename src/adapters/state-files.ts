/**
 * Reading and rendering YAML state files. Every read is parsed and validated; every write is
 * validated first. A file in the form sow writes is written by sow's own emitter (yaml/emit.ts); a
 * file a person wrote or edited is changed through yaml's Document API, so its comments, key
 * order, styles and tags survive. See docs/decisions/0003-state-file-cache.md.
 *
 * A state file is a regular file inside `.sow/` of at most MAX_STATE_BYTES: a link that leads out
 * of `.sow/` is refused (a write would replace it, or write where it points), and so is a file
 * too large to read and rewrite in a moment.
 */
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { realPath } from './files.js';
import type { GenericSchema, InferOutput } from 'valibot';
import { StateFileError } from '../domain/errors.js';
import { check } from '../domain/schemas.js';
import { emitYaml } from './yaml/emit.js';
import { editYaml, parseYaml, ReservedKeyError, YamlSyntaxError, YamlTooLargeError } from './yaml/document.js';

export interface StateFile<T> {
  /** Path relative to the repository root, for messages. */
  readonly rel: string;
  readonly text: string;
  readonly data: T;
  readonly handWritten: boolean;
}

/**
 * 1 MiB: a state file is a project or one task, a few KB even after hundreds of outputs; a file
 * a thousand times that is not something sow wrote, and would take seconds to read and rewrite.
 */
export const MAX_STATE_BYTES = 1024 * 1024;

/** Parses YAML text; a syntax error becomes a StateFileError naming the file, line and column. */
export async function parseStateText(rel: string, text: string): Promise<{ data: unknown; handWritten: boolean }> {
  try {
    return await parseYaml(text);
  } catch (err) {
    if (err instanceof ReservedKeyError) throw new StateFileError(rel, `${err.message}; rename it (e.g. '${err.key}_')`, err.path);
    if (err instanceof YamlTooLargeError) throw new StateFileError(rel, err.message);
    if (!(err instanceof YamlSyntaxError)) throw err;
    const where = err.line !== undefined ? ` at line ${err.line}${err.column !== undefined ? `, column ${err.column}` : ''}` : '';
    throw new StateFileError(rel, `not valid YAML${where}: ${err.message}`);
  }
}

const insideOf = (base: string, path: string) => path === base || path.startsWith(`${base}${sep}`);

/**
 * Where a write of the state file `rel` goes: `rel` itself, or, when it is a link to a file inside
 * `.sow/`, the file it links to (so the link stays a link). A link out of `.sow/` is refused.
 */
export function stateWriteTarget(root: string, rel: string): string {
  let stat;
  try {
    stat = lstatSync(join(root, rel));
  } catch {
    return rel;
  }
  if (!stat.isSymbolicLink()) return rel;
  const real = realPath(join(root, rel));
  if (!insideOf(realPath(join(root, '.sow')), real)) throw new StateFileError(rel, `is a link to '${real}', outside .sow/; sow keeps state only inside .sow/ and will not write through it`);
  return relative(realPath(root), real).split(sep).join('/');
}

export function readText(root: string, rel: string): string {
  const abs = join(root, rel);
  try {
    stateWriteTarget(root, rel); // refuses a link out of .sow/
    const stat = statSync(abs);
    if (stat.isDirectory()) throw new StateFileError(rel, 'is a folder, not a file');
    if (!stat.isFile()) throw new StateFileError(rel, 'is not a regular file');
    if (stat.size > MAX_STATE_BYTES) {
      throw new StateFileError(rel, `is ${(stat.size / 1048576).toFixed(1)} MB; sow reads state files of up to ${MAX_STATE_BYTES / 1048576} MB (a project or a task takes a few KB): move what made it grow (long texts) into a document beside it`);
    }
    return readFileSync(abs, 'utf8');
  } catch (err) {
    if (err instanceof StateFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new StateFileError(rel, 'file is missing');
    throw err; // no permission and the like: the machine's (exit 1, naming the path)
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
  return { rel, text, data: validateState(rel, schema, parsed.data), handWritten: parsed.handWritten };
}

/** Validates `data` and renders the new text of the file, in the form a person gave it if they did. */
export async function renderStateFile<S extends GenericSchema>(
  previous: Pick<StateFile<unknown>, 'text' | 'handWritten'> | undefined,
  rel: string,
  schema: S,
  data: InferOutput<S>,
): Promise<string> {
  const valid = check(schema, data);
  if (!valid.ok) {
    // A bug, not a user mistake: a command produced data its own schema refuses.
    throw new Error(`refusing to write ${rel}: ${valid.issue.path}: ${valid.issue.message}`);
  }
  if (previous?.handWritten) return editYaml(previous.text, data);
  return emitYaml(data as Record<string, unknown>);
}
