/** The user configuration file: where it lives, and reading it strictly (schema and YAML loaded on first read). */
import { copyFileSync, existsSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, win32 } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import { errorClass } from '../domain/errors.js';
import type { UserConfig } from '../domain/config-schemas.js';

/** $XDG_CONFIG_HOME/sow/config.yaml, else ~/.config/sow/config.yaml (macOS too), %APPDATA%\sow on Windows. */
export function userConfigPath(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: string = process.platform,
): string {
  if (platform === 'win32') {
    const appData = env['APPDATA'] || win32.join(env['USERPROFILE'] || homedir(), 'AppData', 'Roaming');
    return win32.join(appData, 'sow', 'config.yaml');
  }
  const xdg = env['XDG_CONFIG_HOME'];
  const base = xdg && isAbsolute(xdg) ? xdg : join(env['HOME'] || homedir(), '.config');
  return join(base, 'sow', 'config.yaml');
}

export class ConfigFileError extends errorClass(
  'CONFIG_INVALID',
  'state',
  (path: string, problem: string, field?: string) => [
    `${path}: ${field ? `${field}: ` : ''}${problem}`,
    "fix it with 'sow config edit', check it with 'sow config validate', or start over with 'sow config reset'",
    { file: path, ...(field ? { field } : {}) },
  ],
) {}

// The file as `sow config validate` sees it: every stage, and the first problem of each (`syntax`: the YAML does not
// parse; `typos`: unknown keys and mistyped roles; `schema`: its first violation; `config` once the schema passed).
export async function inspectUserConfig(path: string) {
  if (!existsSync(path)) return { path, exists: false, typos: [] };
  const text = readFileSync(path, 'utf8');
  const [{ parseStateText }, { check }, { UserConfigSchema }, { typosIn }] = await Promise.all([
    import('./state-files.js'),
    import('../domain/schema-check.js'),
    import('../domain/config-schemas.js'),
    import('../domain/config.js'),
  ]);
  let data: unknown;
  try {
    data = (await parseStateText(path, text)).data;
  } catch (err) {
    const syntax = err instanceof Error ? err.message.replace(`${path}: `, '') : String(err);
    return { path, exists: true, syntax, typos: [] };
  }
  // A section whose entries are all commented out, or an empty file, is "no configuration".
  if (data === null || data === undefined) return { path, exists: true, typos: [], config: {} };
  const typos = typosIn(data);
  const valid = check(UserConfigSchema, data);
  if (!valid.ok)
    return { path, exists: true, typos, schema: { field: valid.issue.path, problem: valid.issue.message } };
  return { path, exists: true, typos, config: valid.value };
}

export type LoadedConfig = { path: string; exists: boolean; config?: UserConfig };

/** Reads the file strictly (CONFIG_INVALID, exit 4), a typo first: "did you mean 'type'" beats a missing `type`. */
export async function readUserConfig(path = userConfigPath()): Promise<LoadedConfig> {
  const inspected = await inspectUserConfig(path);
  if (!inspected.exists) return { path, exists: false };
  if (inspected.syntax !== undefined) throw new ConfigFileError(path, inspected.syntax);
  const problem = inspected.typos[0] ?? inspected.schema;
  if (problem) throw new ConfigFileError(path, problem.problem, problem.field);
  return { path, exists: true, config: inspected.config ?? {} };
}

export const userConfigExists = (path: string): boolean => existsSync(path);

export function writeUserConfig(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, text);
}

/** Moves the file aside to `<path>.backup` and returns where it went. */
export function backupAndRemoveUserConfig(path: string): string {
  const backup = `${path}.backup`;
  copyFileSync(path, backup);
  unlinkSync(path);
  return backup;
}
