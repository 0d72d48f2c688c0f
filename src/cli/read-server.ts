/**
 * The read server (docs/decisions/0060): a sow process that stays, started by a read that found
 * none, and answers the reads cli/resident.ts names for fresh `sow` processes of the same build,
 * folder and environment. It runs each command line exactly as main does in a fresh process — the
 * same parse, command and rendering, through process.stdout and process.stderr, which it takes as
 * the answer — one at a time, and keeps what it parsed between them, believed only while each
 * file's stat matches (decision 0044), as `sow mcp` does. It stops after ten idle minutes, when its
 * socket is no longer its own, or when it has grown large (SOW_READ_SERVER_IDLE sets the minutes
 * in seconds).
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { appendFileSync, lstatSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import * as zlib from 'node:zlib';
import { keepParsedStateFiles } from '../adapters/state-files.js';
import { keepTaskIndex } from '../adapters/task-index.js';
import { forgetWarnings } from '../adapters/notices.js';
import { forgetRealRoots } from '../adapters/confine.js';
import { forgetGitDirs } from '../adapters/repo.js';
import { throughStreams } from './stdio.js';
import { buildOf, encodeAnswer, residentKey, residentSocket, safeFolder, servedRead, VOLATILE, type ResidentRequest } from './resident.js';

declare const SOW_VERSION: string;

/** How long the server waits for the next read before it stops: SOW_READ_SERVER_IDLE seconds, else ten minutes. */
function idleMs(env: NodeJS.ProcessEnv): number {
  const seconds = Number(env['SOW_READ_SERVER_IDLE']);
  return (Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 86_400) : 600) * 1000;
}
/** A request is a key (the environment, a few KB) and a command line. */
const MAX_REQUEST = 1 << 20;
/** Past this resident size the server answers the call in hand and stops; the next read starts a fresh one. */
const MAX_RSS = 300 * 1024 * 1024;

/** What main runs for one command line (process.argv): its exit code. */
export type RunCommandLine = () => Promise<number>;

/** What the command being run has written so far, in order. */
let capture: [1 | 2, Buffer][] | undefined;

/** process.stdout and process.stderr write into the answer of the command being run (else nowhere: the server has no terminal). */
function captureStreams(): void {
  throughStreams();
  for (const [stream, part] of [
    [process.stdout, 1],
    [process.stderr, 2],
  ] as const) {
    stream.write = ((chunk: string | Uint8Array, encoding?: BufferEncoding | ((err?: Error | null) => void), cb?: (err?: Error | null) => void): boolean => {
      const done = typeof encoding === 'function' ? encoding : cb;
      capture?.push([part, typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : Buffer.from(chunk)]);
      if (done) process.nextTick(done);
      return true;
    }) as typeof stream.write;
  }
}

/**
 * Listens on `socket` and serves until idle. `socket` is where the client that started this
 * process looked; a server whose own key names another place (its environment or folder differ
 * from the client's) would never be asked, so it does not start.
 */
