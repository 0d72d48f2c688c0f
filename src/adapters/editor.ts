/** Opening a file in the person's editor ($VISUAL or $EDITOR), which may carry its own arguments. */
import { spawnBlocking } from './heartbeat.js';
import { ExternalToolError } from '../domain/errors.js';

/** Splits an editor command the way a shell would for simple cases: `code -w`, `"/my editor/bin" --wait`. */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(command))) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}

/** Runs the editor with the caller's environment: its PATH finds the editor, and the editor inherits the rest. */
export function runEditor(command: string, file: string, env: Readonly<Record<string, string | undefined>>): void {
  const [binary, ...args] = splitCommand(command);
  if (!binary)
    throw new ExternalToolError('editor', 'the editor command is empty', 'set EDITOR, e.g. export EDITOR="code -w"');
  const result = spawnBlocking(binary, [...args, file], { stdio: 'inherit', env: { ...env } });
  if (result.error)
    throw new ExternalToolError(
      binary,
      (result.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found on PATH' : result.error.message,
      'check the EDITOR variable',
    );
  if (result.status !== 0)
    throw new ExternalToolError(binary, `exited with code ${result.status}`, `the file is at ${file}`);
}
