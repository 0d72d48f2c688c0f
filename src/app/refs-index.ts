// The refs' indexes: `.sow/refs/index.json` (committed, the team's) and `index.local.json` (ignored, this machine's).
// The committed one comes with the repository, so it is only a claim: https:// and ssh:// sources only, no committed
// local index, plain link names, and `.sow/refs/` a real folder.
import { existingRealFolder, normalRelative, repoArea } from '../adapters/confine.js';
import { readFileIfExists } from '../adapters/files.js';
import { isTracked } from '../adapters/git.js';
import type { Transaction } from '../adapters/transaction.js';
import { quoted } from '../domain/display.js';
import { errorClass, StateFileError } from '../domain/errors.js';
import { linkProblem, sourceKind, unsharedReason, urlProblem } from '../domain/refs.js';

export const REFS_DIR = '.sow/refs';
const COMMITTED = `${REFS_DIR}/index.json`;
const LOCAL = `${REFS_DIR}/index.local.json`;
const REFS_GITIGNORE = `# The links are rebuilt from index.json by 'sow refs init'; index.local.json is this \
machine's own.
*
!.gitignore
!.gitkeep
!index.json
`;

export const SEMANTICS = ['knowledge', 'code'] as const;
export type Semantic = (typeof SEMANTICS)[number];

export interface RefEntry {
  link: string;
  source: string;
  branch?: string;
  path?: string;
  description?: string;
  semantic: Semantic;
  tags: string[];
}

/** A committed entry whose source is not a shared remote (a folder here): refused, never copied or linked. */
export class RefSourceNotSharedError extends errorClass(
  'REF_SOURCE_NOT_SHARED',
  'state',
  (index: number, link: string, source: string, why: string) => [
    `${COMMITTED}: refs.${index} ('${link}', source '${source}'): ${why}; the committed index names only ` +
      `https:// and ssh:// sources`,
    `sow copied and linked nothing. To use it on this machine, remove the entry from ${COMMITTED} and run 'sow ` +
      `refs add ${source} --link ${link} --local'; if it came with the repository, it was committed to make sow ` +
      `put it in front of your agents`,
    { file: COMMITTED, field: `refs.${index}.source`, link, source },
  ],
) {}

/** The local index committed: it is this machine's own, so one that came with a repository is a claim. */
export class LocalIndexCommittedError extends errorClass('REF_LOCAL_INDEX_COMMITTED', 'state', () => [
  `${LOCAL} is committed to this repository, but it is this machine's own index and never shared`,
  `sow copied and linked nothing. If it came with the repository, remove it ('git rm ${LOCAL}') and look at ` +
    `what it names; if it is yours, stop tracking it ('git rm --cached ${LOCAL}')`,
  { file: LOCAL },
]) {}

