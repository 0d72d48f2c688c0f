/**
 * The resident reader: which command lines a warm sow process may answer for a fresh one, where
 * that process listens, and the two messages they exchange (docs/decisions/0060). Shared by the
 * executable (src/bin.ts, the client) and the server (cli/read-server.ts), so both sides decide
 * alike; it imports nothing of sow's and nothing but node:fs and node:path.
 *
 * A warm process answers only when it would print exactly what a fresh one prints: the same sow
 * build, Node, folder and environment (all in the key, which the server compares whole), output
 * that is no terminal, and one of a few reads whose options are known here. Anything else, and
 * every failure on the way, runs the command in the fresh process as before.
 */
import { lstatSync, mkdirSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** Options a served read may carry, and whether each takes a value. */
const FLAGS: Readonly<Record<string, Readonly<Record<string, boolean>>>> = {
  'task list': { '--status': true, '-s': true },
  'task get': { '--id': true },
  'task next': {},
  'phase get': { '--phase': true },
  'project status': {},
  status: {},
  advance: { '--dry-run': false, '-n': false },
};
const GLOBAL: Readonly<Record<string, boolean>> = { '--json': false, '--no-color': false };

/**
 * Whether a warm process may answer `argv` (the words after `sow`): `task list`, `task get`, `task
 * next`, `phase get`, `project status` / `status`, and `advance` with `--dry-run`, spelled with the
 * options listed above only (no `--watch`, `--claim`, `--all`, help or version). A word that is not
 * plainly one of them (an option value that begins with `-`, an abbreviation) leaves it to a fresh
 * process, which reads the line as it always did.
 */
export function servedRead(argv: readonly string[]): boolean {
  const [first, second] = argv;
  const name = first === 'advance' || first === 'status' ? first : `${first} ${second}`;
  if (!Object.hasOwn(FLAGS, name)) return false;
  const flags = FLAGS[name]!;
  let dryRun = false;
  for (let i = name.includes(' ') ? 2 : 1; i < argv.length; i++) {
    const word = argv[i]!;
    if (word.includes('\0')) return false;
    if (!word.startsWith('-')) continue;
    const [flag, value] = word.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === '--dry-run' || flag === '-n') dryRun = true;
    if (flag in GLOBAL && value === undefined) continue;
    if (!Object.hasOwn(flags, flag)) return false;
    const takes = flags[flag];
    if (!takes && value !== undefined) return false;
    if (takes && value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-')) return false;
      i++;
    }
  }
  return name !== 'advance' || dryRun;
}

