/**
 * Reading and rendering YAML state files.
 *
 * Reads are validated every time. Parsing YAML is the slow part of a command (≈350 ms for a
 * 1,000-task project file on a cold start with the `yaml` package), so each parse is remembered in
 * .sow/.cache/ as JSON together with the exact text it came from; a later read that finds the
 * same text takes the cached value (≈2 ms) and a file changed by anyone else is parsed again —
 * by yaml-fast.ts when it is in the form sow writes, by the `yaml` package otherwise.
 * Writes keep comments: a file that has comments is edited through yaml's Document API, so the
 * comments and key order a person wrote survive; a file without comments is written by our fast
 * emitter. See docs/decisions/0003-state-file-cache.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GenericSchema, InferOutput } from 'valibot';
import { StateFileError } from '../domain/errors.js';
import { check } from '../domain/schemas.js';
import { writeFileAtomic } from './fs-atomic.js';
import { emitYaml } from './yaml-emit.js';
import { parseCanonicalYaml } from './yaml-fast.js';

export interface StateFile<T> {
  /** Path relative to the repository root, for messages. */
  readonly rel: string;
  readonly abs: string;
  readonly text: string;
  readonly data: T;
  readonly comments: boolean;
}

interface CacheEntry {
  text: string;
  data: unknown;
  comments: boolean;
  /** The build whose schemas validated `data`; the same build need not validate the same text again. */
  validated?: string;
}

declare const SOW_BUILD: string;
/** Unbundled (tests) there is no build stamp, and every read validates. */
const BUILD = typeof SOW_BUILD === 'string' ? SOW_BUILD : undefined;

export function cachePath(root: string, rel: string): string {
  return join(root, '.sow', '.cache', `${rel.replaceAll('/', '__')}.json`);
}

function readCache(root: string, rel: string, text: string): CacheEntry | undefined {
  try {
    const entry = JSON.parse(readFileSync(cachePath(root, rel), 'utf8')) as CacheEntry;
    return entry.text === text ? entry : undefined;
  } catch {
    return undefined;
  }
}

export function writeCache(root: string, rel: string, entry: CacheEntry): void {
  try {
    writeFileAtomic(cachePath(root, rel), JSON.stringify(entry), false);
  } catch {
    // The cache is an optimisation; a failed write only costs the next read a parse.
  }
}

type YamlModule = typeof import('yaml');
let yamlModule: YamlModule | undefined;
export async function loadYaml(): Promise<YamlModule> {
  if (!yamlModule) {
    // yaml ships CommonJS to Node: bundled, its functions sit on the default export.
    const m = (await import('yaml')) as YamlModule & { default?: YamlModule };
    yamlModule = m.default ?? m;
  }
  return yamlModule;
}

function hasComments(yaml: YamlModule, doc: import('yaml').Document): boolean {
  if (doc.commentBefore || doc.comment) return true;
  let found = false;
  yaml.visit(doc, (_key, node) => {
    const n = node as { commentBefore?: string | null; comment?: string | null };
    if (n.commentBefore || n.comment) {
      found = true;
      return yaml.visit.BREAK;
    }
    return undefined;
  });
  return found;
}

export async function parseStateText(rel: string, text: string): Promise<{ data: unknown; comments: boolean }> {
  // What sow wrote itself is read without the yaml package (yaml-fast.ts); anything else goes to it.
  const fast = parseCanonicalYaml(text);
  if (fast !== undefined) return { data: fast, comments: false };
  const yaml = await loadYaml();
  const doc = yaml.parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const line = error.linePos?.[0]?.line;
    throw new StateFileError(rel, `not valid YAML${line ? ` (line ${line})` : ''}: ${error.message.split('\n')[0]}`);
  }
  return { data: doc.toJS({ maxAliasCount: 100 }), comments: hasComments(yaml, doc) };
}

