/** Writes a new value into YAML a person wrote by changing only the text of what changed, guided by the syntax tree
 * (layout.ts), since `Document.toString()` reformats every node. Undefined for shapes it does not handle. */
import type { Alias, CST, Document, Node, Pair, Scalar } from 'yaml';
import { quietly } from '../io-errors.js';
import { plainData, sameData } from './data.js';
import { emitScalar, emitString, emitYaml, hasEntries, isRecord, quoteString } from './emit.js';
import { Layout, Unspliceable, type Place } from './layout.js';

type YamlModule = typeof import('yaml');

const YAML_TAG = 'tag:yaml.org,2002:';
const SINGLE_QUOTABLE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]*$/;

/** `src` changed to hold `next`, or undefined when its shape is one this module does not handle. */
export function spliceYaml(
  yaml: YamlModule,
  doc: Document,
  src: string,
  old: unknown,
  next: unknown,
): string | undefined {
  // Unspliceable, or a shape this module gets wrong: undefined, and the caller writes the file another way.
  return quietly(() => new Splicer(yaml, doc, src).run(old, next));
}

class Splicer extends Layout {
  private readonly edits: { from: number; to: number; text: string }[] = [];
  /** Anchored nodes whose value changed (what they hold now) or that are gone (undefined). */
  private readonly anchorFate = new Map<Node, { value: unknown } | undefined>();
  /** Aliases the walk reached, with the value their place holds now. */
  private readonly aliasesReached = new Map<Alias, unknown>();
  /** Text removed or rewritten whole: aliases and anchors inside it are gone. */
  private readonly cleared: [number, number][] = [];

  run(old: unknown, next: unknown): string {
    const root = this.doc.contents as Node;
    if (!(isRecord(old) && isRecord(next) && this.yaml.isMap(root))) throw new Unspliceable();
    this.sync(root, old, next, { kind: 'root', column: -2 });
    this.settleAliases();
    return this.apply();
  }

  private sync(node: Node, old: unknown, next: unknown, place: Place): void {
    const yaml = this.yaml;
    if (yaml.isAlias(node)) {
      this.aliasesReached.set(node, next);
      return;
    }
    if (sameData(old, next)) return;
    const tag = node.tag;
    const plainTag =
      tag === undefined || tag === `${YAML_TAG}map` || tag === `${YAML_TAG}seq` || !tag.startsWith(YAML_TAG);
    if (yaml.isMap(node) && plainTag && isRecord(old) && isRecord(next)) return this.syncMap(node, old, next, place);
    // A flow list may hold pairs (`[a: 1]`): not items this module splices.
    const seq = yaml.isSeq(node) && node.items.every((i) => yaml.isNode(i));
    if (seq && plainTag && Array.isArray(old) && Array.isArray(next))
      return this.syncSeq(node as Node & { items: Node[] }, old, next, place);
    this.replace(node, next, place);
  }

  /** The key as the data spells it (yaml's own text for a key that is a collection: `[ a, b ]`). */
  private keyOf(pair: Pair): string {
    const alone = new this.yaml.YAMLMap();
    alone.items.push(pair);
    return Object.keys(alone.toJS(this.doc, { maxAliasCount: 100 }))[0]!;
  }

  private syncMap(
    node: Node & { items: Pair[] },
    old: Record<string, unknown>,
    next: Record<string, unknown>,
    place: Place,
  ): void {
    const keys = node.items.map((p) => this.keyOf(p));
    const kept = keys.map((k) => Object.hasOwn(next, k) && next[k] !== undefined);
    const added = Object.keys(next).filter((k) => next[k] !== undefined && !keys.includes(k));
    if (!kept.includes(true)) return this.replace(node, next, place);
    if (node.anchor) this.anchorFate.set(node, { value: next });
    const flow = this.isFlow(node);
    node.items.forEach((pair, i) => {
      if (!kept[i]) return;
      const key = keys[i]!;
      const value = pair.value as Node | null;
      if (value === null) {
        // `{x, y}`: a key without a value (null); a value now comes after it.
        if (next[key] !== null) this.insert(this.itemEnd(pair), `: ${this.inline(next[key])}`);
        return;
      }
      this.sync(value, old[key], next[key], this.placeOf(value, pair));
    });
    this.removeRuns(node.items, kept, flow);
    if (added.length) {
      const lastEnd = this.itemEnd(node.items[node.items.length - 1]!);
      if (flow) {
        this.insert(lastEnd, added.map((k) => `, ${emitString(k)}: ${this.inline(next[k])}`).join(''));
      } else {
        const first = node.items[0]!;
        const column = this.column(this.itemStart(first));
        const entries = Object.fromEntries(added.map((k) => [k, next[k]]));
        this.insertLines(this.restOfLine(lastEnd), emitYaml(entries, ' '.repeat(column)));
      }
    }
  }

