/** Opens a URL in the browser without waiting and without failing: the URL is printed anyway. */
import { spawn } from 'node:child_process';

export function openBrowser(url: string, env: Readonly<Record<string, string | undefined>>): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args as string[], { env: { ...env }, stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no opener: the printed URL is the way
  }
}
