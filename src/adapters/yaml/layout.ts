/** Where things stand in YAML a person wrote, for splice.ts: each value's item and collection, and the text around. */
import type { CST, Document, Node, Pair } from 'yaml';

type YamlModule = typeof import('yaml');

/** A shape splice.ts does not handle: the caller writes the file another way. */
export class Unspliceable extends Error {}

/** Where a CST token stands: the collection item that holds it and the collection (or document). */
type Slot = { item: CST.CollectionItem; parent: CST.Token };

/** How a value sits in its parent, which decides how it is written. */
export interface Place {
  kind: 'map-value' | 'seq-item' | 'flow' | 'root';
  /** The CST item holding the value (its `:` or `-`, its props, comments before it). */
  item?: CST.CollectionItem;
  /** The column of the key (map value) or of the `-` (list item): a block value goes two further in. */
  column: number;
}

/** What splice.ts builds on: the syntax tree's items by token, and the source text around them. */
export class Layout {
  private readonly slots = new Map<CST.Token, Slot>();
  /** The file's line break. */
  readonly nl: string;

  constructor(
    protected readonly yaml: YamlModule,
    protected readonly doc: Document,
    protected readonly src: string,
  ) {
    this.nl = src.includes('\r\n') ? '\r\n' : '\n';
    const root = doc.contents as Node | null;
    const rootToken = root && (root as { srcToken?: CST.Token }).srcToken;
    if (!rootToken) throw new Unspliceable();
    this.index(rootToken, { item: { start: [] }, parent: { type: 'document', offset: 0, start: [] } });
  }

  private index(token: CST.Token, slot: Slot): void {
    this.slots.set(token, slot);
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') return;
    for (const item of token.items) {
      if (item.key) this.index(item.key, { item, parent: token });
      if (item.value) this.index(item.value, { item, parent: token });
    }
  }

  slotOf(node: Node | Pair | null | undefined): Slot | undefined {
    if (!node) return undefined;
    if (this.yaml.isPair(node)) return this.slotOf(node.key as Node);
    const token = (node as { srcToken?: CST.Token }).srcToken;
    return token ? this.slots.get(token) : undefined;
  }

  /** Where the value `node` (of `pair`, when in a map) sits. */
  placeOf(node: Node | null, pair?: Pair): Place {
    const slot = this.slotOf(pair ?? node);
    if (!slot) throw new Unspliceable();
    const { item, parent } = slot;
    switch (parent.type) {
      case 'block-map':
        return { kind: 'map-value', item, column: this.column(this.itemStart(pair ?? node!)) };
      case 'block-seq': {
        const dash = item.start.find((t) => t.type === 'seq-item-ind');
        if (!dash) throw new Unspliceable();
        return { kind: 'seq-item', item, column: this.column(dash.offset) };
      }
      case 'flow-collection':
        return { kind: 'flow', item, column: 0 };
      default:
        return { kind: 'root', column: -2 };
    }
  }

  /** Where an item starts: its `-` or `?`, its props or its key (not the comments and commas before it). */
  itemStart(node: Node | Pair): number {
    const slot = this.slotOf(node);
    const first = slot?.item.start.find(
      (t) => t.type !== 'space' && t.type !== 'newline' && t.type !== 'comment' && t.type !== 'comma',
    );
    if (first) return first.offset;
    const at = this.yaml.isPair(node) ? (node.key as Node | null)?.range?.[0] : node.range?.[0];
    if (at === undefined) throw new Unspliceable();
    return at;
  }

  /** Where an item's value ends (before a comment after it). */
  itemEnd(node: Node | Pair): number {
    if (this.yaml.isPair(node)) {
      const value = node.value as Node | null;
      const key = node.key as Node | null;
      const end = value?.range?.[1] ?? key?.range?.[1];
      if (end === undefined) throw new Unspliceable();
      return Math.max(end, key?.range?.[1] ?? 0);
    }
    if (!node.range) throw new Unspliceable();
    return node.range[1];
  }

  lineStart(pos: number): number {
    return this.src.lastIndexOf('\n', pos - 1) + 1;
  }

  column(pos: number): number {
    return pos - this.lineStart(pos);
  }

  atLineStart(pos: number): boolean {
    return pos === 0 || this.src[pos - 1] === '\n';
  }

  /** Only spaces between the start of `pos`'s line and `pos`. */
  firstOnLine(pos: number): boolean {
    return /^[ \t]*$/.test(this.src.slice(this.lineStart(pos), pos));
  }

  /** Past the rest of `pos`'s line when only spaces and a comment follow, newline included; else pos. */
  restOfLine(pos: number): number {
    if (this.atLineStart(pos)) return pos;
    const m = /^[ \t]*(?:#[^\r\n]*)?(?:\r?\n|$)/.exec(this.src.slice(pos));
    return m ? pos + m[0].length : pos;
  }

  isFlow(node: Node): boolean {
    return (node as { srcToken?: CST.Token }).srcToken?.type === 'flow-collection';
  }
}
