/**
 * The stdio transport of `sow mcp` on its own, between two in-memory streams, with a stand-in for
 * the SDK that answers every request it is handed. The built server is driven end to end in
 * test/e2e/mcp.test.ts.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineTransport, type MessageCheck } from './transport.js';

/** One turn of the event loop: what the streams were given has been read and written. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function open(opts: { check?: MessageCheck; maxMessageBytes?: number; answer?: boolean } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineTransport(input, output, opts.check, opts.maxMessageBytes);
  const seen: any[] = [];
  const notes: string[] = [];
  let text = '';
  output.on('data', (d: Buffer) => (text += d.toString()));
  transport.onerror = (err) => notes.push(err.message);
  transport.onmessage = (message: any) => {
    seen.push(message);
    if (opts.answer !== false && 'method' in message && 'id' in message)
      void transport.send({ jsonrpc: '2.0', id: message.id, result: { method: message.method } });
  };
  await transport.start();
  return {
    transport,
    input,
    output,
    seen,
    notes,
    /** Writes these lines, then returns the lines written back since the last call. */
    async lines(...lines: string[]): Promise<string[]> {
      for (const line of lines) input.write(`${line}\n`);
      await turn();
      const out = text.split('\n').filter(Boolean);
      text = '';
      return out;
    },
  };
}

const PING = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
const PONG = (id: string) => `{"jsonrpc":"2.0","id":${id},"result":{"method":"ping"}}`;
const ERROR = (id: string, code: number, message: string) =>
  `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify({ code, message })}}`;

describe('LineTransport: ids', () => {
  it('answers with each id exactly as the client wrote it; the SDK sees ids of its own', async () => {
    const t = await open();
    const ids = [
      '1',
      '0',
      '-0',
      '1.5',
      '-0.5',
      '1e308',
      '-1.25E-3',
      '1e400',
      '9007199254740993',
      '"caf\\u00e9 ☕ 𝄞"',
      '""',
      '"7"',
    ];
    expect(await t.lines(...ids.map(PING))).toEqual(ids.map(PONG));
    expect(t.seen.map((m) => m.id)).toEqual(ids.map((_, i) => i + 1));
  });

  it('answers two requests that share an id each once, in the order the SDK answers them', async () => {
    const t = await open({ answer: false });
    await t.lines(PING('5'), PING('5.0'));
    const [a, b] = t.seen;
    await t.transport.send({ jsonrpc: '2.0', id: b.id, result: {} });
    await t.transport.send({ jsonrpc: '2.0', id: a.id, result: {} });
    await t.transport.send({ jsonrpc: '2.0', id: a.id, result: {} });
    expect(await t.lines()).toEqual(['{"jsonrpc":"2.0","id":5.0,"result":{}}', '{"jsonrpc":"2.0","id":5,"result":{}}']);
  });
});

