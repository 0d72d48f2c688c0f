/** The change feed: watches each folder of `.sow/` (or polls). What sow writes to read (lock, index, journals, temp
 * files) is not a change, or a view would wake itself for ever. A burst is told once, after `settleMs`. */
import { lstatSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { quietly } from './io-errors.js';

export type Feed = { close(): void };

/** Whether a path under `.sow/` (relative, with `/`) is something a view shows. */
export function isShownChange(rel: string): boolean {
  return !/(^|\/)[^/]*\.tmp[^/]*$|\.lock$/.test(rel);
}

/** Whether a runtime path (relative, with `/`) is news: only a worker's events and its supervisor's record. */
export function isShownRuntimeChange(rel: string): boolean {
  return (
    /^agent-outputs\/[^/]+\/[^/]+\.events\.jsonl$/.test(rel) || /^supervisors\/[^/]+\/(ready|result)\.json$/.test(rel)
  );
}

/** Folders under `.sow/` a view never shows: other checkouts, shared references, scratch, an older sow's runtime. */
const UNWATCHED = /^(worktrees|refs|\.tmp|\.runtime|\.backup)(\/|$)/;
/** In the runtime folder, only the workers' folders are watched. */
const RUNTIME_UNWATCHED = /^(?!agent-outputs(\/|$)|supervisors(\/|$))[^/]+/;

/** `onChange` once per burst of calls, `ms` after the first; `stop` cancels what is pending for good. */
function settled(onChange: () => void, ms: number): { changed: () => void; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  return {
    changed: () => {
      if (timer || closed) return;
      timer = setTimeout(() => {
        timer = undefined;
        if (!closed) onChange();
      }, ms);
    },
    stop: () => {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/** Calls `onChange` after each burst of changes under `.sow/` and the runtime's workers' folders, until `close()`. */
export function watchSow(
  root: string,
  onChange: () => void,
  opts: { settleMs?: number; pollMs?: number; poll?: boolean; runtime?: string } = {},
): Feed {
  const { changed, stop } = settled(onChange, opts.settleMs ?? 100);
  const trees = [watchTree(join(root, '.sow'), isShownChange, UNWATCHED, changed, opts)];
  if (opts.runtime !== undefined)
    trees.push(watchTree(opts.runtime, isShownRuntimeChange, RUNTIME_UNWATCHED, changed, opts));
  return {
    close() {
      stop();
      for (const t of trees) t.close();
    },
  };
}

/** Calls `changed` on each change under `dir`, watching each folder on its own: a state file is replaced by a rename,
 * which a watch of the file (or Node 20's recursive watch on Linux) would miss. */
function watchTree(
  dir: string,
  shown: (rel: string) => boolean,
  unwatched: RegExp,
  changed: () => void,
  opts: { pollMs?: number; poll?: boolean },
): Feed {
  let closed = false;
  const watchers = new Map<string, FSWatcher>();
  /** Watches the folder `rel` of `dir` and every folder in it; false when the platform cannot. */
  const add = (rel: string): boolean => {
    if (closed || watchers.has(rel) || unwatched.test(rel)) return true;
    const abs = rel ? join(dir, rel) : dir;
    let w: FSWatcher;
    try {
      w = watch(abs, { persistent: true }, (_event, name) => {
        if (name === null) return changed();
        const path = rel ? `${rel}/${String(name)}` : String(name);
        // A folder that came: watch it (and what it holds) too.
        if (quietly(() => lstatSync(join(dir, path)).isDirectory())) add(path);
        if (shown(path)) changed();
      });
    } catch {
      return false;
    }
    w.on('error', () => {
      w.close();
      watchers.delete(rel);
    });
    watchers.set(rel, w);
    for (const e of quietly(() => readdirSync(abs, { withFileTypes: true })) ?? [])
      if (e.isDirectory()) add(rel ? `${rel}/${e.name}` : e.name);
    return true;
  };
  let poll: NodeJS.Timeout | undefined;
  if (opts.poll || !add('')) {
    // No watching here: compare the stats of what a view shows, now and then.
    let last = signature(dir, shown, unwatched);
    poll = setInterval(() => {
      const now = signature(dir, shown, unwatched);
      if (now !== last) {
        last = now;
        changed();
      }
    }, opts.pollMs ?? 1_000);
  }
  return {
    close() {
      closed = true;
      clearInterval(poll);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

/** The size and mtime of every shown file under `dir`, as one string. */
function signature(dir: string, shown: (rel: string) => boolean, unwatched: RegExp): string {
  const parts: string[] = [];
  const walk = (abs: string, rel: string, depth: number) => {
    if (depth > 8) return;
    for (const e of quietly(() => readdirSync(abs, { withFileTypes: true })) ?? []) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!unwatched.test(r)) walk(join(abs, e.name), r, depth + 1);
      } else if (e.isFile() && shown(r)) {
        const st = quietly(() => statSync(join(abs, e.name)));
        if (st) parts.push(`${r}:${st.size}:${st.mtimeMs}`);
      }
    }
  };
  walk(dir, '', 0);
  return parts.join('\n');
}

/** Calls `onChange` after each burst of entries added, removed or renamed in these folders (missing ones skipped). */
export function watchFolders(dirs: readonly string[], onChange: () => void, settleMs = 300): Feed {
  const { changed, stop } = settled(onChange, settleMs);
  const watchers: FSWatcher[] = [];
  for (const dir of dirs) {
    try {
      const w = watch(dir, { persistent: true }, (event) => {
        if (event === 'rename') changed();
      });
      w.on('error', () => w.close());
      watchers.push(w);
    } catch {
      // not there (yet): what makes it changes its parent, which is watched when it matters
    }
  }
  return {
    close() {
      stop();
      for (const w of watchers) w.close();
    },
  };
}
