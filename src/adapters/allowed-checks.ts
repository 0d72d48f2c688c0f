/** The checks a person allowed, per repository, in their own state folder where no commit or worker reaches
 * (`$XDG_STATE_HOME/sow/allowed-checks/<sha256 of path>.json`); a file sow cannot read as its own is refused. */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, win32 } from 'node:path';
import * as v from 'valibot';
import { errorClass } from '../domain/errors.js';
import { isRecord } from '../domain/json.js';
import { writeFileAtomic, unlinkIfExists } from './fs-atomic.js';

/** One allowed check: its name and exact command, their hash, and when the person allowed it. */
const AllowedCheckSchema = v.strictObject({
  name: v.string(),
  run: v.string(),
  sha256: v.string(),
  allowed_at: v.string(),
});
export type AllowedCheck = v.InferOutput<typeof AllowedCheckSchema>;

const VERSION = 1;
/** A file of a few dozen checks is a few KB. */
export const RECORD_LIMIT = 256 * 1024;
const MAX_ENTRIES = 1000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The hash of a check as allowed: its name and its exact command (nothing else changes what runs). */
export const checkHash = (check: { name: string; run: string }) => sha256(JSON.stringify([check.name, check.run]));

export type Env = Readonly<Record<string, string | undefined>>;

/** The folder of the records: the user's state folder. */
export function allowedChecksDir(env: Env = process.env, platform: string = process.platform): string {
  if (platform === 'win32') {
    const local = env['LOCALAPPDATA'] || win32.join(env['USERPROFILE'] || homedir(), 'AppData', 'Local');
    return win32.join(local, 'sow', 'allowed-checks');
  }
  const xdg = env['XDG_STATE_HOME'];
  const base = xdg && isAbsolute(xdg) ? xdg : join(env['HOME'] || homedir(), '.local', 'state');
  return join(base, 'sow', 'allowed-checks');
}

/** The record of the repository whose real path is `repository`. */
export function allowRecordPath(repository: string, env: Env = process.env, platform: string = process.platform) {
  const name = sha256(repository);
  return (platform === 'win32' ? win32.join : join)(allowedChecksDir(env, platform), `${name}.json`);
}

export class AllowRecordError extends errorClass('CHECKS_RECORD_INVALID', 'state', (file: string, problem: string) => [
  `${file}: ${problem}; it records which checks you allowed to run, and sow will not guess`,
  `look at it; or remove it ('rm ${file}') and allow this repository's checks again with 'sow check allow'`,
  { file },
]) {}

function readLimited(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new AllowRecordError(file, 'it is not a file');
    if (stat.size > RECORD_LIMIT)
      throw new AllowRecordError(file, `it is ${stat.size} bytes, more than the ${RECORD_LIMIT} such a record can be`);
    const buffer = Buffer.alloc(RECORD_LIMIT + 1);
    let length = 0;
    for (let n; length <= RECORD_LIMIT && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0;)
      length += n;
    if (length > RECORD_LIMIT) throw new AllowRecordError(file, `it grew past ${RECORD_LIMIT} bytes while being read`);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The checks allowed in `repository` (its real path); none when it has no record yet. */
export function readAllowRecord(file: string, repository: string): AllowedCheck[] {
  const text = readLimited(file);
  if (text === undefined) return [];
  const invalid = (problem: string) => new AllowRecordError(file, problem);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw invalid(`it is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!isRecord(data) || !Object.keys(data).every((k) => ['version', 'repository', 'checks'].includes(k)))
    throw invalid('it is not a record sow wrote (expected version, repository and checks)');
  if (data['version'] !== VERSION)
    throw invalid(`its version is ${JSON.stringify(data['version'])}, and this sow reads version ${VERSION}`);
  if (data['repository'] !== repository)
    throw invalid(`it names the repository ${JSON.stringify(data['repository'])}, not ${JSON.stringify(repository)}`);
  const checks = data['checks'];
  if (!Array.isArray(checks) || checks.length > MAX_ENTRIES)
    throw invalid(`'checks' is not a list of at most ${MAX_ENTRIES} entries`);
  return checks.map((c: unknown, i) => {
    if (!v.is(AllowedCheckSchema, c)) throw invalid(`checks[${i}] is not {name, run, sha256, allowed_at}`);
    if (c.sha256 !== checkHash(c))
      throw invalid(`checks[${i}] ('${c.name}'): its sha256 is not the hash of its name and command`);
    return c;
  });
}

/** Writes the record atomically; a record with no checks left is removed. */
export function writeAllowRecord(file: string, repository: string, checks: readonly AllowedCheck[]): void {
  if (checks.length === 0) unlinkIfExists(file);
  else writeFileAtomic(file, `${JSON.stringify({ version: VERSION, repository, checks }, null, 2)}\n`);
}
