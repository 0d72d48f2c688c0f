/**
 * The change feed: tells when what sow shows may have changed — a state file, a task's documents,
 * a worker's events — by watching `.sow/` (recursively; inotify on Linux). What sow itself writes
 * to read (the lock, the task index, journals, temporary files) is not a change: a view that
 * reads on each change would otherwise wake itself for ever. Changes are gathered for a moment
 * (`settleMs`) and told once. Where the platform cannot watch, the folder's files are compared by
 * their stats every `pollMs` instead.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, sep } from 'node:path';

export interface Feed {
  close(): void;
}

/** Whether a path under `.sow/` (relative, with `/`) is something a view shows. */
export function isShownChange(rel: string): boolean {
  const path = rel.split(sep).join('/');
  if (!path.startsWith('.runtime/') && path !== '.runtime') return !/(^|\/)[^/]*\.tmp[^/]*$|\.lock$/.test(path);
  // Runtime data: only a worker's events and its supervisor's record are news.
  return /^\.runtime\/agent-outputs\/[^/]+\/[^/]+\.events\.jsonl$/.test(path) || /^\.runtime\/supervisors\/[^/]+\/(ready|result)\.json$/.test(path);
}

/** Calls `onChange` after each burst of changes under `<root>/.sow/`, until `close()`. */
export function watchSow(root: string, onChange: () => void, opts: { settleMs?: number; pollMs?: number; poll?: boolean } = {}): Feed {
  const dir = join(root, '.sow');
  const settle = opts.settleMs ?? 100;
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      onChange();
    }, settle);
  };
  let watcher: FSWatcher | undefined;
  try {
    if (opts.poll) throw new Error('polling asked for');
    watcher = watch(dir, { recursive: true, persistent: true }, (_event, name) => {
      // Without a name the platform does not say what changed: anything may have.
      if (name === null || isShownChange(String(name))) changed();
    });
    watcher.on('error', () => undefined);
  } catch {
    watcher = undefined;
  }
  if (watcher) {
    return {
      close() {
        watcher!.close();
        if (timer) clearTimeout(timer);
      },
    };
  }
  // No watching here: compare the stats of what a view shows, now and then.
  let last = signature(dir);
  const poll = setInterval(() => {
    const now = signature(dir);
    if (now !== last) {
      last = now;
      changed();
    }
  }, opts.pollMs ?? 1_000);
  return {
    close() {
      clearInterval(poll);
      if (timer) clearTimeout(timer);
    },
  };
}

/** The size and mtime of every shown file under `dir`, as one string. */
function signature(dir: string): string {
  const parts: string[] = [];
  const walk = (abs: string, rel: string, depth: number) => {
    if (depth > 8) return;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(abs, e.name), r, depth + 1);
      else if (e.isFile() && isShownChange(r)) {
        try {
          const st = statSync(join(abs, e.name));
          parts.push(`${r}:${st.size}:${st.mtimeMs}`);
        } catch {
          // gone meanwhile
        }
      }
    }
  };
  walk(dir, '', 0);
  return parts.join('\n');
}
