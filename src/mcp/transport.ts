// Our own stdio transport: the SDK's drops what its schema refuses without a word and exits on a long line; here every
// request with an id is answered with the spec's error code. Requests reach the SDK under our own ids (1, 2, 3, …).
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { nearMiss } from '../domain/suggest.js';
import { isRecord } from '../domain/json.js';
import { MessageScanner, type Scanned } from './json.js';

/** The longest line read, in bytes (the SDK's own limit): a longer one is refused, read past keeping only its id. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** JSON-RPC 2.0's error codes (§5.1). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

const REQUEST_MEMBERS = ['jsonrpc', 'id', 'method', 'params'];
const NOTIFICATION_MEMBERS = ['jsonrpc', 'method', 'params'];
const RESPONSE_MEMBERS = new Set(['jsonrpc', 'id', 'result', 'error']);

/** Checks a request or notification before the SDK sees it: the text of an invalid-params error, if any. */
export type MessageCheck = (message: { method: string; id?: unknown; params?: unknown }) => string | undefined;

/** A name from the client, shown in a message: short, so a megabyte of key is not sent back. */
const shown = (name: string): string => (name.length > 40 ? `${name.slice(0, 40)}…` : name);

/** An id's value as a key: a cancellation may write the same id differently (1e2 for 100). */
const keyOf = (id: string | number): string => (typeof id === 'string' ? `s${id}` : `n${id}`);

/** The id to answer with: the client's text, or null when it has none that is a string or a number. */
function answerId(message: Record<string, unknown>, scanned: Scanned | undefined): string {
  const id = message['id'];
  if (typeof id !== 'string' && typeof id !== 'number') return 'null';
  return scanned?.id ?? JSON.stringify(id);
}

