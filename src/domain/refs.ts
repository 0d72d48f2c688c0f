// The committed ref index comes with the repository, so it may name only remote sources over an authenticated,
// encrypted transport, never a folder here that `sow refs init` would put before every agent.
import { quoted } from './display.js';

/** A git URL (https, ssh, scp-like `user@host:path`, http, git, file), or a local folder. */
export function sourceKind(source: string): 'git' | 'folder' {
  return /^(https?|ssh|git|file):\/\//i.test(source) || SCP_LIKE.test(source) ? 'git' : 'folder';
}

/** `user@host:path`, as git reads it (a colon before any slash). */
const SCP_LIKE = /^([^@/\s]+)@([^:/\s]+):/;

/** Control characters (C0, DEL, C1): never part of a URL sow hands to git, nor of one it prints. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

// Why git must not get URL `source`, judged as git and ssh see it: git percent-decodes and hands user@host and port to
// ssh as words (`ssh://%2doProxyCommand=…`). Refused: a bad escape, a control character, a user or host starting with
// '-', a port not a number.
export function urlProblem(source: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(source);
  if (!scheme) {
    const scp = SCP_LIKE.exec(source);
    if (CONTROL.test(source)) return 'it holds a control character';
    if (scp && (scp[1]!.startsWith('-') || scp[2]!.startsWith('-')))
      return "its host or user begins with '-', which ssh would read as an option";
    return undefined;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(source);
  } catch {
    return 'it has a %-escape that does not decode';
  }
  if (CONTROL.test(decoded))
    return `it holds a control character${decoded === source ? '' : ' once its %-escapes are decoded'}`;
  const rest = decoded.slice(scheme[0].length);
  const authority = rest.slice(0, rest.search(/\/|$/));
  const once = decoded === source ? '' : ` (${quoted(authority)} once its %-escapes are decoded, as git decodes them)`;
  if (/(^|@)-/.test(authority)) return `its host or user begins with '-'${once}, which ssh would read as an option`;
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const host = hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.split(':')[0]!;
  if (!/^(:\d*)?$/.test(hostPort.slice(host.length))) return `its port is not a number${once}`;
  return undefined;
}

/** Why `source` may not stand in the committed index (a clause), or undefined for an https/ssh URL git may get. */
export function unsharedReason(source: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(source)?.[1]?.toLowerCase();
  if (scheme === 'https' || scheme === 'ssh') {
    const problem = urlProblem(source);
    if (problem !== undefined) return problem;
    let url: URL;
    try {
      url = new URL(source);
    } catch {
      return `${quoted(source)} is not a URL git can clone`;
    }
    if (url.hostname === '') return `${quoted(source)} names no host`;
    return undefined;
  }
  if (scheme === 'file') return 'a file:// URL is a folder on this machine, so it is never shared';
  if (scheme === 'http' || scheme === 'git')
    return (
      `${scheme === 'http' ? 'an' : 'a'} ${scheme}:// URL is unencrypted (anyone on the way could change what ` +
      `agents read), so it is kept to this machine; share an https:// or ssh:// URL instead`
    );
  if (scheme !== undefined) return `sow shares only https:// and ssh:// sources, not ${scheme}://`;
  if (SCP_LIKE.test(source)) return urlProblem(source);
  if (/^[a-z][a-z0-9+.-]*::/i.test(source))
    return `${quoted(source)} names a git remote helper, which sow never shares`;
  return 'a local folder is a path on this machine, so it is never shared';
}

/** Names sow keeps in `.sow/refs/` for itself. */
const RESERVED_LINKS: ReadonlySet<string> = new Set(['index.json', 'index.local.json', '.gitignore', '.gitkeep']);

/** Why `link` is not a plain name for `.sow/refs/<link>` (lower-case letters, digits, `._-`, at most 64). */
export function linkProblem(link: string): string | undefined {
  if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(link) || link.includes('..'))
    return (
      'a name of lower-case letters, digits, dots, dashes and underscores (at most 64, beginning with a letter ' +
      "or digit, no '..')"
    );
  if (RESERVED_LINKS.has(link)) return `a name other than sow's own files there (${[...RESERVED_LINKS].join(', ')})`;
  return undefined;
}

/** The link name a source gives without `--link`: its last path part, lower-cased, made a plain name. */
export function defaultLink(source: string): string | undefined {
  const path = source.replace(/[?#].*$/, '').replace(/[\\/]+$/, '');
  // `host:name` (scp-like, no slash): the name follows the colon.
  const scpColon = SCP_LIKE.test(path) && !path.includes('/') ? path.indexOf(':') : -1;
  const last = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'), scpColon) + 1);
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
