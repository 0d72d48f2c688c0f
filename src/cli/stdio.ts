/**
 * Standard output for what a command prints, without making process.stdout where it is not
 * needed: on a pipe, Node's stream (a net.Socket) costs about 15 M instructions to make and run,
 * a sixth of what a read costs above bare node. On a pipe or a file, text goes out with write(2)
 * on fd 1. A terminal, anything write(2) refuses (a full non-blocking pipe, a closed one) and
 * every write after process.stdout was made (by us or by other code) go through process.stdout,
 * as before: it says what went wrong the way it always did, and the output keeps its order.
 */
import { fstatSync, writeSync } from 'node:fs';

let made = false;

/**
 * Watches for process.stdout being made, and calls `onMade` with it then (main attaches its
 * handlers there). Called once, by main, before anything writes.
 */
export function watchStdout(onMade: (stream: NodeJS.WriteStream) => void): void {
  const desc = Object.getOwnPropertyDescriptor(process, 'stdout');
  const get = desc?.get;
  if (!desc || !get) {
    made = true;
    onMade(process.stdout);
    return;
  }
  Object.defineProperty(process, 'stdout', {
    configurable: true,
    enumerable: desc.enumerable ?? true,
    get() {
      const stream = get.call(process) as NodeJS.WriteStream;
      if (!made) {
        made = true;
        onMade(stream);
      }
      return stream;
    },
  });
}

/** A terminal is a character device; a pipe, a file or a socket never is (and then is no terminal). */
function mayBeTerminal(): boolean {
  try {
    return fstatSync(1).isCharacterDevice();
  } catch {
    return true;
  }
}

let direct: boolean | undefined;

/** stdout as writeText and the painters need it: whether it is a terminal, and a way to write. */
export const stdout = {
  get isTTY(): boolean {
    return usesStream() ? process.stdout.isTTY === true : false;
  },
  write(text: string): void {
    if (!usesStream()) {
      const bytes = Buffer.from(text, 'utf8');
      let done = 0;
      try {
        while (done < bytes.length) done += writeSync(1, bytes, done);
        return;
      } catch {
        // Refused: the stream writes the rest, and reports the error as it always did.
        direct = false;
        process.stdout.write(bytes.subarray(done));
        return;
      }
    }
    process.stdout.write(text);
  },
};

function usesStream(): boolean {
  if (made) return true;
  direct ??= !mayBeTerminal();
  return !direct;
}
