import { UsageError } from '../domain/errors.js';
import { forTerminal, quoted } from '../domain/display.js';
import { colourEnabled, OWN_SEQUENCES } from './colour.js';

export const cwd = (): string => process.cwd();

/**
 * Writes human output (a line or lines) to stdout or stderr: the one way text reaches a person.
 * Control characters from files are shown escaped; sow's line breaks, and its colours where the
 * stream gets colour, pass. `--json` output is written as it is (JSON escapes them itself).
 */
export function writeText(stream: { readonly isTTY?: boolean; write(text: string): unknown }, text: string): void {
  const safe = forTerminal(text, colourEnabled(stream) ? OWN_SEQUENCES : undefined);
  stream.write(safe.endsWith('\n') ? safe : `${safe}\n`);
}

/** Turns `--key value` / `--key=value` words commander did not know into a map (artifact metadata). */
export function extraFlags(words: readonly string[]): Record<string, string> {
  // No prototype: `--__proto__ x` must arrive as a name (and be refused), not vanish into Object.
  const out = Object.create(null) as Record<string, string>;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const match = /^--([A-Za-z0-9_.-]+)(?:=(.*))?$/s.exec(word);
    if (!match) throw new ExtraArgumentError(word);
    const key = match[1]!;
    if (match[2] !== undefined) out[key] = match[2];
    else {
      const value = words[i + 1];
      if (value === undefined || value.startsWith('--')) throw new ExtraArgumentError(word, `--${key} needs a value`);
      out[key] = value;
      i++;
    }
  }
  return out;
}

export class ExtraArgumentError extends UsageError {
  constructor(word: string, why?: string) {
    super(why ?? `unexpected argument '${word}'`, "extra fields are passed as '--name value' (e.g. --assessment pass)");
  }
}

/** `--id`, or inside a spawned worker the task it was spawned for (SOW_TASK_ID). */
export function taskIdOf(opts: { id?: string }): string {
  const id = opts.id ?? process.env['SOW_TASK_ID'];
  if (id === undefined || id === '')
    throw new UsageError(
      "required option '--id <id>' not specified",
      "pass --id <task id> ('sow task list' shows them); spawned workers default to SOW_TASK_ID",
    );
  if (!/^\s*\d{1,9}\s*$/.test(id) || Number(id) === 0) {
    throw new UsageError(
      `invalid ${opts.id === undefined ? 'SOW_TASK_ID' : '--id'} ${quoted(id)}: expected a task id, digits such as 010`,
      "'sow task list' shows the ids",
    );
  }
  return id;
}

export const TASK_ID_OPTION = ['--id <id>', 'task id (default: $SOW_TASK_ID)'] as const;
