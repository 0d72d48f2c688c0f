/**
 * One of Node's internal bindings (process.binding), where sow may ask for it: two functions of
 * them cost a fraction of their public wrappers at every start (zlib's CRC-32 for the code cache,
 * bin.ts; fs's lstat for the task index's check, file-stamp.ts). process.binding is deprecated in
 * the documentation only (DEP0111) and warns only with --pending-deprecation: then, and when the
 * binding is not there, the answer is undefined and the caller uses the public function. Each
 * caller still proves that what it got answers as the public function does before it relies on it.
 */
const PENDING_DEPRECATION = /(^|\s)--pending-deprecation(?=\s|$)/;

/** Whether Node warns about what is deprecated in its documentation only (process.binding, process.umask()). */
export function pendingDeprecation(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return (
    process.execArgv.includes('--pending-deprecation') ||
    PENDING_DEPRECATION.test(env['NODE_OPTIONS'] ?? '') ||
    env['NODE_PENDING_DEPRECATION'] === '1'
  );
}

export function nodeBinding<T extends object>(
  name: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Partial<T> | undefined {
  if (pendingDeprecation(env)) return undefined;
  try {
    return (process as unknown as { binding(name: string): Partial<T> }).binding(name);
  } catch {
    return undefined;
  }
}
