/** The user configuration file: where it lives on each platform, and reading it strictly. */
import { copyFileSync, existsSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, win32 } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import { SowError } from '../domain/errors.js';
import { check, UserConfigSchema, type UserConfig } from '../domain/schemas.js';
import { parseStateText } from './state-files.js';

/** $XDG_CONFIG_HOME/sow/config.yaml, else ~/.config/sow/config.yaml (macOS too), %APPDATA%\sow on Windows. */
export function userConfigPath(env: Readonly<Record<string, string | undefined>> = process.env, platform: string = process.platform): string {
  if (platform === 'win32') {
    const appData = env['APPDATA'] || win32.join(env['USERPROFILE'] || homedir(), 'AppData', 'Roaming');
    return win32.join(appData, 'sow', 'config.yaml');
  }
  const xdg = env['XDG_CONFIG_HOME'];
  const base = xdg && isAbsolute(xdg) ? xdg : join(env['HOME'] || homedir(), '.config');
  return join(base, 'sow', 'config.yaml');
}

export class ConfigFileError extends SowError {
  constructor(path: string, problem: string, field?: string) {
    super('CONFIG_INVALID', 'state', `${path}: ${field ? `${field}: ` : ''}${problem}`,
      "fix it with 'sow config edit', check it with 'sow config validate', or start over with 'sow config reset'", { file: path, ...(field ? { field } : {}) });
  }
}

export interface LoadedConfig {
  path: string;
  exists: boolean;
  text?: string;
  config?: UserConfig;
}

export async function readUserConfig(path = userConfigPath()): Promise<LoadedConfig> {
  if (!existsSync(path)) return { path, exists: false };
  const text = readFileSync(path, 'utf8');
  let data: unknown;
  try {
    data = (await parseStateText(path, text)).data;
  } catch (err) {
    throw new ConfigFileError(path, err instanceof Error ? err.message.replace(`${path}: `, '') : String(err));
  }
  if (data === null || data === undefined) return { path, exists: true, text, config: {} };
  const valid = check(UserConfigSchema, data);
  if (!valid.ok) throw new ConfigFileError(path, valid.issue.message, valid.issue.path);
  return { path, exists: true, text, config: valid.value };
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
