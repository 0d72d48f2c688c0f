/** Asking on a terminal. Never without one: callers check `interactive` and name the flag instead. */
import { createRequire } from 'node:module';

export const interactive = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);

export async function askYesNo(question: string): Promise<boolean> {
  // require, not import(): the bundle runs as a classic script (src/bin.ts), which has no import().
  const { createInterface } = createRequire(import.meta.url)(
    'node:readline/promises',
  ) as typeof import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