describe(
  'LineTransport: what is not a valid request is answered with the error JSON-RPC gives, and the next ' +
    'line is read',
  () => {
    const cases: [string, string][] = [
      [
        'not json',
        ERROR(
          'null',
          -32700,
          'parse error: the line is not JSON (Unexpected token \'o\', "not json" is not valid JSON); send each ' +
            'message as one JSON object on a line of its own',
        ),
      ],
      [
        '{"jsonrpc":"2.0","id":1,',
        ERROR(
          'null',
          -32700,
          'parse error: the line is not JSON (Expected double-quoted property name in JSON at position 24); send ' +
            'each message as one JSON object on a line of its own',
        ),
      ],
      ['"ping"', ERROR('null', -32600, 'invalid request: a message is a JSON object, not a string')],
      ['null', ERROR('null', -32600, 'invalid request: a message is a JSON object, not null')],
      [
        '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
        ERROR('null', -32600, 'invalid request: an id is a string or a number, not an object'),
      ],
      [
        '{"jsonrpc":"2.0","id":[1],"method":"ping"}',
        ERROR('null', -32600, 'invalid request: an id is a string or a number, not an array'),
      ],
      [
        '{"jsonrpc":"2.0","id":null,"method":"ping"}',
        ERROR('null', -32600, 'invalid request: an id is a string or a number, not null'),
      ],
      [
        '{"jsonrpc":"2.0","id":true,"method":"ping"}',
        ERROR('null', -32600, 'invalid request: an id is a string or a number, not a boolean'),
      ],
      ['{"id":3,"method":"ping"}', ERROR('3', -32600, 'invalid request: \'jsonrpc\' must be "2.0"')],
      ['{"jsonrpc":"1.0","id":3,"method":"ping"}', ERROR('3', -32600, 'invalid request: \'jsonrpc\' must be "2.0"')],
      [
        '{"jsonrpc":"2.0","id":3,"method":7}',
        ERROR('3', -32600, "invalid request: 'method' must be a string, not a number"),
      ],
      [
        '{"jsonrpc":"2.0","id":1.5,"method":"ping","extra":1}',
        ERROR('1.5', -32600, "invalid request: unknown member 'extra'; a request has jsonrpc, id, method and params"),
      ],
      [
        '{"jsonrpc":"2.0","id":"x","method":"ping","parms":{}}',
        ERROR(
          '"x"',
          -32600,
          "invalid request: unknown member 'parms' (did you mean 'params'?); a request has jsonrpc, id, method " +
            'and params',
        ),
      ],
      [
        '{"jsonrpc":"2.0","id":1e308,"method":"ping","__proto__":{}}',
        ERROR(
          '1e308',
          -32600,
          "invalid request: unknown member '__proto__'; a request has jsonrpc, id, method and params",
        ),
      ],
      [
        '{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}',
        ERROR('4', -32602, "invalid params: MCP's params are an object of named members, not an array"),
      ],
      [
        '{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}',
        ERROR('4', -32600, "invalid request: 'params' must be an object, not a string"),
      ],
      [
        '{"jsonrpc":"2.0","id":4,"method":"ping","params":null}',
        ERROR('4', -32600, "invalid request: 'params' must be an object, not null"),
      ],
      ['{"jsonrpc":"2.0","id":-0.5}', ERROR('-0.5', -32600, "invalid request: it has no 'method'")],
      ['{}', ERROR('null', -32600, "invalid request: it has no 'method'")],
      ['[]', ERROR('null', -32600, 'invalid request: an empty batch')],
    ];
    for (const [line, answer] of cases) {
      it(line, async () => {
        const t = await open();
        expect(await t.lines(line, PING('"next"'))).toEqual([answer, PONG('"next"')]);
        expect(t.seen.map((m) => m.method)).toEqual(['ping']);
      });
    }

    it(
      'a batch: each request in it refused under its own id, what is not a message under null, notifications and ' +
        'responses not at all; none of it run',
      async () => {
        const t = await open();
        const why = 'invalid request: batches are not supported; send each message on a line of its own';
        const batch =
          '[{"jsonrpc":"2.0","id":1e400,"method":"ping"}, {"jsonrpc":"2.0","method":"notifications/initialized"}, 5, ' +
          '{"jsonrpc":"2.0","id":"b","method":"tools/list"}, {"jsonrpc":"2.0","id":9,"result":{}}, {"id":{}}]';
        expect(await t.lines(batch, PING('2'))).toEqual([
          `[${[ERROR('1e400', -32600, why), ERROR('"b"', -32600, why), ERROR('null', -32600, why)].join(',')}]`,
          PONG('2'),
        ]);
        expect(t.seen.map((m) => m.method)).toEqual(['ping']);
        // A batch of notifications gets nothing back at all.
        expect(await t.lines('[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]')).toEqual([]);
        expect(t.notes).toEqual([
          expect.stringContaining('ignored a batch of 6 messages'),
          expect.stringContaining('ignored a batch of 2 messages'),
        ]);
      },
    );

    it("params the server refuses (the check) are invalid params, under the request's id", async () => {
      const t = await open({
        check: (m) => (m.method === 'tools/call' ? 'invalid params for tools/call: no name' : undefined),
      });
      expect(await t.lines('{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{}}', PING('1'))).toEqual([
        ERROR('"c"', -32602, 'invalid params for tools/call: no name'),
        PONG('1'),
      ]);
    });

    it('blank lines and a CR before the newline are no messages', async () => {
      const t = await open();
      expect(await t.lines('', '  \r', `${PING('1')}\r`)).toEqual([PONG('1')]);
    });
  },
);

