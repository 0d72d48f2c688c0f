/** Every path sow touches must really (links followed) lie inside its area, else exit 4 before any read or write: a
 * repository is untrusted, so checks happen at use and again before destructive steps (decision 0031). */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { errorClass, given, SowError } from '../domain/errors.js';
import { normalRelative } from '../domain/paths.js';
import { ignoring, MISSING, quietly } from './io-errors.js';

export { normalRelative };

export interface Area {
  /** The real (link-resolved) absolute folder everything must stay in. */
  readonly base: string;
  /** How messages name it: `.sow/`, `the repository`, `sow's cache`. */
  readonly name: string;
  /** First components (relative to `base`) that are off limits even though inside, e.g. `.git`. */
  readonly excluded?: readonly string[];
  /** What messages put before a path of the area so a person finds it from the repository root: `.sow/`. */
  readonly shown?: string;
}

/** A path that leads out of its area, through a link or its own `..`: the repository is hostile or broken. */
export class PathEscapeError extends errorClass('PATH_ESCAPES', 'state', given) {}

/** A folder sow owns that is not a real directory (a link, a file): refused, never used or emptied. */
export class NotARealFolderError extends SowError {
  constructor(rel: string, what: string, target?: string, code = 'NOT_A_REAL_FOLDER') {
    super(
      code,
      'state',
      `${rel} ${what}${target ? ` (to '${target}')` : ''}; sow keeps its own files there and uses it only as a ` +
        `real folder`,
      `sow changed nothing; look at it ('ls -ld ${rel}'), then remove it ('rm ${rel}') and retry` +
        (target
          ? ' — if it came with the repository, whoever committed it meant sow to write or delete where it leads'
          : ''),
      { path: rel, ...(target ? { target } : {}) },
    );
  }
}

/** A file larger than sow reads: refused at once (exit 4) instead of spending seconds and memory on it. */
export class FileTooLargeError extends errorClass(
  'FILE_TOO_LARGE',
  'state',
  (rel: string, size: number, limits: ReadLimits) => [
    `${rel} is ${formatBytes(size)}; sow reads ${limits.what} of up to ${formatBytes(limits.max)} (${limits.why})`,
    `look at what made it grow ('ls -l ${rel}'); if it came with the repository, restore it ('git checkout ` +
      `-- ${rel}') or remove it`,
    { path: rel, size, max: limits.max },
  ],
) {}

function formatBytes(n: number): string {
  const fixed = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  if (n >= 1024 * 1024) return `${fixed(n / 1048576)} MB`;
  if (n >= 1024) return `${fixed(n / 1024)} KB`;
  return `${n} bytes`;
}

/** `abs` relative to `base` when it lies inside it ('' for `base` itself), else undefined. */
export function pathWithin(base: string, abs: string): string | undefined {
  const rel = relative(base, abs);
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : rel;
}

/** Whether the real absolute path `real` lies in the area (and not in an excluded part of it). */
export function withinArea(area: Area, real: string): boolean {
  const rel = pathWithin(area.base, real);
  return rel !== undefined && !area.excluded?.includes(rel.split(sep)[0]!);
}

/** Every place a path another program names may land: as the system resolves `link/..` and as a program that tidies
 * the text first does; missing parts taken as written; undefined for a link loop. */
export function wherePathLands(cwd: string, path: string): string[] | undefined {
  const system = resolveAsSystem(isAbsolute(path) ? path : `${cwd}${sep}${path}`);
  if (!path.split(sep).includes('..')) return system === undefined ? undefined : [system];
  const tidied = resolveAsSystem(resolve(cwd, path));
  if (system === undefined || tidied === undefined) return undefined;
  return system === tidied ? [system] : [system, tidied];
}

/** `abs` resolved as the system resolves a path: each component in turn, a link's text spliced in where it stands. */
function resolveAsSystem(abs: string): string | undefined {
  const todo = abs.split(sep).reverse();
  let at = resolve(sep);
  let missing = false;
  let links = 0;
  while (todo.length) {
    const part = todo.pop()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      at = dirname(at);
      continue;
    }
    const next = join(at, part);
    if (!missing) {
      const st = quietly(() => lstatSync(next));
      missing = st === undefined;
      if (st?.isSymbolicLink()) {
        // As the system gives up (ELOOP): a loop is nowhere sow can judge.
        if (++links > 40) return undefined;
        const text = readlinkSync(next);
        if (isAbsolute(text)) at = resolve(sep);
        todo.push(...text.split(sep).reverse());
        continue;
      }
    }
    at = next;
  }
  return at;
}

/** Where a link leads, resolved; for a dangling link where its text points (a write through it would land there). */
function linkTarget(abs: string): string {
  try {
    return realpathSync.native(abs);
  } catch {
    const text = quietly(() => readlinkSync(abs));
    return text === undefined ? abs : resolveExisting(isAbsolute(text) ? text : resolve(dirname(abs), text));
  }
}

