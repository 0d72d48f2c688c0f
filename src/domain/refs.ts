/**
 * What a ref may be: its link name and its source. The committed index (`.sow/refs/index.json`)
 * comes with the repository, so it is a claim by whoever committed it: it may name only sources
 * that are remote and reached over an authenticated, encrypted transport (https, ssh) — never a
 * folder of this machine, which `sow refs init` would copy or link into `.sow/refs/`, in front of
 * every agent. A person's own sources, local folders included, live in the local index.
 */

/** A git URL (https, ssh, scp-like `user@host:path`, http, git, file), or a local folder. */
export function sourceKind(source: string): 'git' | 'folder' {
  return /^(https?|ssh|git|file):\/\//i.test(source) || SCP_LIKE.test(source) ? 'git' : 'folder';
}

/** `user@host:path`, as git reads it (a colon before any slash). */
const SCP_LIKE = /^([^@/\s]+)@([^:/\s]+):/;

/**
 * Why `source` may not stand in the committed index (a clause: "a local folder is …"), or
 * undefined when it may: an `https://` or `ssh://` URL or `user@host:path`, whose user and host
 * do not begin with '-' (ssh would read them as options).
 */
export function unsharedReason(source: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(source)?.[1]?.toLowerCase();
  if (scheme === 'https' || scheme === 'ssh') {
    let url: URL;
    try {
      url = new URL(source);
    } catch {
      return `'${source}' is not a URL git can clone`;
    }
    if (url.hostname === '' || url.hostname.startsWith('-') || decodeURIComponent(url.username).startsWith('-'))
      return `the host or user of '${source}' begins with '-', which ssh would read as an option`;
    return undefined;
  }
  if (scheme === 'file') return 'a file:// URL is a folder on this machine, so it is never shared';
  if (scheme === 'http' || scheme === 'git')
    return `${scheme === 'http' ? 'an' : 'a'} ${scheme}:// URL is unencrypted (anyone on the way could change what agents read), so it is kept to this machine; share an https:// or ssh:// URL instead`;
  if (scheme !== undefined) return `sow shares only https:// and ssh:// sources, not ${scheme}://`;
  const scp = SCP_LIKE.exec(source);
  if (scp) return scp[1]!.startsWith('-') || scp[2]!.startsWith('-') ? `the host or user of '${source}' begins with '-', which ssh would read as an option` : undefined;
  if (/^[a-z][a-z0-9+.-]*::/i.test(source)) return `'${source}' names a git remote helper, which sow never shares`;
  return 'a local folder is a path on this machine, so it is never shared';
}

/** Names sow keeps in `.sow/refs/` for itself. */
export const RESERVED_LINKS: ReadonlySet<string> = new Set(['index.json', 'index.local.json', '.gitignore', '.gitkeep']);

/**
 * Why `link` is not a plain name for `.sow/refs/<link>`, or undefined when it is: lower-case
 * letters, digits, dots, dashes and underscores, at most 64, beginning with a letter or digit
 * (so never '-', '.', '/' or '..'), and none of sow's own files there.
 */
export function linkProblem(link: string): string | undefined {
  if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(link) || link.includes('..'))
    return "a name of lower-case letters, digits, dots, dashes and underscores (at most 64, beginning with a letter or digit, no '..')";
  if (RESERVED_LINKS.has(link)) return `a name other than sow's own files there (${[...RESERVED_LINKS].join(', ')})`;
  return undefined;
}

/**
 * The link name a source gives when `--link` is left out: its last path part (the repository
 * name without `.git`, or the folder's name), lower-cased, with what a link name may not hold
 * turned into '-'. Undefined when nothing usable is left (a source `/`).
 */
export function defaultLink(source: string): string | undefined {
  const path = source.replace(/[?#].*$/, '').replace(/[\\/]+$/, '');
  const last = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'), SCP_LIKE.test(path) && !path.includes('/') ? path.indexOf(':') : -1) + 1);
  const name = last
    .replace(/\.git$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
    .replace(/[-.]+$/, '');
  return name && linkProblem(name) === undefined ? name : undefined;
}
