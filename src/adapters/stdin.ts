/** Reading stdin bounded, so a hostile writer (1.5 GB into a hook) ends in a sentence and exit 1, not a crash. */
import type { Readable } from 'node:stream';
import { InputTooLargeError } from '../domain/errors.js';

/** 1 MiB: a hook's JSON is a few hundred bytes. */
export const MAX_HOOK_INPUT_BYTES = 1024 * 1024;

/** All of `input` as UTF-8 once it ends, rejecting with INPUT_TOO_LARGE past `limit` bytes (a failed read ends it). */
export function readBounded(
  limit: number,
  what: string,
  hint: string,
  input: Readable = process.stdin,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onEnd);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size <= limit) return void chunks.push(bytes);
      done();
      chunks.length = 0;
      // Nothing more is read: the writer gets EPIPE, not a reader that keeps swallowing.
      input.destroy();
      reject(
        new InputTooLargeError(
          what,
          limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${limit} bytes`,
          hint,
        ),
      );
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    input.on('data', onData);
    input.on('end', onEnd);
    input.on('error', onEnd);
  });
}
