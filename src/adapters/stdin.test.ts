import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBounded } from './stdin.js';

describe('readBounded', () => {
  it('reads everything up to the limit, multi-byte characters split across chunks included', async () => {
    const euro = Buffer.from('€');
    const input = Readable.from([Buffer.from('{"a":"'), euro.subarray(0, 1), euro.subarray(1), Buffer.from('"}')]);
    expect(await readBounded(11, 'x', 'h', input)).toBe('{"a":"€"}');
    expect(await readBounded(4, 'x', 'h', Readable.from([Buffer.from('abcd')]))).toBe('abcd');
  });

  it('one byte past the limit: INPUT_TOO_LARGE, and it stops reading', async () => {
    const input = new PassThrough();
    const read = readBounded(1024 * 1024, "the hook's input on stdin", 'h', input);
    input.write(Buffer.alloc(1024 * 1024, 'a'));
    input.write('a');
    await expect(read).rejects.toMatchObject({
      code: 'INPUT_TOO_LARGE',
      kind: 'failed',
      message: "the hook's input on stdin is larger than 1 MiB",
    });
    expect(input.destroyed).toBe(true);
  });

  it('an input that fails counts as ended there', async () => {
    const input = new PassThrough();
    const read = readBounded(100, 'x', 'h', input);
    input.write('ab');
    input.destroy(new Error('EIO'));
    expect(await read).toBe('ab');
  });
});
