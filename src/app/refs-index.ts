// The refs' indexes: `.sow/refs/index.json` (committed, the team's) and `index.local.json` (ignored, this machine's).
// The committed one comes with the repository, so it is only a claim: https:// and ssh:// sources only, no committed
// local index, plain link names, and `.sow/refs/` a real folder.
import { existingRealFolder, normalRelative, repoArea } from '../adapters/confine.js';
import { readFileIfExists } from '../adapters/files.js';
import { isTracked } from '../adapters/git.js';
import type { Transaction } from '../adapters/transaction.js';
import * as v from 'valibot';
import { quoted } from '../domain/display.js';
import { errorClass, StateFileError } from '../domain/errors.js';
import { builtWhenUsed } from '../domain/schema-check.js';
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

const NON_EMPTY = 'expected a non-empty string';
const SHAPE = 'expected {"version": 1, "refs": [...]}';
const LIST = 'expected a list of strings';

// An index as sow writes it; the first issue is said with its field (refs.<n>.<field>), the shape without one.
const IndexSchema = builtWhenUsed(() => {
  const text = v.pipe(v.string(NON_EMPTY), v.minLength(1, NON_EMPTY));
  const entry = v.object(
    {
      link: text,
      source: text,
      semantic: v.nullish(v.picklist(SEMANTICS, `expected ${SEMANTICS.join(' or ')}`), 'knowledge'),
      tags: v.nullish(v.array(v.string(LIST), LIST), []),
      branch: v.optional(text),
      path: v.optional(text),
      description: v.optional(text),
    },
    NON_EMPTY,
  );
  return v.object({ version: v.literal(1, SHAPE), refs: v.array(entry, SHAPE) }, SHAPE);
});

export type RefEntry = v.InferOutput<typeof IndexSchema>['refs'][number];

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
  const read = v.safeParse(IndexSchema, data);
  if (!read.success) {
    const issue = read.issues[0];
    const field = v.getDotPath(issue)?.split('.').slice(0, 3);
    throw new StateFileError(
      rel,
      issue.message,
      field?.[0] === 'refs' && field.length > 1 ? field.join('.') : undefined,
    );
  }
  return read.output.refs.map((entry, i) => {
    const link = entry.link;
    const badLink = linkProblem(link);
    if (badLink)
      throw new StateFileError(rel, `${quoted(link)} is not a link name: expected ${badLink}`, `refs.${i}.link`);
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
