/** The person at the terminal, for claims without `--owner`: git's `user.name`, else $USER. Only at a terminal, so
 * two scripts never claim under one login. */

/** Whether a person sits at this process's terminal (input and messages both on one). */
export const atTerminal = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);

/** git's `user.name` in `cwd`, else $USER; git (and node:child_process) is loaded only now. */
export async function personName(
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string | undefined> {
  const { gitRun } = await import('./git.js');
  const r = gitRun(cwd, ['config', '--get', 'user.name']);
  const name = r.ok ? r.out.trim() : '';
  return name || env['USER']?.trim() || undefined;
}
