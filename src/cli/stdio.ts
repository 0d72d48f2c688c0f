// write(2) to a pipe or file without making process.stdout/stderr (~15 M instructions); a terminal, a refused write and
// every write after the stream exists go through the stream, so errors read as before and output keeps its order.
import { fstatSync, statSync, writeSync } from 'node:fs';

type Name = 'stdout' | 'stderr';
const FD: Record<Name, number> = { stdout: 1, stderr: 2 };
const made: Record<Name, boolean> = { stdout: false, stderr: false };
const direct: Record<Name, boolean | undefined> = { stdout: undefined, stderr: undefined };

/** Calls `onMade` when process.stdout or process.stderr is made (main attaches its handlers there). */
export function watchStream(name: Name, onMade?: (stream: NodeJS.WriteStream) => void): void {
  const desc = Object.getOwnPropertyDescriptor(process, name);
  const get = desc?.get;
  if (!desc || !get) {
    made[name] = true;
    onMade?.(process[name]);
    return;
  }
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: desc.enumerable ?? true,
    get() {
      const stream = get.call(process) as NodeJS.WriteStream;
      if (!made[name]) {
        made[name] = true;
        onMade?.(stream);
      }
      return stream;
    },
  });
}

/** A terminal is a character device other than /dev/null (`sow advance --dry-run >/dev/null && …`). */
function mayBeTerminal(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    return st.isCharacterDevice() && st.rdev !== statSync('/dev/null').rdev;
  } catch {
    return true;
  }
}

function usesStream(name: Name): boolean {
  if (made[name]) return true;
  direct[name] ??= !mayBeTerminal(FD[name]);
  return !direct[name];
}

/** What writeText and the painters need of an output: whether it is a terminal, and a way to write. */
function output(name: Name) {
  return {
    get isTTY(): boolean {
      return usesStream(name) ? process[name].isTTY === true : false;
    },
    write(text: string): void {
      if (usesStream(name)) {
        process[name].write(text);
        return;
      }
      const bytes = Buffer.from(text, 'utf8');
      let done = 0;
      try {
        while (done < bytes.length) done += writeSync(FD[name], bytes, done);
      } catch {
        // Refused: the stream writes the rest, and reports the error as it always did.
        direct[name] = false;
        process[name].write(bytes.subarray(done));
      }
    },
  };
}

export const stdout = output('stdout');
export const stderr = output('stderr');
