/** YAML a person may have written, edited so everything unchanged stays byte for byte (splice.ts). A repository's file
 * is untrusted: alias bombs, self-aliases, deep nesting and huge files are refused (YamlRefusedError) early. */
import { RESERVED_NAMES } from '../../domain/fields.js';
import { quietly } from '../io-errors.js';
import { MAX_DEPTH, parseCanonicalYaml } from './canonical.js';
import { plainData, sameData } from './data.js';
import { emitYaml } from './emit.js';
import { spliceYaml } from './splice.js';

type YamlModule = typeof import('yaml');
type YamlDocument = import('yaml').Document;
type CstToken = import('yaml').CST.Token;

let yamlModule: YamlModule | undefined;
async function loadYaml(): Promise<YamlModule> {
  if (!yamlModule) {
    // yaml ships CommonJS to Node: bundled, its functions sit on the default export.
    const m = (await import('yaml')) as YamlModule & { default?: YamlModule };
    yamlModule = m.default ?? m;
  }
  return yamlModule;
}

/** YAML sow will not read (invalid, too many values, too deep, aliases that expand without end, a reserved key), said
 * as a state file's problem; `path` is where a reserved key stands. */
export class YamlRefusedError extends Error {
  constructor(
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

type Pos = { line: number; col: number } | undefined;

/** Invalid YAML, with where it is (1-based line and column). */
const invalid = (message: string, pos: Pos) =>
  new YamlRefusedError(`not valid YAML${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}: ${message}`);

const where = (pos: Pos) => (pos ? ` (line ${pos.line}, column ${pos.col})` : '');

/** More values than this (an upper bound, lines and commas: each value takes a line, or a comma in a flow
 * collection) is not a state file. */
const MAX_VALUES = 100_000;

/** How many values aliases may add (yaml's measure): a state file needs a few, a "billion laughs" file billions. */
const MAX_ALIAS_COUNT = 100;

/** Refuses the first key anywhere in `value` that names a part of every JavaScript object (`constructor`): data would
 * not hold it faithfully. */
function refuseReservedKeys(value: unknown, path: string[] = []): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => refuseReservedKeys(item, [...path, String(i)]));
    return;
  }
  for (const key of Object.keys(value)) {
    if (RESERVED_NAMES.has(key))
      throw new YamlRefusedError(
        `'${key}' names a part of every JavaScript object, so sow cannot keep it as a key; rename it (e.g. '${key}_')`,
        [...path, key].join('.'),
      );
    refuseReservedKeys((value as Record<string, unknown>)[key], [...path, key]);
  }
}

/** Parses YAML: what sow wrote with the canonical reader (≈20× faster), the rest with the yaml package (`handWritten`:
 * not in the form sow writes, so writes splice the change into the text to keep that form). */
export async function parseYaml(text: string): Promise<{ data: unknown; handWritten: boolean }> {
  const fast = parseCanonicalYaml(text);
  if (fast !== undefined) return { data: fast, handWritten: false };
  const yaml = await loadYaml();
  const doc = composeDocument(yaml, text);
  const data = documentData(doc);
  parsed = { text, doc };
  return { data, handWritten: true };
}

/** The last hand-written document parsed, so that the write after a read does not parse it again. */
let parsed: { text: string; doc: YamlDocument } | undefined;

/** Exact integers; our duplicate-key check (yaml's is quadratic); no warnings; the syntax tree kept for splice.ts. */
const OPTIONS = { intAsBigInt: true, uniqueKeys: false, keepSourceTokens: true, logLevel: 'error' } as const;

/** Parses `text` into a document, refusing what is not a state file; throws YamlRefusedError. */
function composeDocument(yaml: YamlModule, text: string): YamlDocument {
  if ((text.match(/[\n,]/g)?.length ?? 0) > MAX_VALUES) {
    throw new YamlRefusedError(
      `holds more than ${MAX_VALUES.toLocaleString('en')} values (lines and commas); a state file has a few ` +
        `hundred, so sow does not read it`,
    );
  }
  const lines = new yaml.LineCounter();
  const at = (offset: number | undefined) => (offset === undefined ? undefined : lines.linePos(offset));
  // Composing recurses per level, so depth is checked before it.
  function* checked(tokens: Iterable<CstToken>): Generator<CstToken> {
    for (const token of tokens) {
      const deep = tooDeep(token);
      if (deep !== undefined) throw nestsTooDeep(at(deep));
      yield token;
    }
  }
  const composer = new yaml.Composer(OPTIONS);
  let doc: YamlDocument | undefined;
  for (const d of composer.compose(checked(parseShallow(yaml, text, lines)), true, text.length)) {
    if (doc) {
      throw invalid(
        'holds more than one document (a second one starts after ---); a state file is one',
        at(d.range[0]),
      );
    }
    doc = d as YamlDocument;
  }
  if (!doc) throw invalid('is empty', undefined);
  const error = doc.errors[0];
  if (error) throw invalid(error.message.split('\n')[0] ?? 'invalid YAML', at(error.pos[0]));
  refuseDuplicatesAndCycles(yaml, doc, lines);
  return doc;
}