/** An absolute path with the part that exists resolved (links followed) and the rest appended. */
export function resolveExisting(abs: string): string {
  try {
    return realpathSync.native(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : join(resolveExisting(parent), basename(abs));
  }
}

/** `source`: where the path came from, for the message ("task 010's outputs in .sow/project/…/state.yaml"). */
type ConfineOptions = { source?: string };

/** The absolute path of `rel` once every link on the way is checked to lead inside the area (missing parts are fine:
 * sow creates them as real folders). Throws PathEscapeError. */
export function confine(area: Area, rel: string, opts: ConfineOptions = {}): string {
  return confined(area, rel, opts).abs;
}

/** `confine`, and whether a link was met on the way (without one, the path is already real: the base is). */
function confined(area: Area, rel: string, opts: ConfineOptions): { abs: string; linked: boolean } {
  const from = opts.source ? ` (named in ${opts.source})` : '';
  // How messages name it, made only for one (an area may work out its `shown` when asked).
  const shownRel = () => `${area.shown ?? ''}${rel}`;
  const clean = normalRelative(rel);
  if (clean === undefined) {
    throw new PathEscapeError(
      `'${shownRel()}'${from} is not a plain path inside ${area.name}`,
      `paths sow keeps are relative to ${area.name} without '..'; correct ` +
        `it${opts.source ? ` in ${opts.source}` : ''} (if it came with the repository, restore it with 'git ` +
        `checkout')`,
      { path: shownRel(), area: area.name, ...(opts.source ? { source: opts.source } : {}) },
    );
  }
  const parts = clean.split('/');
  if (area.excluded?.includes(parts[0]!)) {
    throw new PathEscapeError(
      `'${shownRel()}'${from} lies in ${parts[0]}/, which sow never reads or writes`,
      `name a file of ${area.name} outside ${parts[0]}/`,
      { path: shownRel(), area: area.name },
    );
  }
  let abs = area.base;
  let linked = false;
  for (let i = 0; i < parts.length; i++) {
    abs = `${abs}${sep}${parts[i]}`;
    // Missing (no exception made for it: that costs more than the look), or under a file.
    const st = ignoring(MISSING, () => lstatSync(abs, { throwIfNoEntry: false }));
    if (!st) break; // the rest does not exist yet
    if (!st.isSymbolicLink()) continue;
    linked = true;
    const target = linkTarget(abs);
    if (!withinArea(area, target)) {
      const link = `${area.shown ?? ''}${parts.slice(0, i + 1).join('/')}`;
      throw new PathEscapeError(
        `'${link}' is a link to '${target}', outside ${area.name}${from}; sow will not read, write or remove ` +
          `through it`,
        `sow changed nothing; if you did not make this link, it came with the repository: look at it ('ls ` +
          `-l ${link}'), remove it ('rm ${link}') and retry`,
        { path: shownRel(), link, target, area: area.name },
      );
    }
  }
  return { abs: join(area.base, ...parts), linked };
}

/** `confine`, then links inside the area followed: the path to open or rename onto, so an allowed link is kept. */
export function confineReal(area: Area, rel: string, opts: ConfineOptions = {}): string {
  const { abs, linked } = confined(area, rel, opts);
  return linked ? resolveExisting(abs) : abs;
}

/** The absolute path of `rel` made a real directory (no component a link), for folders sow owns outright. */
export function realFolder(area: Area, rel: string, code?: string): string {
  return walkFolders(area, rel, true, code)!;
}

/** Like realFolder, but creates nothing: undefined when some part of the way does not exist. */
export function existingRealFolder(area: Area, rel: string, code?: string): string | undefined {
  return walkFolders(area, rel, false, code);
}

function walkFolders(area: Area, rel: string, create: boolean, code?: string): string | undefined {
  if (rel !== '' && normalRelative(rel) !== rel) {
    throw new PathEscapeError(
      `'${rel}' is not a plain folder name inside ${area.name}`,
      "this is a bug in sow if you did not type the name yourself; use a name without '..', '.' or empty parts",
      { path: rel },
    );
  }
  const parts = rel === '' ? [] : rel.split('/');
  let abs = area.base;
  for (let i = 0; i < parts.length; i++) {
    const here = `${abs}${sep}${parts[i]}`;
    // How messages name it, made only for one.
    const shown = () => `${area.shown ?? ''}${parts.slice(0, i + 1).join('/')}`;
    let st;
    try {
      // A missing folder is no exception: making one costs more than the look.
      st = lstatSync(here, { throwIfNoEntry: false });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOTDIR')
        throw new NotARealFolderError(shown(), 'lies under a file, not a folder', undefined, code);
      throw err;
    }
    if (st === undefined) {
      if (!create) return undefined;
      try {
        mkdirSync(here);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        i--; // made meanwhile by another sow: look at what it is
        continue;
      }
      abs = here;
      continue;
    }
    if (st.isSymbolicLink()) throw new NotARealFolderError(shown(), 'is a link', linkTarget(here), code);
    if (!st.isDirectory()) throw new NotARealFolderError(shown(), 'is a file, not a folder', undefined, code);
    abs = here;
  }
  return abs;
}

/** Checks, without creating anything, that `abs` is a real directory right now (before emptying it). */
export const isRealFolder = (abs: string): boolean => quietly(() => lstatSync(abs))?.isDirectory() === true;

/** The most bytes sow reads of a file; what such files are and why that much, for the message. */
export type ReadLimits = { max: number; what: string; why: string };

/** Reads a file of the area, confined, with readRegular's checks. `display` names it in messages. */
export function readConfined(
  area: Area,
  rel: string,
  limits: ReadLimits,
  opts: ConfineOptions & { display?: string } = {},
): string | undefined {
  return readRegular(confineReal(area, rel, opts), opts.display ?? `${area.shown ?? ''}${rel}`, limits);
}

const notAFile = (shown: string, message: string, hint: string) =>
  new SowError('NOT_A_FILE', 'state', message, hint, { path: shown });

/** `use` of `real` opened for reading without following a link (one swapped in is refused) and of its stat, the
 * file closed after; undefined when missing. */
function withOpened<T>(real: string, shown: string, use: (fd: number, st: Stats) => T): T | undefined {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP')
      throw new PathEscapeError(
        `${shown} became a link while sow read it`,
        "sow changed nothing; look at it ('ls -l'), then retry",
        { path: shown },
      );
    throw err;
  }
  try {
    return use(fd, fstatSync(fd));
  } finally {
    closeSync(fd);
  }
}