/** Which sow is running: its version and the identity of its bundle (a build or an upgrade makes a new file). */
export function buildOf(core: string, version: string): string | undefined {
  try {
    const st = statSync(core);
    return `${version}:${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * Variables a shell changes as a person moves about (`cd` sets OLDPWD, bash sets `_` to the last
 * word run) and sow never reads: not part of the key, so that they do not start a server each;
 * the request carries them and the server sets them for the command it runs.
 */
export const VOLATILE: readonly string[] = ['OLDPWD', '_'];

/** What names one warm process: sow's build and Node, the folder, and the whole environment but VOLATILE. */
export function residentKey(build: string, cwd: string, env: Env): string {
  const entries = Object.keys(env)
    .filter((k) => !VOLATILE.includes(k))
    .sort()
    .map((k) => [k, env[k]]);
  return JSON.stringify({ v: 1, build, node: process.version, exec: process.execPath, cwd, env: entries });
}

/** Unix sockets take a path of at most 107 bytes on Linux (103 on macOS); past that, no warm process. */
const MAX_SOCKET_PATH = 100;

/**
 * The folder the warm processes of this user listen in: `$XDG_RUNTIME_DIR/sow` (the user's own,
 * made by the system for this), else `$TMPDIR/sow-<uid>` or `/tmp/sow-<uid>`.
 */
export function residentFolder(env: Env, uid: number): string {
  const runtime = env['XDG_RUNTIME_DIR'];
  if (runtime && isAbsolute(runtime)) return join(runtime, 'sow');
  const tmp = env['TMPDIR'];
  return join(tmp && isAbsolute(tmp) ? tmp : '/tmp', `sow-${uid}`);
}

/** CRC-32 of some bytes (Node's native one: hashing the key in JavaScript cost a fresh process 0.3 ms). */
export type Crc32 = (data: Uint8Array) => number;

/**
 * The socket of the warm process for `key`, or undefined where its path would be too long. Its
 * name is 64 bits of hash: a name, not a check (the server compares the whole key).
 */
export function residentSocket(folder: string, key: string, crc32: Crc32): string | undefined {
  const hex = (text: string) => crc32(Buffer.from(text, 'utf8')).toString(16).padStart(8, '0');
  const socket = join(folder, `${hex(key)}${hex(`sow\0${key}`)}.sock`);
  return Buffer.byteLength(socket) <= MAX_SOCKET_PATH ? socket : undefined;
}

/**
 * Whether `folder` is safe to listen and connect in: a real folder (not a link), this user's, that
 * nobody else may enter or write. With `make`, a missing one is made so.
 */
export function safeFolder(folder: string, uid: number, make = false): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const st = lstatSync(folder);
      return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
    } catch (err) {
      if (!make || (err as NodeJS.ErrnoException).code !== 'ENOENT') return false;
      try {
        mkdirSync(folder, { mode: 0o700 });
      } catch {
        // Made meanwhile by another sow, or not makeable: the check says which.
      }
    }
  }
  return false;
}

/** Whether a warm process may be asked or started at all: not on Windows, in CI, for a worker, or when switched off. */
export function residentAllowed(env: Env): boolean {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return false;
  if (env['SOW_NO_READ_SERVER'] || env['SOW_DEBUG'] || env['SOW_AGENT_ID']) return false;
  const ci = env['CI'];
  if (ci && ci !== '0' && ci !== 'false') return false;
  return process.execArgv.length === 0 && !process.sourceMapsEnabled;
}

/** The request: the key it expects the server to have, and the words after `sow`. One JSON text; the client then ends its side. */
export interface ResidentRequest {
  readonly key: string;
  readonly argv: readonly string[];
  /** The client's values of VOLATILE (absent: unset). */
  readonly volatile: Readonly<Record<string, string>>;
  /** The client's umask: files a read makes (the task index) get the modes they would get from it. */
  readonly umask: number;
}

/** The client's values of VOLATILE, for its request. */
export function volatileOf(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of VOLATILE) if (env[name] !== undefined) out[name] = env[name]!;
  return out;
}

/**
 * The answer: a JSON line — `{"code":n,"parts":[[fd,bytes],…]}`, then the bytes of each part in
 * order (what went to stdout, 1, and stderr, 2, in the order it was written) — or
 * `{"refused":why}`, after which the client runs the command itself.
 */
export interface ResidentAnswer {
  readonly code: number;
  readonly parts: readonly (readonly [1 | 2, Buffer])[];
}

export function encodeAnswer(answer: ResidentAnswer): Buffer {
  const head = { code: answer.code, parts: answer.parts.map(([fd, bytes]) => [fd, bytes.length]) };
  return Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`), ...answer.parts.map(([, bytes]) => bytes)]);
}

/** The answer, or undefined when it is not whole (the server died mid-way) or was a refusal. */
export function decodeAnswer(data: Buffer): ResidentAnswer | undefined {
  const nl = data.indexOf(10);
  if (nl < 0) return undefined;
  let head: { code?: unknown; parts?: unknown };
  try {
    head = JSON.parse(data.toString('utf8', 0, nl)) as typeof head;
  } catch {
    return undefined;
  }
  if (!Number.isInteger(head.code) || !Array.isArray(head.parts)) return undefined;
  const parts: [1 | 2, Buffer][] = [];
  let at = nl + 1;
  for (const part of head.parts as unknown[]) {
    if (!Array.isArray(part) || (part[0] !== 1 && part[0] !== 2) || !Number.isInteger(part[1]) || (part[1] as number) < 0) return undefined;
    const end = at + (part[1] as number);
    if (end > data.length) return undefined;
    parts.push([part[0], data.subarray(at, end)]);
    at = end;
  }
  return at === data.length ? { code: head.code as number, parts } : undefined;
}