/** Reads one index strictly: a file sow cannot read is refused, not overwritten. */
function readIndex(root: string, rel: string): RefEntry[] {
  const text = readFileIfExists(root, rel);
  if (text === undefined) return [];
  if (rel === LOCAL && isTracked(root, LOCAL)) throw new LocalIndexCommittedError();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new StateFileError(rel, `not valid JSON: ${(err as Error).message}`);
  }
  const refs = (data as { refs?: unknown })?.refs;
  if ((data as { version?: unknown } | null)?.version !== 1 || !Array.isArray(refs))
    throw new StateFileError(rel, 'expected {"version": 1, "refs": [...]}');
  return refs.map((r, i) => {
    const e = r as Record<string, unknown>;
    const str = (k: string, required = false) => {
      if (e[k] === undefined && !required) return undefined;
      if (typeof e[k] !== 'string' || e[k] === '')
        throw new StateFileError(rel, 'expected a non-empty string', `refs.${i}.${k}`);
      return e[k] as string;
    };
    const link = str('link', true)!;
    const badLink = linkProblem(link);
    if (badLink)
      throw new StateFileError(rel, `${quoted(link)} is not a link name: expected ${badLink}`, `refs.${i}.link`);
    const semantic = e['semantic'] ?? 'knowledge';
    if (!SEMANTICS.includes(semantic as Semantic))
      throw new StateFileError(rel, `expected ${SEMANTICS.join(' or ')}`, `refs.${i}.semantic`);
    const tags = e['tags'] ?? [];
    if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string'))
      throw new StateFileError(rel, 'expected a list of strings', `refs.${i}.tags`);
    const entry: RefEntry = {
      link,
      source: str('source', true)!,
      semantic: semantic as Semantic,
      tags: tags as string[],
    };
    for (const k of ['branch', 'path', 'description'] as const) {
      const v = str(k);
      if (v !== undefined) entry[k] = v;
    }
    if (rel === COMMITTED) {
      const why = unsharedReason(entry.source);
      if (why !== undefined) throw new RefSourceNotSharedError(i, link, entry.source, why);
    }
    // Either index: a URL is judged as git will read it before any command hands it to git.
    const unsafe = sourceKind(entry.source) === 'git' ? urlProblem(entry.source) : undefined;
    if (unsafe !== undefined)
      throw new StateFileError(rel, `sow will not hand it to git: ${unsafe}`, `refs.${i}.source`);
    if (entry.path !== undefined && normalRelative(entry.path) === undefined) {
      const why = `${quoted(entry.path)} is not a path inside the source (relative, without '..')`;
      throw new StateFileError(rel, why, `refs.${i}.path`);
    }
    return entry;
  });
}

type Indexes = { committed: RefEntry[]; local: RefEntry[] };

/** Both indexes; `.sow/refs/` must be a real folder (a clone may carry a link there, to make sow work elsewhere). */
export function readIndexes(root: string): Indexes {
  if (existingRefsFolder(root) === undefined) return { committed: [], local: [] };
  return { committed: readIndex(root, COMMITTED), local: readIndex(root, LOCAL) };
}
export const allRefs = (ix: Indexes) => [
  ...ix.committed.map((r) => ({ ...r, local: false })),
  ...ix.local.map((r) => ({ ...r, local: true })),
];

/** Writes the local or the committed index. */
export const writeIndex = (tx: Transaction, local: boolean, refs: readonly RefEntry[]) =>
  tx.write(local ? LOCAL : COMMITTED, `${JSON.stringify({ version: 1, refs }, null, 2)}\n`);

/** `.sow/refs/` if it is a real folder (never a link). */
export const existingRefsFolder = (root: string) => existingRealFolder(repoArea(root), REFS_DIR);

/** The ignore file of `.sow/refs/`, written when it says anything else. */
export function ensureGitignore(tx: Transaction, root: string): void {
  if (readFileIfExists(root, `${REFS_DIR}/.gitignore`) !== REFS_GITIGNORE)
    tx.write(`${REFS_DIR}/.gitignore`, REFS_GITIGNORE);
}

/** Every ref, or none when the indexes cannot be read: the state card and the prompts go on without them. */
export function refsOrNone(root: string) {
  try {
    return allRefs(readIndexes(root));
  } catch {
    return [];
  }
}

/** The refs, as the prompts list them for agents (empty without any). */
export function refsForPrompt(root: string): string {
  const refs = refsOrNone(root);
  if (refs.length === 0) return '';
  return [
    '## References',
    '',
    'Read these before you decide how to do something; they are what this team follows and reuses (`sow refs list` ' +
      'shows them, `sow refs init` makes a missing link again):',
    '',
    ...refs.map((r) => {
      const about = `${r.semantic}${r.tags.length ? `; ${r.tags.join(', ')}` : ''}`;
      return `- \`${REFS_DIR}/${r.link}\` (${about})${r.description ? `: ${r.description}` : ''}`;
    }),
    '',
  ].join('\n');
}

/** A prompt with the references agents should know about appended (when there are any). */
export const withRefs = (prompt: string, refs: string) => (refs ? `${prompt.trimEnd()}\n\n${refs}` : prompt);
