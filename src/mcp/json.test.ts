import { describe, expect, it } from 'vitest';
import { findKey, MessageScanner, type Scanned } from './json.js';

/** Scans `line` in one piece, and again in pieces of every size from 1 byte up: the answers must agree. */
function scan(line: string, opts: { maxIdBytes?: number } = {}): MessageScanner {
  const buf = Buffer.from(line);
  const whole = new MessageScanner(opts.maxIdBytes ?? 1 << 20);
  whole.feed(buf);
  for (const size of [1, 2, 3, 7]) {
    const pieces = new MessageScanner(opts.maxIdBytes ?? 1 << 20);
    for (let at = 0; at < buf.length; at += size) {
      // Half the time as a fresh buffer, half as a range of the whole one, as the transport feeds it.
      if ((at / size) % 2) pieces.feed(Buffer.from(buf.subarray(at, at + size)));
      else pieces.feed(buf, at, Math.min(at + size, buf.length));
    }
    expect(pieces.top, `in pieces of ${size}`).toBe(whole.top);
    expect(pieces.messages, `in pieces of ${size}`).toEqual(whole.messages);
  }
  return whole;
}

const one = (line: string): Scanned | undefined => scan(line).messages.get(0);

describe('MessageScanner', () => {
  it('gives the text of the id as the client wrote it, for every kind of number and string', () => {
    for (const id of [
      '1',
      '0',
      '-0',
      '1.5',
      '-0.5',
      '1e308',
      '1E+308',
      '-1.25e-3',
      '1e400',
      '9007199254740993',
      '12345678901234567890123',
      '"a"',
      '""',
      '"caf\\u00e9 ☕ 𝄞"',
      '"\\"}{,:[]\\\\"',
      '"id"',
    ]) {
      const scanned = one(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
      expect(scanned, id).toEqual({ id, hasId: true, hasMethod: true, hasReply: false });
    }
  });

  it('reads ids wherever the member is, with any spacing, and a key written with escapes', () => {
    expect(one('{ "method" : "ping" , "params" : { "id" : 9, "x": [1, {"id": 8}] } ,\t"id"\t:\t 7 \r\n}')?.id).toBe(
      '7',
    );
    expect(one('{"\\u0069d":3,"method":"x"}')?.id).toBe('3');
    expect(one('{"params":{"id":9}}')).toBeUndefined();
  });

  it('takes the last id when one is written twice, as JSON.parse does', () => {
    expect(one('{"id":1,"id":2}')?.id).toBe('2');
    expect(one('{"id":1,"id":{"a":1}}')).toEqual({ hasId: true, hasMethod: false, hasReply: false });
  });

  it('has no text for an id that is an object or an array, or longer than it keeps', () => {
    expect(one('{"id":{"id":1},"method":"x"}')).toEqual({ hasId: true, hasMethod: true, hasReply: false });
    expect(one('{"id":[1],"method":"x"}')).toEqual({ hasId: true, hasMethod: true, hasReply: false });
    expect(scan('{"id":"0123456789","method":"x"}', { maxIdBytes: 8 }).messages.get(0)?.id).toBeUndefined();
    expect(scan('{"id":"012345","method":"x"}', { maxIdBytes: 8 }).messages.get(0)?.id).toBe('"012345"');
  });

  it('tells requests, notifications and responses apart', () => {
    expect(one('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toEqual({
      hasId: false,
      hasMethod: true,
      hasReply: false,
    });
    expect(one('{"jsonrpc":"2.0","id":4,"result":{}}')).toEqual({
      id: '4',
      hasId: true,
      hasMethod: false,
      hasReply: true,
    });
    expect(one('{"jsonrpc":"2.0","id":4,"error":{"code":1}}')?.hasReply).toBe(true);
  });

  it("reads a batch's objects by index, and only the top level of a line", () => {
    const batch = scan('[{"id":1.5,"method":"a"}, 7, "s", [1], {"method":"n"}, {"id":"x"}]');
    expect(batch.top).toBe('array');
    expect([...batch.messages]).toEqual([
      [0, { id: '1.5', hasId: true, hasMethod: true, hasReply: false }],
      [4, { hasId: false, hasMethod: true, hasReply: false }],
      [5, { id: '"x"', hasId: true, hasMethod: false, hasReply: false }],
    ]);
    expect(scan('"text"').top).toBe('other');
    expect(scan('{"method":"a"} {"id":2}').messages.get(0)).toEqual({ hasId: false, hasMethod: true, hasReply: false });
  });

  it('on bytes that are not JSON, learns nothing it cannot vouch for', () => {
    for (const line of ['{"id":', '{"id":12', '{"id":"abc', '{"id"', '{"method":"a","id":tru']) {
      expect(scan(line).messages.get(0)?.id, line).toBeUndefined();
    }
    expect(one('{"id":true}')).toEqual({ hasId: true, hasMethod: false, hasReply: false });
    expect(one('{"id":12x}')).toEqual({ hasId: true, hasMethod: false, hasReply: false });
  });
});

describe('findKey', () => {
  it('finds an own member by name, anywhere, and says where', () => {
    expect(findKey(JSON.parse('{"a":{"b":[{"c":1},{"__proto__":2}]}}'), '__proto__')).toEqual([
      'a',
      'b',
      '1',
      '__proto__',
    ]);
    expect(findKey(JSON.parse('{"__proto__":1}'), '__proto__')).toEqual(['__proto__']);
    expect(findKey({ a: { constructor: 1 } }, '__proto__')).toBeUndefined();
    expect(findKey('text', '__proto__')).toBeUndefined();
  });

  it('does not look inside the value it is told to skip', () => {
    const message = JSON.parse('{"arguments":{"metadata":{"__proto__":"x"}},"other":1}');
    expect(findKey(message, '__proto__', message.arguments)).toBeUndefined();
    expect(findKey(message, '__proto__')).toEqual(['arguments', 'metadata', '__proto__']);
  });

  it('walks a value nested 300,000 levels deep without running out of stack', () => {
    const deep = JSON.parse(`${'{"a":'.repeat(300_000)}{"__proto__":1}${'}'.repeat(300_000)}`);
    expect(findKey(deep, '__proto__')).toHaveLength(300_001);
    expect(findKey(JSON.parse(`${'['.repeat(300_000)}${']'.repeat(300_000)}`), '__proto__')).toBeUndefined();
  });
});
