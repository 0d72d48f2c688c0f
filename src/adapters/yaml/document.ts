/**
 * YAML a person may have written: parsing with the `yaml` package (what the canonical reader
 * declines), and editing a commented file through yaml's Document API so that its comments, key
 * order and styles survive a write.
 */
import { RESERVED_NAMES } from '../../domain/fields.js';
import { parseCanonicalYaml } from './canonical.js';

type YamlModule = typeof import('yaml');
type YamlNode = import('yaml').Node | null;

let yamlModule: YamlModule | undefined;
async function loadYaml(): Promise<YamlModule> {
  if (!yamlModule) {
    // yaml ships CommonJS to Node: bundled, its functions sit on the default export.
    const m = (await import('yaml')) as YamlModule & { default?: YamlModule };
    yamlModule = m.default ?? m;
  }
  return yamlModule;
}

/** A YAML syntax error, with where it is (1-based line and column). */
export class YamlSyntaxError extends Error {
  constructor(message: string, readonly line?: number, readonly column?: number) {
    super(message);
  }
}

/** Hand-written YAML with more values than a state file has; the yaml package would take seconds. */
export class YamlTooLargeError extends Error {}

/** More values than this (counted roughly: lines and commas) is not a state file. */
const MAX_VALUES = 100_000;

/** An upper bound on the values in `text`: each takes a line, or a comma in a flow collection. */
function roughValueCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 44) n++;
  }
  return n;
}

/** A key that names a part of every JavaScript object (`constructor`): data would not hold it faithfully. */
export class ReservedKeyError extends Error {
  constructor(readonly key: string, readonly path: string) {
    super(`'${key}' names a part of every JavaScript object, so sow cannot keep it as a key`);
  }
}

/** Throws ReservedKeyError for the first reserved key anywhere in `value`. */
function refuseReservedKeys(value: unknown, path: string[] = []): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => refuseReservedKeys(item, [...path, String(i)]));
    return;
  }
  for (const key of Object.keys(value)) {
    if (RESERVED_NAMES.has(key)) throw new ReservedKeyError(key, [...path, key].join('.'));
    refuseReservedKeys((value as Record<string, unknown>)[key], [...path, key]);
  }
}

export interface ParsedYaml {
  data: unknown;
  /**
   * Whether the text is not in the form sow writes (a person wrote or edited it: comments, other
   * quoting, tags, flow lists). Writes then go through the Document API, which keeps that form.
   */
  handWritten: boolean;
}

/**
 * Parses YAML text. What sow wrote itself is read by the canonical reader, without the yaml
 * package (≈20× faster); anything else goes to the package. Throws YamlSyntaxError.
 */
export async function parseYaml(text: string): Promise<ParsedYaml> {
  const fast = parseCanonicalYaml(text);
  if (fast !== undefined) return { data: fast, handWritten: false };
  if (roughValueCount(text) > MAX_VALUES) {
    throw new YamlTooLargeError(`holds more than ${MAX_VALUES.toLocaleString('en')} values (lines and commas); a state file has a few hundred, so sow does not read it`);
  }
  const yaml = await loadYaml();
  // yaml's own duplicate-key check compares every key with every other (minutes for a large
  // map); ours keeps a set per map.
  const lines = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { prettyErrors: true, uniqueKeys: false, lineCounter: lines });
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    // prettyErrors adds the position (and a code frame) to the message; we say where ourselves.
    const message = (error.message.split('\n')[0] ?? 'invalid YAML').replace(/ at line \d+, column \d+:?$/, '');
    throw new YamlSyntaxError(message, pos?.line, pos?.col);
  }
  refuseDuplicateKeys(yaml, doc, lines);
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  refuseReservedKeys(data);
  parsed = { text, doc };
  return { data, handWritten: true };
}

/** The last hand-written document parsed, so that the write after a read does not parse it again. */
let parsed: { text: string; doc: import('yaml').Document } | undefined;

function refuseDuplicateKeys(yaml: YamlModule, doc: import('yaml').Document, lines: import('yaml').LineCounter): void {
  yaml.visit(doc, {
    Map(_key, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = yaml.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (!seen.has(key)) {
          seen.add(key);
          continue;
        }
        const at = yaml.isNode(pair.key) && pair.key.range ? lines.linePos(pair.key.range[0]) : undefined;
        throw new YamlSyntaxError(`Map keys must be unique ('${key.slice(0, 40)}' appears twice)`, at?.line, at?.col);
      }
    },
  });
}

/** The text of `previous` changed to hold `value`, touching only what changed (comments, styles and tags stay). */
export async function editYaml(previous: string, value: unknown): Promise<string> {
  const yaml = await loadYaml();
  const doc = parsed?.text === previous ? parsed.doc : yaml.parseDocument(previous);
  parsed = undefined; // edited below: no longer the document of that text
  syncNode(yaml, doc, doc.contents, value, (node) => (doc.contents = node as never));
  return doc.toString();
}

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
      if (!Object.hasOwn(record, key) || record[key] === undefined) {
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
