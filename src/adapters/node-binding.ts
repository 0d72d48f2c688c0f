/** One of Node's internal bindings (cheaper than the public wrappers), or undefined where process.binding would warn
 * or lacks it; callers check an answer against the public function before relying on it. */
export function nodeBinding<T extends object>(
  name: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Partial<T> | undefined {
  if (
    process.execArgv.includes('--pending-deprecation') ||
    /(^|\s)--pending-deprecation(?=\s|$)/.test(env['NODE_OPTIONS'] ?? '') ||
    env['NODE_PENDING_DEPRECATION'] === '1'
  )
    return undefined;
  try {
    return (process as unknown as { binding(name: string): Partial<T> }).binding(name);
  } catch {
    return undefined;
  }
}
