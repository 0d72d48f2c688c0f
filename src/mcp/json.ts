// A JSON-RPC line's `id` as written (JSON.parse changes `1e308` or a 64-bit id, and JSON-RPC wants it back unchanged)
// and which of `method`, `result`, `error` it has; a line too long to keep is scanned as it streams, to name its id.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** What the scanner learnt of one message: the line's object, or one object of a batch. */
export interface Scanned {
  /** The text of its `id` as written, when that is a string or a number no longer than the scanner keeps. */
  id?: string;
  hasId: boolean;
  hasMethod: boolean;
  /** It has a `result` or an `error`: a response. */
  hasReply: boolean;
}

/** A key longer than this cannot be "id", "method", "result" or "error", however it is escaped. */
const KEY_BYTES = 64;

type Key = 'id' | 'method' | 'reply' | 'other';
const KEYS = new Map<unknown, Key>([
  ['id', 'id'],
  ['method', 'method'],
  ['result', 'reply'],
  ['error', 'reply'],
]);

/** A token's value, or undefined when it is not JSON. */
function valueOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// Reads one line's bytes in pieces, keeping only the member names it looks for and ids' text. On bytes that are not
// JSON it learns less, never more (an id it reports is a whole string or number token).
export class MessageScanner {
  /** By index: the line's object at 0, or the objects of a batch; other values have no entry. */
  readonly messages = new Map<number, Scanned>();
  /** What the line holds: an object, an array (a batch), something else, or nothing yet. */
  top: 'object' | 'array' | 'other' | undefined;

  private depth = 0;
  private done = false;
  /** Inside a string or a bare value (a number, true, …), and how many backslashes end the string read so far. */
  private token: 'string' | 'bare' | undefined;
  private backslashes = 0;
  /** The depth of the objects whose members count: 1 for one message, 2 for a batch's. */
  private level = 1;
  private element = -1;
  private current: number | undefined;
  private expect: 'key' | 'colon' | 'value' | 'next' = 'key';
  private key: Key = 'other';
  private capture: { what: 'key' | 'id'; pieces: Buffer[]; bytes: number; from: number } | undefined;

  constructor(private readonly maxIdBytes: number) {}

  feed(buf: Buffer, start = 0, end = buf.length): void {
    if (this.capture) this.capture.from = start;
    for (let i = start; i < end && !this.done; i++) {
      if (this.token === 'string') {
        // To the next quote, in linear time; an odd run of backslashes before it escapes it.
        const quote = buf.indexOf(QUOTE, i);
        const stop = quote === -1 || quote >= end ? end : quote;
        let run = stop;
        while (run > i && buf[run - 1] === BACKSLASH) run--;
        const backslashes = stop - run + (run === i ? this.backslashes : 0);
        i = stop;
        if (stop === end) this.backslashes = backslashes;
        else if (backslashes % 2 === 1) this.backslashes = 0;
        else this.endToken(buf, stop + 1);
        continue;
      }
      const c = buf[i]!;
      if (this.token === 'bare') {
        if (!isSpace(c) && c !== COMMA && c !== CLOSE_BRACE && c !== CLOSE_BRACKET) continue;
        this.endToken(buf, i);
      }
      if (!isSpace(c)) this.step(c, i);
    }
    const capture = this.capture;
    if (capture && end > capture.from) {
      capture.pieces.push(buf.subarray(capture.from, end));
      capture.bytes += end - capture.from;
      if (capture.bytes > (capture.what === 'key' ? KEY_BYTES : this.maxIdBytes)) this.capture = undefined;
    }
  }

  private step(c: number, i: number): void {
    if (this.depth === 0) {
      // The line's first value says what it holds; anything after it is not read.
      if (this.top !== undefined || (c !== OPEN_BRACE && c !== OPEN_BRACKET)) {
        this.top ??= 'other';
        this.done = true;
        return;
      }
      this.top = c === OPEN_BRACE ? 'object' : 'array';
      this.level = c === OPEN_BRACE ? 1 : 2;
    }
    const members = this.current !== undefined && this.depth === this.level;
    switch (c) {
      case OPEN_BRACE:
      case OPEN_BRACKET:
        this.value(i, false);
        this.depth++;
        if (this.depth === this.level && c === OPEN_BRACE) {
          this.current = this.top === 'array' ? this.element : 0;
          this.expect = 'key';
        }
        return;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        if (this.depth === this.level) this.current = undefined;
        this.depth--;
        if (this.depth === 0) this.done = true;
        return;
      case COLON:
        if (members && this.expect === 'colon') this.expect = 'value';
        return;
      case COMMA:
        if (members) this.expect = 'key';
        return;
      case QUOTE:
        this.token = 'string';
        this.backslashes = 0;
        if (members && this.expect === 'key') {
          this.key = 'other';
          this.capture = { what: 'key', pieces: [], bytes: 0, from: i };
          this.expect = 'colon';
        } else {
          this.value(i, true);
        }
        return;
      default:
        this.token = 'bare';
        this.value(i, true);
    }
  }

  private entry(): Scanned {
    const index = this.current!;
    let found = this.messages.get(index);
    if (!found) this.messages.set(index, (found = { hasId: false, hasMethod: false, hasReply: false }));
    return found;
  }

  /** A value starts at `i`: an element of the batch, or a member's value. */
  private value(i: number, scalar: boolean): void {
    if (this.depth === 1 && this.top === 'array') this.element++;
    if (this.current === undefined || this.depth !== this.level || this.expect !== 'value') return;
    this.expect = 'next';
    if (this.key === 'other') return;
    const entry = this.entry();
    if (this.key === 'method') entry.hasMethod = true;
    else if (this.key === 'reply') entry.hasReply = true;
    else {
      entry.hasId = true;
      delete entry.id; // a later id wins, as in JSON.parse
      if (scalar) this.capture = { what: 'id', pieces: [], bytes: 0, from: i };
    }
  }

  private endToken(buf: Buffer, end: number): void {
    this.token = undefined;
    const capture = this.capture;
    if (!capture) return;
    this.capture = undefined;
    const bytes = capture.bytes + end - capture.from;
    if (bytes > (capture.what === 'key' ? KEY_BYTES : this.maxIdBytes)) return;
    const text = Buffer.concat([...capture.pieces, buf.subarray(capture.from, end)]).toString('utf8');
    if (capture.what === 'key') this.key = KEYS.get(text.includes('\\') ? valueOf(text) : text.slice(1, -1)) ?? 'other';
    else if (this.current !== undefined && isId(valueOf(text))) this.entry().id = text;
  }
}

/** Whether a token's value is a string or a number, as an id must be (`true` or `12x` is not). */
const isId = (value: unknown): boolean => typeof value === 'string' || typeof value === 'number';

/** The path to the first own member `name` anywhere in `value`, not inside `skip`; no recursion (deep nesting). */
export function findKey(value: unknown, name: string, skip?: unknown): string[] | undefined {
  type Node = { value: unknown; key: string; parent: Node | undefined };
  const stack: Node[] = [{ value, key: '', parent: undefined }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const v = node.value;
    if (typeof v !== 'object' || v === null || v === skip) continue;
    if (!Array.isArray(v) && Object.hasOwn(v, name)) {
      const path = [name];
      for (let n: Node | undefined = node; n?.parent; n = n.parent) path.push(n.key);
      return path.reverse();
    }
    const entries = Array.isArray(v) ? v.map((item, i) => [String(i), item] as const) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--)
      stack.push({ value: entries[i]![1], key: entries[i]![0], parent: node });
  }
  return undefined;
}