const nestsTooDeep = (pos: Pos) =>
  new YamlRefusedError(
    `nests collections more than ${MAX_DEPTH} levels deep${where(pos)}; sow's files nest a few levels, ` +
      `so sow does not read it`,
  );

/** The parser's tokens, refused once open collections nest deeper than MAX_DEPTH: a whole document would come too
 * late for a hostile file. `tooDeep` still checks each whole document. */
function* parseShallow(yaml: YamlModule, text: string, lines: import('yaml').LineCounter): Generator<CstToken> {
  const parser = new yaml.Parser(lines.addNewLine);
  lines.addNewLine(0);
  for (const lexeme of new yaml.Lexer().lex(text)) {
    yield* parser.next(lexeme);
    // The stack holds the document and each collection still open (and a token being built).
    if (parser.stack.length > MAX_DEPTH) {
      let depth = 0;
      for (const t of parser.stack) {
        if ((t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') && ++depth > MAX_DEPTH)
          throw nestsTooDeep(lines.linePos(t.offset));
      }
    }
  }
  yield* parser.end();
}

/** Where a collection nests deeper than MAX_DEPTH in `token` (an offset), if it does; without recursion. */
function tooDeep(token: CstToken): number | undefined {
  const stack: [CstToken, number][] = [[token, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [t, depth] = next;
    if (t.type === 'document') {
      if (t.value) stack.push([t.value, depth]);
    } else if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') {
      if (depth + 1 > MAX_DEPTH) return t.offset;
      for (const item of t.items) {
        if (item.key) stack.push([item.key, depth + 1]);
        if (item.value) stack.push([item.value, depth + 1]);
      }
    }
  }
  return undefined;
}

/** The data of a composed document: exact integers, plain values, no names of object internals. */
function documentData(doc: YamlDocument): unknown {
  let data: unknown;
  try {
    data = plainData(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
  } catch (err) {
    // yaml's guard against alias bombs ("excessive alias count").
    if (err instanceof ReferenceError)
      throw new YamlRefusedError(
        `uses aliases (*name) that would repeat their anchors' values more than ${MAX_ALIAS_COUNT} times; sow's ` +
          `files need a few, so sow does not read it`,
      );
    throw err;
  }
  refuseReservedKeys(data);
  return data;
}

/** Keys twice in a map, and `&a [*a]`: a value that contains itself, which no data (and no JSON) can hold. */
function refuseDuplicatesAndCycles(yaml: YamlModule, doc: YamlDocument, lines: import('yaml').LineCounter): void {
  const anchors = new Map<string, unknown>();
  const pos = (node: unknown) => (yaml.isNode(node) && node.range ? lines.linePos(node.range[0]) : undefined);
  yaml.visit(doc, {
    Node(_key, node, path) {
      if (yaml.isAlias(node)) {
        const target = anchors.get(node.source);
        if (target !== undefined && path.includes(target as never)) {
          throw new YamlRefusedError(
            `has the alias *${node.source}${where(pos(node))} inside the value its anchor names: a value that ` +
              `contains itself, which sow cannot hold`,
          );
        }
        return undefined;
      }
      if (node.anchor) anchors.set(node.anchor, node);
      if (!yaml.isMap(node)) return undefined;
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = yaml.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (seen.has(key))
          throw invalid(`Map keys must be unique ('${key.slice(0, 40)}' appears twice)`, pos(pair.key));
        seen.add(key);
      }
      return undefined;
    },
  });
}

/** `previous` changed to hold `value`, touching only what changed (splice.ts); a shape the splice does not handle is
 * written in sow's own form, which holds the same data but not the file's comments. */
export async function editYaml(previous: string, value: unknown): Promise<string> {
  const yaml = await loadYaml();
  const doc = parsed?.text === previous ? parsed.doc : composeDocument(yaml, previous);
  parsed = undefined;
  const spliced = spliceYaml(yaml, doc, previous, documentData(doc), value);
  if (spliced !== undefined && holds(yaml, spliced, value)) return spliced;
  return emitYaml(value as Record<string, unknown>);
}

/** Whether `text` reads back as exactly `value`. */
const holds = (yaml: YamlModule, text: string, value: unknown): boolean =>
  quietly(() => sameData(documentData(composeDocument(yaml, text)), value)) === true;
