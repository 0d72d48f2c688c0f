/** Reading and rendering YAML state files, validated both ways (decisions 0003, 0028); an edited file is spliced so
 * comments survive. A state file is a regular file in `.sow/` of at most MAX_STATE_BYTES, no link out on the way. */
import { SowError, StateFileError } from '../domain/errors.js';
import { isRecord } from '../domain/json.js';
import { existsSync, lstatSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { inSow, readConfined, sowArea, sowPath } from './confine.js';
import { SETTLE_MS } from './file-stamp.js';
import type { GenericSchema, InferOutput } from 'valibot';
import { check } from '../domain/schema-check.js';
import { emitYaml } from './yaml/emit.js';
import { editYaml, parseYaml, YamlRefusedError } from './yaml/document.js';

export interface StateFile<T> {
  /** Path relative to the repository root, for messages. */
  readonly rel: string;
  readonly text: string;
  readonly data: T;
  readonly handWritten: boolean;
}

/** 1 MiB: a state file is a few KB even after hundreds of outputs; a thousand times that is not sow's. */
export const MAX_STATE_BYTES = 1024 * 1024;

/** Parses YAML text; YAML sow refuses becomes a StateFileError naming the file (and the line and column). */
export async function parseStateText(rel: string, text: string): Promise<{ data: unknown; handWritten: boolean }> {
  try {
    return await parseYaml(text);
  } catch (err) {
    if (err instanceof YamlRefusedError) throw new StateFileError(rel, err.message, err.path);
    throw err;
  }
}

/** Whether `.sow/` has a file at `rel` (repository-relative); a link out of `.sow/` on the way is refused. */
export function stateFileExists(root: string, rel: string): boolean {
  return existsSync(sowPath(root, rel));
}

export function readText(root: string, rel: string): string {
  let text: string | undefined;
  try {
    text = readConfined(
      sowArea(root),
      inSow(rel),
      {
        max: MAX_STATE_BYTES,
        what: 'state files',
        why: 'a project or a task takes a few KB: move what made it grow, long texts, into a document beside it',
      },
      { display: rel },
    );
  } catch (err) {
    // A folder, a device, a file too large: the state file is not what sow wrote (exit 4, naming it).
    if (
      err instanceof SowError &&
      err.kind === 'state' &&
      err.code !== 'PATH_ESCAPES' &&
      err.code !== 'NOT_A_REAL_FOLDER'
    )
      throw new StateFileError(
        rel,
        err.message.startsWith(`${rel} `) ? err.message.slice(rel.length + 1) : err.message,
      );
    throw err;
  }
  if (text === undefined) throw new StateFileError(rel, 'file is missing');
  return text;
}

/** Validates parsed data against `schema`; the error names the file and the field path. */
export function validateState<S extends GenericSchema>(rel: string, schema: S, data: unknown): InferOutput<S> {
  const valid = check(schema, data);
  if (!valid.ok) {
    const wrapper = wrapperOf(data);
    if (wrapper)
      throw new StateFileError(
        rel,
        `its fields are under '${wrapper}:', as one drawing of the specification shows them; sow keeps them at the ` +
          `top level of the file (move them out of '${wrapper}:')`,
      );
    throw new StateFileError(rel, valid.issue.message, valid.issue.path);
  }
  return valid.value;
}

/** `task` or `project` when that is the only key, holding a map: a wrapped layout, told as such (sow's is flat). */
function wrapperOf(data: unknown): string | undefined {
  const only = isRecord(data) && Object.keys(data).length === 1 ? Object.keys(data)[0] : undefined;
  return (only === 'task' || only === 'project') && isRecord((data as Record<string, unknown>)[only])
    ? only
    : undefined;
}

export async function readStateFile<S extends GenericSchema>(
  root: string,
  rel: string,
  schema: S,
  given?: string,
): Promise<StateFile<InferOutput<S>>> {
  // A long-lived process may have parsed the file as it is now (see Remembered).
  const mem = given === undefined ? memory : undefined;
  const seen = mem && recall(mem, root, rel, schema);
  if (seen?.file) return seen.file;
  if (seen) mem!.files.delete(seen.abs);
  const text = given ?? readText(root, rel);
  const parsed = await parseStateText(rel, text);
  // Only sow's own form (cheap to copy); a hand-written file's parse carries what a write needs to keep its spelling.
  const before = seen?.before;
  const kept =
    !parsed.handWritten && before?.isFile() && mem!.now() - Math.max(before.mtimeMs, before.ctimeMs) > mem!.settleMs
      ? plainCopy(parsed.data)
      : undefined;
  const data = validateState(rel, schema, parsed.data);
  if (kept !== undefined) mem!.files.set(seen!.abs, { stat: before!, text, data: kept, validatedBy: schema });
  return { rel, text, data, handWritten: parsed.handWritten };
}

/** What `sow mcp` parsed beside the stat taken before the read: believed while inode, size, mtime and ctime match,
 * kept only for settled files (decision 0009), validated again on use. */
interface Remembered {
  stat: Stats;
  text: string;
  /** What the canonical reader returned (kept only for the form sow writes). */
  data: unknown;
  /** The schema it last passed. */
  validatedBy?: GenericSchema;
}

let memory: { settleMs: number; now: () => number; files: Map<string, Remembered> } | undefined;

/** From now on this process keeps what it parsed (see Remembered); `settleMs` and `now` are for tests. */
export function keepParsedStateFiles(opts: { settleMs?: number; now?: () => number } = {}): void {
  memory = { settleMs: opts.settleMs ?? SETTLE_MS, now: opts.now ?? Date.now, files: new Map() };
}

/** How many parses are kept (for tests). */
export function parsedStateFilesKept(): number {
  return memory?.files.size ?? 0;
}

export function forgetParsedStateFiles(): void {
  memory = undefined;
}

const sameStat = ({ stat }: Remembered, st: Stats) =>
  stat.ino === st.ino && stat.size === st.size && stat.mtimeMs === st.mtimeMs && stat.ctimeMs === st.ctimeMs;

/** The state file as last parsed, when unchanged since (validated again); else undefined: read it. */
export function rememberedStateFile<S extends GenericSchema>(
  root: string,
  rel: string,
  schema: S,
): StateFile<InferOutput<S>> | undefined {
  return memory ? recall(memory, root, rel, schema).file : undefined;
}

function recall<S extends GenericSchema>(
  mem: NonNullable<typeof memory>,
  root: string,
  rel: string,
  schema: S,
): { abs: string; before: Stats | undefined; file?: StateFile<InferOutput<S>> } {
  const abs = sep === '/' ? `${root}/${rel}` : join(root, rel);
  // lstat: a link is never taken from memory; a matching stat says it is still the inode read confined.
  const before = lstatSync(abs, { throwIfNoEntry: false });
  const known = before?.isFile() ? mem.files.get(abs) : undefined;
  if (known && sameStat(known, before!)) {
    // Data this schema passed once passes again: a copy is all a caller needs.
    const data =
      known.validatedBy === schema ? plainCopy(known.data) : validateState(rel, schema, plainCopy(known.data));
    known.validatedBy = schema;
    return { abs, before, file: { rel, text: known.text, data, handWritten: false } };
  }
  return { abs, before };
}

/** A deep copy of the canonical reader's output: validation hands the input back, and callers may change it. */
function plainCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainCopy);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = plainCopy((value as Record<string, unknown>)[key]);
  return out;
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
  // The canonical reader takes only text the emitter writes back byte for byte; other text changes only where needed.
  if (previous?.handWritten) return editYaml(previous.text, data);
  return emitYaml(data as Record<string, unknown>);
}