/** Reads the resolved path `real`: never through a link, a regular file, at most `limits.max` bytes. */
export function readRegular(real: string, shown: string, limits: ReadLimits): string | undefined {
  return withOpened(real, shown, (fd, st) => {
    if (st.isDirectory())
      throw notAFile(
        shown,
        `${shown} is a folder, not a file`,
        `sow expects a file there; move the folder away ('mv ${shown} ${shown}.bak') and retry`,
      );
    if (!st.isFile())
      throw notAFile(
        shown,
        `${shown} is not a regular file (a device, a pipe or a socket)`,
        `sow reads only regular files there; remove it ('rm ${shown}') and retry`,
      );
    if (st.size > limits.max) throw new FileTooLargeError(shown, st.size, limits);
    // What the file held when it was opened: one that grows meanwhile is read up to that size.
    const buf = Buffer.allocUnsafe(st.size);
    let len = 0;
    while (len < st.size) {
      const n = readSync(fd, buf, len, st.size - len, null);
      if (n === 0) break;
      len += n;
    }
    return buf.toString('utf8', 0, len);
  });
}

/** The size of the regular file `rel` and its last `n` bytes (Latin-1), undefined when missing: for an append. */
export function tailConfined(area: Area, rel: string, n: number): { size: number; tail: string } | undefined {
  const shown = `${area.shown ?? ''}${rel}`;
  return withOpened(confineReal(area, rel), shown, (fd, st) => {
    if (!st.isFile())
      throw notAFile(
        shown,
        `${shown} is not a regular file`,
        `sow appends only to regular files; move it away ('mv ${shown} ${shown}.bak') and retry`,
      );
    const buf = Buffer.alloc(Math.min(n, st.size));
    const got = buf.length ? readSync(fd, buf, 0, buf.length, st.size - buf.length) : 0;
    return { size: st.size, tail: buf.toString('latin1', 0, got) };
  });
}

const realRoots = new Map<string, string>();
/** The repository's folder with its links resolved (once per process: the user chose it, so it is trusted). */
const realRoot = (root: string): string => realRoots.get(root) ?? realRoots.set(root, resolveExisting(root)).get(root)!;

/** The repository whose root is `root`: everything in it but `.git/` (git's own files: config, hooks). */
export function repoArea(root: string): Area {
  return { base: realRoot(root), name: 'the repository', excluded: ['.git'] };
}

/** `.sow/` of the repository; `.sow` itself must be a real folder (never a link, even to a harmless place). */
export function sowArea(root: string): Area {
  const base = realRoot(root);
  existingRealFolder({ base, name: 'the repository' }, '.sow');
  return { base: join(base, '.sow'), name: '.sow/', shown: '.sow/' };
}

/** `rel` of the repository (e.g. `.sow/project/state.yaml`) as a path of the `.sow/` area: `project/state.yaml`. */
export function inSow(rel: string): string {
  const clean = normalRelative(rel);
  if (clean === undefined || !clean.startsWith('.sow/')) {
    throw new PathEscapeError(`'${rel}' is not inside .sow/`, 'sow keeps its state only inside .sow/', {
      path: rel,
      area: '.sow/',
    });
  }
  return clean.slice(5);
}

/** The absolute path of a file of `.sow/` named from the repository root, confined to `.sow/`. */
export const sowPath = (root: string, rel: string, opts?: ConfineOptions): string =>
  confine(sowArea(root), inSow(rel), opts);