describe('LineTransport: notifications and responses are never answered', () => {
  it('passes a valid notification on; one that is not valid is noted for the person, never answered', async () => {
    const t = await open({ check: (m) => (m.method === 'notifications/progress' ? 'invalid params' : undefined) });
    const out = await t.lines(
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","method":"notifications/initialized","extra":1}',
      '{"method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}',
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{}}',
      PING('1'),
    );
    expect(out).toEqual([PONG('1')]);
    expect(t.seen.map((m) => m.method)).toEqual(['notifications/initialized', 'ping']);
    expect(t.notes).toHaveLength(4);
    for (const note of t.notes) expect(note).toMatch(/^ignored a notification: /);
  });

  it("passes a client's response on, never answering it", async () => {
    const t = await open();
    expect(
      await t.lines(
        '{"jsonrpc":"2.0","id":3,"result":{}}',
        '{"jsonrpc":"2.0","id":1.5,"result":{}}',
        '{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"},"x":1}',
        PING('1'),
      ),
    ).toEqual([PONG('1')]);
    expect(t.seen).toEqual([
      { jsonrpc: '2.0', id: 3, result: {} },
      { jsonrpc: '2.0', id: 1, method: 'ping' },
    ]);
  });

  it(
    'a cancellation names the request by its id as the client wrote it; ' + 'the cancelled request is not answered',
    async () => {
      const t = await open({ answer: false });
      await t.lines(PING('1.5'), PING('2'));
      expect(
        await t.lines('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.50,"reason":"r"}}'),
      ).toEqual([]);
      expect(t.seen[2]).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 1, reason: 'r' },
      });
      // One for a request not in flight is not passed on: the SDK would look the client's id up among its own.
      await t.lines('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2.5}}');
      expect(t.seen).toHaveLength(3);
      await t.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
      await t.transport.send({ jsonrpc: '2.0', id: 2, result: {} });
      expect(await t.lines()).toEqual(['{"jsonrpc":"2.0","id":2,"result":{}}']);
    },
  );
});

describe('LineTransport: a line longer than the limit', () => {
  const max = 64;
  const padded = (line: string, bytes: number) => `${line.slice(0, -1)}${' '.repeat(bytes - Buffer.byteLength(line))}}`;

  it('up to the limit is read; one byte more is refused under the id it names, and the next line is read', async () => {
    const t = await open({ maxMessageBytes: max });
    const why = 'message too large: a message may have at most 64 bytes on one line; this one was not read';
    expect(await t.lines(padded(PING('"at"'), max), padded(PING('"over"'), max + 1), PING('3'))).toEqual([
      PONG('"at"'),
      ERROR('"over"', -32600, why),
      PONG('3'),
    ]);
    // The id may come after the limit: it is still read, as the line goes by.
    expect(
      await t.lines(`{"jsonrpc":"2.0","method":"ping","params":{"x":"${'y'.repeat(200)}"},"id":-1.5e-7}`, PING('4')),
    ).toEqual([ERROR('-1.5e-7', -32600, why), PONG('4')]);
    // Without an id it can name, null.
    expect(
      await t.lines(`["${'y'.repeat(100)}"]`, `{"id":{"a":"${'y'.repeat(100)}"},"method":"x"}`, PING('5')),
    ).toEqual([ERROR('null', -32600, why), ERROR('null', -32600, why), PONG('5')]);
    // A notification, or a response, is not answered even then.
    expect(
      await t.lines(
        `{"jsonrpc":"2.0","method":"x","params":{"x":"${'y'.repeat(100)}"}}`,
        `{"jsonrpc":"2.0","id":1,"result":{"x":"${'y'.repeat(100)}"}}`,
        PING('6'),
      ),
    ).toEqual([PONG('6')]);
    expect(t.seen.map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it('however the line is cut into pieces', async () => {
    const t = await open({ maxMessageBytes: max });
    const text = `${padded(PING('"at"'), max)}\n${padded(PING('"over"'), max + 1)}\n${PING('3')}\n`;
    for (let i = 0; i < text.length; i += 5) t.input.write(text.slice(i, i + 5));
    expect(await t.lines()).toEqual([
      PONG('"at"'),
      expect.stringContaining('{"jsonrpc":"2.0","id":"over","error":{"code":-32600'),
      PONG('3'),
    ]);
  });

  it('its last line, even without a newline, is read when the input ends', async () => {
    const t = await open();
    t.input.end(PING('"last"'));
    await t.transport.inputEnded;
    expect(await t.lines()).toEqual([PONG('"last"')]);
  });
});

describe('LineTransport: the end', () => {
  it('settled() waits for the answer to every request passed on', async () => {
    const t = await open({ answer: false });
    await t.lines(PING('1'), PING('2'));
    let settled = false;
    const waiting = t.transport.settled().then(() => (settled = true));
    await t.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await turn();
    expect(settled).toBe(false);
    await t.transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    await waiting;
    expect(settled).toBe(true);
  });

  it('stops reading requests while the client does not read the answers, and reads on when it does', async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 64 });
    const transport = new LineTransport(input, output);
    transport.onmessage = (m: any) =>
      void transport.send({ jsonrpc: '2.0', id: m.id, result: { padding: 'x'.repeat(100) } });
    await transport.start();
    input.write(`${PING('1')}\n`);
    await turn();
    expect(input.isPaused()).toBe(true);
    let read = '';
    output.on('data', (d: Buffer) => (read += d.toString()));
    input.write(`${PING('2')}\n`);
    await new Promise((resolve) => output.once('drain', resolve));
    await turn();
    expect(input.isPaused()).toBe(false);
    await turn();
    expect(
      read
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id),
    ).toEqual([1, 2]);
  });
});