  private syncSeq(node: Node & { items: Node[] }, old: unknown[], next: unknown[], place: Place): void {
    const items = node.items;
    const n = items.length;
    const m = next.length;
    if (n === 0 || m === 0) return this.replace(node, next, place);
    // Items kept at the front and at the back: removing or adding one touches only that one.
    let front = 0;
    while (front < n && front < m && this.unchanged(items[front]!, old[front], next[front])) front++;
    let back = 0;
    while (
      back < n - front &&
      back < m - front &&
      this.unchanged(items[n - 1 - back]!, old[n - 1 - back], next[m - 1 - back])
    )
      back++;
    const paired = Math.min(n - front - back, m - front - back);
    const kept = items.map((_, i) => i < front + paired || i >= n - back);
    if (!kept.includes(true)) return this.replace(node, next, place);
    if (node.anchor) this.anchorFate.set(node, { value: next });
    const flow = this.isFlow(node);
    for (let k = 0; k < paired; k++) {
      const i = front + k;
      this.sync(items[i]!, old[i], next[i], this.placeOf(items[i]!));
    }
    this.removeRuns(items, kept, flow);
    const insert = next.slice(front + paired, m - back);
    if (insert.length === 0) return;
    const after = front + paired - 1; // the item the new ones follow (-1: they come first)
    if (flow) {
      const texts = insert.map((v) => this.inline(v));
      if (after >= 0) this.insert(this.itemEnd(items[after]!), texts.map((t) => `, ${t}`).join(''));
      else this.insert(this.itemStart(items[0]!), texts.map((t) => `${t}, `).join(''));
      return;
    }
    // New items line up under the first `-` (which may stand after another one: `- - a`).
    const dash = this.itemStart(items[0]!);
    const column = this.column(dash);
    const text = emitYaml(insert, ' '.repeat(column));
    if (after >= 0) this.insertLines(this.restOfLine(this.itemEnd(items[after]!)), text);
    else if (this.firstOnLine(dash)) this.insert(this.lineStart(dash), text.replaceAll('\n', this.nl));
    // `- - a`: `- - new` then `  - a`
    else this.insert(dash, text.slice(column).replaceAll('\n', this.nl) + ' '.repeat(column));
  }

  /** Whether an item keeps its text as it is (an alias: only if its anchor keeps its value too). */
  private unchanged(node: Node, old: unknown, next: unknown): boolean {
    return !this.yaml.isAlias(node) && sameData(old, next);
  }

  /** Removes the items not kept, a run of neighbours at a time. */
  private removeRuns(items: readonly (Node | Pair)[], kept: readonly boolean[], flow: boolean): void {
    for (let a = 0; a < items.length; a++) {
      if (kept[a]) continue;
      let b = a;
      while (b + 1 < items.length && !kept[b + 1]) b++;
      let from: number;
      let to: number;
      if (flow) {
        // `, item` after a neighbour, or `item, ` before the next one.
        if (a > 0) [from, to] = [this.itemEnd(items[a - 1]!), this.itemEnd(items[b]!)];
        else [from, to] = [this.itemStart(items[a]!), this.itemStart(items[b + 1]!)];
      } else {
        const start = this.itemStart(items[a]!);
        if (this.firstOnLine(start)) [from, to] = [this.lineStart(start), this.restOfLine(this.itemEnd(items[b]!))];
        else if (b + 1 < items.length)
          [from, to] = [start, this.itemStart(items[b + 1]!)]; // `- a: 1` with a gone: `- b: 2`
        else throw new Unspliceable();
      }
      for (let i = a; i <= b; i++) this.forget(items[i]!);
      this.edit(from, to, '');
      a = b;
    }
  }

