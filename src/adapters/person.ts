/**
 * The person at the terminal, by name, for the claims they make without `--owner`: git's
 * `user.name`, else the login name ($USER). Only at a terminal: a script, a CI job or an MCP
 * client says who it is (`--owner`, SOW_OWNER), so two jobs never claim under one login name.
 */

/** Whether a person sits at this process's terminal (input and messages both on one). */
export const atTerminal = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);

/**
 * git's `user.name` in `cwd`, else $USER; undefined when neither says. git (and node:child_process
 * with it) is loaded only now: most commands never ask.
 */
export async function personName(
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string | undefined> {
  const { gitRun } = await import('./git.js');
  const r = gitRun(cwd, ['config', '--get', 'user.name']);
  const name = r.ok ? r.out.trim() : '';
  return name || env['USER']?.trim() || undefined;
}