function errorLine(id: string, code: number, message: string): string {
  return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify({ code, message })}}`;
}

/** What a message is by its members: one with a method and an id is a request, one with neither a response. */
function kindOf(m: Record<string, unknown>): 'request' | 'notification' | 'response' | 'invalid' {
  const has = (member: string) => Object.hasOwn(m, member);
  if (has('method')) return has('id') ? 'request' : 'notification';
  return has('result') || has('error') ? 'response' : 'invalid';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The line read so far, dropped once it is longer than `max` bytes; the scanner reads it as it streams. */
  private pieces: Buffer[] = [];
  private bytes = 0;
  private scanner: MessageScanner;
  private lastId = 0;
  /** By our id: `text`, the client's id as written; `key`, its value as a cancellation names it; the params sent. */
  private readonly inFlight = new Map<number, { text: string; key: string; params: unknown }>();
  private readonly byKey = new Map<string, number>();
  private drain: Promise<void> | undefined;
  private idle: (() => void)[] = [];
  private closed = false;
  private endOfInput!: () => void;
  /** Resolves when the input ends (its last line read) or closes. */
  readonly inputEnded = new Promise<void>((ended) => (this.endOfInput = ended));

  /** `check` refuses a request's or notification's params; `max` is the longest line read, in bytes. */
  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly check?: MessageCheck,
    private readonly max = MAX_MESSAGE_BYTES,
  ) {
    this.scanner = new MessageScanner(max);
  }

  async start(): Promise<void> {
    for (const [event, listener] of this.listeners) this.input.on(event, listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [event, listener] of this.listeners) this.input.off(event, listener);
    this.input.pause();
    this.pieces = [];
    this.inFlight.clear();
    this.byKey.clear();
    this.settle();
    this.endOfInput();
    this.onclose?.();
  }

  /** Resolves once every request passed to the SDK has been answered (or cancelled, or the transport closed). */
  settled(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** The params of a request in flight as the client sent them (the SDK's copy lost any `__proto__` member). */
  sentParams(requestId: unknown): unknown {
    return typeof requestId === 'number' ? this.inFlight.get(requestId)?.params : undefined;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (('result' in message || 'error' in message) && typeof message.id === 'number') {
      const request = this.inFlight.get(message.id);
      // Never an id the client did not send: a request cancelled meanwhile is not answered.
      if (!request) return Promise.resolve();
      this.forget(message.id);
      const { jsonrpc: _, id: __, ...rest } = message;
      const members = JSON.stringify(rest).slice(1, -1);
      return this.write(`{"jsonrpc":"2.0","id":${request.text}${members ? `,${members}` : ''}}\n`);
    }
    return this.write(`${JSON.stringify(message)}\n`);
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let from = 0;
    while (from < buf.length && !this.closed) {
      const newline = buf.indexOf(0x0a, from);
      const end = newline === -1 ? buf.length : newline;
      this.take(buf, from, end);
      if (newline === -1) return;
      this.endOfLine();
      from = newline + 1;
    }
  };

  private readonly onEnd = (): void => {
    // A last line without its newline is still a message.
    if (!this.closed && this.bytes > 0) this.endOfLine();
    this.endOfInput();
  };

  private readonly fail = (err: unknown): void => this.onerror?.(err instanceof Error ? err : new Error(String(err)));

  private readonly listeners: readonly [string, Parameters<Readable['on']>[1]][] = [
    ['data', this.onData],
    ['end', this.onEnd],
    ['close', this.onEnd],
    ['error', this.fail],
  ];

  private take(buf: Buffer, from: number, end: number): void {
    this.bytes += end - from;
    // Too long: from here on, read past it, keeping only what the scanner learns of the request. A batch is refused
    // whole, naming none of its elements: the scanner stops there, so a long one costs no memory.
    if (this.bytes > this.max) this.pieces = [];
    else if (end > from) this.pieces.push(buf.subarray(from, end));
    if (this.bytes <= this.max || this.scanner.top !== 'array') this.scanner.feed(buf, from, end);
  }

  private endOfLine(): void {
    const { scanner, bytes } = this;
    const line = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces);
    this.pieces = [];
    this.bytes = 0;
    this.scanner = new MessageScanner(this.max);
    try {
      if (bytes > this.max) this.tooLong(scanner);
      else this.line(line, scanner);
    } catch (err) {
      this.fail(err);
    }
  }

  private tooLong(scanner: MessageScanner): void {
    const scanned = scanner.top === 'object' ? scanner.messages.get(0) : undefined;
    const mib = this.max % 1048576 === 0 ? ` (${this.max / 1048576} MiB)` : '';
    const why =
      `message too large: a message may have at most ${this.max} bytes${mib} on one line; ` + 'this one was not read';
    const notification = scanned?.hasMethod === true && !scanned.hasId;
    if (notification || (scanned?.hasReply === true && !scanned.hasMethod))
      return this.onerror?.(new Error(`ignored a ${notification ? 'notification' : 'response'}: ${why}`));
    this.reply(scanned?.id ?? 'null', INVALID_REQUEST, why);
  }

  private line(buf: Buffer, scanner: MessageScanner): void {
    const text = buf.toString('utf8');
    if (/^[ \t\r]*$/.test(text)) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      const said = (err as SyntaxError).message;
      const why =
        `parse error: the line is not JSON (${said}); send each message as one JSON object on a line of ` + 'its own';
      return this.reply('null', PARSE_ERROR, why);
    }
    if (Array.isArray(value)) this.batch(value, scanner);
    else this.message(value, scanner.messages.get(0));
  }

  private message(value: unknown, scanned: Scanned | undefined): void {
    if (!isRecord(value))
      return this.reply('null', INVALID_REQUEST, `invalid request: a message is a JSON object, not ${describe(value)}`);
    const kind = kindOf(value);
    if (kind === 'request') this.request(value, scanned);
    else if (kind === 'notification') this.notification(value);
    else if (kind === 'response') this.response(value);
    else this.reply(answerId(value, scanned), INVALID_REQUEST, "invalid request: it has no 'method'");
  }

  /** What is wrong with a request or notification's members, if anything: [code, message]. */
  private problem(m: Record<string, unknown>, members: readonly string[]): [number, string] | undefined {
    const id = m['id'];
    if (members.includes('id') && typeof id !== 'string' && typeof id !== 'number')
      return [INVALID_REQUEST, `invalid request: an id is a string or a number, not ${describe(id)}`];
    if (m['jsonrpc'] !== '2.0') return [INVALID_REQUEST, `invalid request: 'jsonrpc' must be "2.0"`];
    if (typeof m['method'] !== 'string')
      return [INVALID_REQUEST, `invalid request: 'method' must be a string, not ${describe(m['method'])}`];
    const unknown = Object.keys(m).find((k) => !members.includes(k));
    if (unknown !== undefined) {
      const suggestion = unknown.length <= 40 ? nearMiss(unknown, members) : undefined;
      const meant = suggestion ? ` (did you mean '${suggestion}'?)` : '';
      const shape = members.includes('id')
        ? 'a request has jsonrpc, id, method and params'
        : 'a notification has jsonrpc, method and params';
      return [INVALID_REQUEST, `invalid request: unknown member '${shown(unknown)}'${meant}; ${shape}`];
    }
    const params = m['params'];
    if (Array.isArray(params))
      return [INVALID_PARAMS, "invalid params: MCP's params are an object of named members, not an array"];
    if (Object.hasOwn(m, 'params') && !isRecord(params))
      return [INVALID_REQUEST, `invalid request: 'params' must be an object, not ${describe(params)}`];
    return undefined;
  }

  private request(m: Record<string, unknown>, scanned: Scanned | undefined): void {
    const id = answerId(m, scanned);
    const problem = this.problem(m, REQUEST_MEMBERS) ?? this.checked(m);
    if (problem) return this.reply(id, ...problem);
    const internal = ++this.lastId;
    const key = keyOf(m['id'] as string | number);
    this.inFlight.set(internal, { text: id, key, params: m['params'] });
    this.byKey.set(key, internal);
    if (!this.deliver({ ...m, id: internal })) {
      this.forget(internal);
      this.reply(
        id,
        INTERNAL_ERROR,
        'internal error: the request could not be handled; this is a bug in sow, please report it',
      );
    }
  }

  /** Hands a message to the SDK; false if that threw (its error goes where the SDK's errors go). */
  private deliver(message: Record<string, unknown>): boolean {
    try {
      this.onmessage?.(message as JSONRPCMessage);
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    }
  }

  private checked(m: Record<string, unknown>): [number, string] | undefined {
    const problem = this.check?.(m as { method: string; params?: unknown });
    return problem === undefined ? undefined : [INVALID_PARAMS, problem];
  }

  /** Never answered, whatever is wrong with it (JSON-RPC 2.0 §4.1): a person may read why on stderr. */
  private notification(m: Record<string, unknown>): void {
    let problem = this.problem(m, NOTIFICATION_MEMBERS);
    let message = m;
    if (
      !problem &&
      m['method'] === 'notifications/cancelled' &&
      isRecord(m['params']) &&
      Object.hasOwn(m['params'], 'requestId')
    ) {
      const requestId = m['params']['requestId'];
      const internal =
        typeof requestId === 'string' || typeof requestId === 'number' ? this.byKey.get(keyOf(requestId)) : undefined;
      // A request already answered, or never made: nothing to cancel.
      if (internal === undefined) return;
      this.forget(internal);
      message = { ...m, params: { ...m['params'], requestId: internal } };
    }
    problem ??= this.checked(message);
    if (problem) return this.onerror?.(new Error(`ignored a notification: ${problem[1]}`));
    this.deliver(message);
  }

  /** An answer to a request of the server's (it sends none today): passed on when it has the shape of one. */
  private response(m: Record<string, unknown>): void {
    if (
      m['jsonrpc'] !== '2.0' ||
      !Number.isSafeInteger(m['id']) ||
      Object.keys(m).some((k) => !RESPONSE_MEMBERS.has(k))
    )
      return this.onerror?.(new Error('ignored a response that is not one of JSON-RPC 2.0'));
    this.deliver(m);
  }

  // A batch: MCP dropped them and the SDK reads none, so none is run. Each request with an id gets an error with that
  // id, the elements that are not messages one error with id null, notifications nothing.
  private batch(items: unknown[], scanner: MessageScanner): void {
    if (items.length === 0) return this.reply('null', INVALID_REQUEST, 'invalid request: an empty batch');
    const why = 'invalid request: batches are not supported; send each message on a line of its own';
    const replies: string[] = [];
    let invalid = false;
    items.forEach((item, i) => {
      const kind = isRecord(item) ? kindOf(item) : 'invalid';
      if (kind === 'notification' || kind === 'response') return;
      const id = isRecord(item) ? answerId(item, scanner.messages.get(i)) : 'null';
      if (id === 'null') invalid = true;
      else replies.push(errorLine(id, INVALID_REQUEST, why));
    });
    if (invalid) replies.push(errorLine('null', INVALID_REQUEST, why));
    if (replies.length) void this.write(`[${replies.join(',')}]\n`);
    this.onerror?.(new Error(`ignored a batch of ${items.length} messages: ${why.replace('invalid request: ', '')}`));
  }

  private reply(id: string, code: number, message: string): void {
    void this.write(`${errorLine(id, code, message)}\n`);
  }

  private forget(internal: number): void {
    const request = this.inFlight.get(internal);
    if (!request) return;
    this.inFlight.delete(internal);
    if (this.byKey.get(request.key) === internal) this.byKey.delete(request.key);
    if (this.inFlight.size === 0) this.settle();
  }

  private settle(): void {
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Writes a line; while the client does not read its answers, stops reading its requests. */
  private write(line: string): Promise<void> {
    if (this.output.write(line)) return this.drain ?? Promise.resolve();
    this.drain ??= new Promise<void>((drained) => {
      this.input.pause();
      this.output.once('drain', () => {
        this.drain = undefined;
        if (!this.closed) this.input.resume();
        drained();
      });
    });
    return this.drain;
  }
}