  private insertLines(at: number, text: string): void {
    let lines = text.replaceAll('\n', this.nl);
    if (at > 0 && !this.atLineStart(at)) {
      if (at !== this.src.length) throw new Unspliceable();
      lines = this.nl + lines.slice(0, -this.nl.length); // the file ends without a newline; so does the new text
    }
    this.insert(at, lines);
  }

  private replace(node: Node, next: unknown, place: Place, flowLike = false): void {
    if (!node.range || place.kind === 'root') throw new Unspliceable();
    const [r0, r1] = node.range;
    this.forget(node);
    // The value's props and comments: in `sep` after a key, in `start` for a list item.
    const item = place.item;
    const tokens = (item && (item.key !== undefined || item.sep ? item.sep : item.start)) ?? [];
    // The anchor and a custom tag stay; a YAML tag (!!set, !!str …) goes: the new value is plain data.
    const props: string[] = [];
    if (node.anchor) props.push(`&${node.anchor}`);
    const tag = tokens.find((t) => t.type === 'tag');
    if (tag && node.tag && !node.tag.startsWith(YAML_TAG)) props.push(tag.source);
    const first = tokens.find((t) => t.type === 'anchor' || t.type === 'tag');
    const propsStart = first && first.offset < r0 ? first.offset : r0;
    if (node.anchor) this.anchorFate.set(node, { value: next });
    const lead = props.length ? `${props.join(' ')} ` : '';

    // In or for a flow collection with entries a new collection is flow too; `{}` and `[]` that fill up become blocks.
    const wasFlow = flowLike || (this.isFlow(node) && (node as Node & { items: unknown[] }).items.length > 0);
    if (place.kind === 'flow' || wasFlow) {
      this.edit(propsStart, r1, lead + this.inline(next, node));
      return;
    }
    // The end of the `:` of a map value (in `sep`) or the `-` of a list item (in `start`).
    const ind = tokens.find((t) => t.type === (place.kind === 'map-value' ? 'map-value-ind' : 'seq-item-ind'));
    if (!ind) throw new Unspliceable();
    const indicator = ind.offset + ind.source.length;
    if (!hasEntries(next) && !this.src.slice(indicator, r0).includes('\n')) {
      // One line for one line: only the value's text changes (spacing and comment after it stay).
      const space = r0 === indicator ? ' ' : ''; // `key:` with no value yet
      // A block scalar took its line break with it.
      const lineEnd = r1 > r0 && this.atLineStart(r1) ? this.nl : '';
      this.edit(propsStart, r1, space + lead + this.inline(next, node, place) + lineEnd);
      return;
    }
    // Props and comments between the indicator and the value, and a comment after it, are written again.
    const comments = tokens
      .filter((t) => t.type === 'comment' && t.offset >= indicator && t.offset < r0)
      .map((t) => t.source);
    const after = this.atLineStart(r1) ? null : /^[ \t]+(#[^\r\n]*)/.exec(this.src.slice(r1));
    if (after) comments.push(after[1]!);
    const end = r1 + (after?.[0].length ?? 0);
    const endsLine = this.atLineStart(end) && end > indicator; // the old value took its lines whole
    const note = comments.join(' ');
    let text: string;
    if (!hasEntries(next)) {
      text = ` ${[lead + this.inline(next, node, place), note].filter(Boolean).join(' ')}`;
      if (endsLine && !text.endsWith('\n')) text += this.nl;
    } else {
      const indent = ' '.repeat(place.column + 2);
      const block = emitYaml(next as Record<string, unknown>, indent).replaceAll('\n', this.nl);
      const head = [lead.trimEnd(), note].filter(Boolean).join(' ');
      if (place.kind === 'seq-item' && isRecord(next) && !head) {
        text = ` ${block.slice(indent.length)}`; // `- key: value`, the rest of the map beneath
      } else {
        text = (head ? ` ${head}` : '') + this.nl + block;
      }
      if (!endsLine) text = text.slice(0, -this.nl.length);
    }
    this.edit(indicator, end, text);
  }

  /** `value` on one line: a scalar (in the quoting `was` used, where it can), `{}`/`[]`, or a flow collection. */
  private inline(value: unknown, was?: Node, place?: Place): string {
    if (typeof value === 'string') {
      const type = was && this.yaml.isScalar(was) ? (was as Scalar).type : undefined;
      if (type === 'QUOTE_DOUBLE') return quoteString(value);
      if (type === 'QUOTE_SINGLE' && SINGLE_QUOTABLE.test(value)) return `'${value.replaceAll("'", "''")}'`;
      if ((type === 'BLOCK_LITERAL' || type === 'BLOCK_FOLDED') && value.includes('\n') && place)
        return this.blockScalar(was as Scalar, value, place);
      return emitString(value);
    }
    if (Array.isArray(value)) return value.length ? `[${value.map((v) => this.inline(v)).join(', ')}]` : '[]';
    if (isRecord(value)) {
      const entries = Object.entries(value).filter(([, v]) => v !== undefined);
      return entries.length ? `{${entries.map(([k, v]) => `${emitString(k)}: ${this.inline(v)}`).join(', ')}}` : '{}';
    }
    return emitScalar(value);
  }

  /** A multi-line text where a `|` or `>` block stood: a literal block again, indented under its key. */
  private blockScalar(was: Scalar, value: string, place: Place): string {
    const token = (was as { srcToken?: CST.Token }).srcToken;
    if (!token || token.type !== 'block-scalar') return quoteString(value);
    const copy = structuredClone(token) as CST.BlockScalar;
    this.yaml.CST.setScalarValue(copy, value, { afterKey: place.kind === 'map-value', type: 'BLOCK_LITERAL' });
    return this.yaml.CST.stringify(copy).replace(/\r?\n$/, '');
  }

  /** `node` (a value, or a whole pair) is removed or rewritten: anchors in it are gone, aliases in it with it. */
  private forget(node: Node | Pair): void {
    const yaml = this.yaml;
    const range = yaml.isPair(node)
      ? [(node.key as Node | null)?.range?.[0], this.itemEnd(node)]
      : [node.range?.[0], node.range?.[1]];
    if (range[0] !== undefined && range[1] !== undefined) this.cleared.push([range[0], range[1]]);
    // The visit takes in the node (or the pair's key and value) itself.
    yaml.visit(node as Node, {
      Node: (_k, inner) => {
        if (inner.anchor) this.anchorFate.set(inner, undefined);
      },
    });
  }

  /** An alias still in the text whose anchor or place changed is written out as the value its place now holds. */
  private settleAliases(): void {
    const yaml = this.yaml;
    const defined = new Map<string, Node>();
    yaml.visit(this.doc, {
      Node: (_k, alias, path) => {
        if (!yaml.isAlias(alias)) {
          if (alias.anchor) defined.set(alias.anchor, alias);
          return;
        }
        const start = alias.range?.[0];
        if (start !== undefined && this.cleared.some(([a, b]) => start >= a && start < b)) return;
        const anchor = defined.get(alias.source);
        if (!anchor) throw new Unspliceable();
        const reached = this.aliasesReached.has(alias);
        if (!reached && !this.anchorFate.has(anchor)) return; // nothing about it changed
        const fate = this.anchorFate.has(anchor) ? this.anchorFate.get(anchor) : { value: this.oldValue(anchor) };
        const wanted = reached ? this.aliasesReached.get(alias) : this.oldValue(anchor);
        if (fate && sameData(fate.value, wanted)) return;
        const parent = path.at(-1);
        const holder = yaml.isPair(parent) ? parent : undefined;
        // A key keeps its text: the one the data names it by. A value is written out in the style it stood for.
        if (holder?.key === alias) this.edit(alias.range![0], alias.range![1], emitString(this.keyOf(holder)));
        else this.replace(alias, wanted, this.placeOf(alias, holder), this.isFlow(anchor));
      },
    });
  }

  private oldValue(node: Node): unknown {
    return plainData(node.toJS(this.doc, { maxAliasCount: 100 }));
  }

  private edit(from: number, to: number, text: string): void {
    this.edits.push({ from, to, text });
  }

  private insert(at: number, text: string): void {
    this.edit(at, at, text);
  }

  private apply(): string {
    const edits = this.edits.map((e, i) => ({ ...e, i })).sort((a, b) => a.from - b.from || a.to - b.to || a.i - b.i);
    let out = '';
    let at = 0;
    for (const e of edits) {
      if (e.from < at) throw new Unspliceable(); // two edits of one stretch of text: not a shape handled here
      out += this.src.slice(at, e.from) + e.text;
      at = e.to;
    }
    return out + this.src.slice(at);
  }
}