export async function readStateFile<S extends GenericSchema>(root: string, rel: string, schema: S): Promise<StateFile<InferOutput<S>>> {
  const abs = join(root, rel);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StateFileError(rel, code === 'ENOENT' ? 'file is missing' : `cannot be read (${code ?? String(err)})`);
  }
  let entry = readCache(root, rel, text);
  if (!entry) {
    const parsed = await parseStateText(rel, text);
    entry = { text, ...parsed };
    const valid = check(schema, entry.data);
    if (!valid.ok) throw new StateFileError(rel, valid.issue.message, valid.issue.path);
    writeCache(root, rel, { ...entry, ...(BUILD ? { validated: BUILD } : {}) });
    return { rel, abs, text, data: valid.value, comments: entry.comments };
  }
  // Validation is a pure function of the text and the schemas: this exact text was validated by
  // this very build when the entry was written, so the result is known (docs/decisions/0003).
  if (BUILD && entry.validated === BUILD) return { rel, abs, text, data: entry.data as InferOutput<S>, comments: entry.comments };
  const valid = check(schema, entry.data);
  if (!valid.ok) throw new StateFileError(rel, valid.issue.message, valid.issue.path);
  return { rel, abs, text, data: valid.value, comments: entry.comments };
}

/** Validates `data` and renders the new text of the file, keeping comments if it had any. */
export async function renderStateFile<S extends GenericSchema>(
  previous: Pick<StateFile<unknown>, 'rel' | 'text' | 'comments'> | undefined,
  rel: string,
  schema: S,
  data: InferOutput<S>,
): Promise<{ text: string; entry: CacheEntry }> {
  const valid = check(schema, data);
  if (!valid.ok) {
    // A bug, not a user mistake: a command produced data its own schema refuses.
    throw new Error(`refusing to write ${rel}: ${valid.issue.path}: ${valid.issue.message}`);
  }
  const plain = data as Record<string, unknown>;
  if (previous?.comments) {
    const yaml = await loadYaml();
    const doc = yaml.parseDocument(previous.text);
    syncNode(yaml, doc, doc.contents, plain, (node) => (doc.contents = node as never));
    const text = doc.toString();
    return { text, entry: { text, data, comments: true, ...(BUILD ? { validated: BUILD } : {}) } };
  }
  const text = emitYaml(plain);
  return { text, entry: { text, data, comments: false, ...(BUILD ? { validated: BUILD } : {}) } };
}

type YamlNode = import('yaml').Node | null;

/**
 * Brings the document in line with `value`, touching only what changed, so comments, key order
 * and styles on unchanged nodes survive.
 */
function syncNode(yaml: YamlModule, doc: import('yaml').Document, node: YamlNode | unknown, value: unknown, replace: (n: unknown) => void): void {
  const isObj = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (yaml.isMap(node) && isObj) {
    const record = value as Record<string, unknown>;
    const seen = new Set<string>();
    for (const pair of [...node.items]) {
      const key = yaml.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (!(key in record) || record[key] === undefined) {
        node.delete(pair.key);
        continue;
      }
      seen.add(key);
      syncNode(yaml, doc, pair.value, record[key], (n) => (pair.value = n as never));
    }
    for (const [key, child] of Object.entries(record)) {
      if (!seen.has(key) && child !== undefined) node.set(key, doc.createNode(child));
    }
    return;
  }
  if (yaml.isSeq(node) && Array.isArray(value)) {
    value.forEach((item, i) => {
      if (i < node.items.length) syncNode(yaml, doc, node.items[i], item, (n) => (node.items[i] = n as never));
      else node.items.push(doc.createNode(item) as never);
    });
    node.items.length = value.length;
    return;
  }
  if (yaml.isScalar(node) && (value === null || typeof value !== 'object')) {
    if (node.value !== value) node.value = value;
    return;
  }
  const fresh = doc.createNode(value);
  if (node && yaml.isNode(node) && yaml.isNode(fresh)) {
    fresh.commentBefore = node.commentBefore;
    fresh.comment = node.comment;
  }
  replace(fresh);
}
