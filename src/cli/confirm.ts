/** Asking on a terminal. Never without one: callers check `interactive` and name the flag instead. */
export const interactive = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);

export async function askYesNo(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