export async function serveReads(run: RunCommandLine, socket: string | undefined, core: string): Promise<number> {
  const build = buildOf(core, typeof SOW_VERSION === 'string' ? SOW_VERSION : '0.0.0-dev');
  const uid = process.getuid?.();
  if (socket === undefined) {
    process.stderr.write(
      "error: this word is sow's own: a read that finds no read server starts one with it\nhint: run the read (sow task list) with its output to a pipe or a file; SOW_NO_READ_SERVER=1 turns read servers off\n",
    );
    return 2;
  }
  if (build === undefined || uid === undefined) return 2;
  const key = residentKey(build, process.cwd(), process.env);
  const { crc32 } = zlib as { crc32?: (data: Uint8Array) => number };
  if (!crc32 || residentSocket(dirname(socket), key, crc32) !== socket || !safeFolder(dirname(socket), uid)) return 2;
  process.title = 'sow read server';
  keepParsedStateFiles();
  keepTaskIndex();
  captureStreams();

  const server = createServer({ allowHalfOpen: true });
  const listening = await listen(server, socket);
  if (!listening) return 0;
  const ino = lstatSync(socket).ino;
  log({ started: socket });
  const ours = (): boolean => {
    try {
      return lstatSync(socket).ino === ino;
    } catch {
      return false;
    }
  };
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    clearTimeout(idle);
    server.close();
    if (ours()) {
      try {
        unlinkSync(socket);
      } catch {
        // Gone already.
      }
    }
  };
  const IDLE_MS = idleMs(process.env);
  let idle = setTimeout(stop, IDLE_MS);
  // Replaced or removed (a newer server took the place, or someone cleaned the folder): nobody can
  // reach this one. Its folder removed (a temporary repository): nobody will ask.
  const folder = lstatSync('.').ino;
  const here = (): boolean => {
    try {
      return lstatSync(process.cwd()).ino === folder;
    } catch {
      return false;
    }
  };
  const watch = setInterval(() => {
    if (!ours() || !here()) stop();
  }, 30_000);
  watch.unref();
  process.on('exit', stop);

  let queue = Promise.resolve();
  server.on('connection', (conn: Socket) => {
    const connected = performance.now();
    const chunks: Buffer[] = [];
    let size = 0;
    conn.on('error', () => undefined);
    conn.on('data', (d: Buffer) => {
      size += d.length;
      if (size > MAX_REQUEST) conn.destroy();
      else chunks.push(d);
    });
    conn.on('end', () => {
      queue = queue.then(async () => {
        if (stopping) return refuse(conn, 'stopping');
        clearTimeout(idle);
        idle = setTimeout(stop, IDLE_MS);
        let request: ResidentRequest;
        try {
          request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ResidentRequest;
        } catch {
          return refuse(conn, 'not a request');
        }
        if (request.key !== key) return refuse(conn, 'another build, folder or environment');
        if (!Array.isArray(request.argv) || !request.argv.every((w) => typeof w === 'string') || !servedRead(request.argv)) return refuse(conn, 'not a read this server answers');
        if (!Number.isInteger(request.umask) || request.umask < 0 || request.umask > 0o777) return refuse(conn, 'no umask');
        const volatile = typeof request.volatile === 'object' && request.volatile !== null ? request.volatile : {};
        for (const name of VOLATILE) {
          const value = (volatile as Record<string, unknown>)[name];
          if (typeof value === 'string') process.env[name] = value;
          else delete process.env[name];
        }
        process.umask(request.umask);
        const started = performance.now();
        const answer = await runOne(run, request.argv);
        if (!answer) return refuse(conn, 'failed');
        conn.end(answer);
        const ms = (t: number) => Math.round((performance.now() - t) * 100) / 100;
        log({ argv: request.argv, ms: ms(started), sinceConnect: ms(connected) });
        if (process.memoryUsage.rss() > MAX_RSS) stop();
      });
    });
  });
  await new Promise<void>((resolve) => server.on('close', resolve));
  clearInterval(watch);
  return 0;
}

/** With SOW_READ_SERVER_LOG naming a file: a JSON line there for the server's start and for each read it answered. */
function log(entry: Record<string, unknown>): void {
  const file = process.env['SOW_READ_SERVER_LOG'];
  if (!file) return;
  try {
    appendFileSync(file, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
  } catch {
    // A log is no reason to fail a read.
  }
}

function refuse(conn: Socket, why: string): void {
  conn.end(`${JSON.stringify({ refused: why })}\n`);
}

/** Runs one command line as main does, and what it printed, with its exit code; undefined when it threw. */
async function runOne(run: RunCommandLine, argv: readonly string[]): Promise<Buffer | undefined> {
  const saved = process.argv;
  process.argv = [saved[0]!, saved[1]!, ...argv];
  forgetWarnings();
  forgetRealRoots();
  forgetGitDirs();
  const parts: [1 | 2, Buffer][] = [];
  capture = parts;
  try {
    const code = await run();
    return encodeAnswer({ code, parts });
  } catch {
    return undefined;
  } finally {
    capture = undefined;
    process.argv = saved;
  }
}

/**
 * Listens on `socket`; false when a live server has it already. A socket file nobody listens on
 * (a server that was killed) is removed and taken.
 */
async function listen(server: Server, socket: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const err = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once('error', resolve);
      server.listen(socket, () => {
        server.off('error', resolve);
        resolve(undefined);
      });
    });
    if (!err) return true;
    if (err.code !== 'EADDRINUSE' || (await alive(socket))) return false;
    try {
      const st = lstatSync(socket);
      if (!st.isSocket()) return false;
      unlinkSync(socket);
    } catch {
      return false;
    }
  }
  return false;
}

function alive(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(socket);
    probe.on('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
  });
}
