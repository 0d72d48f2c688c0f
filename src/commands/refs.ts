/** `sow refs …`: shared references for agents, cloned once into the cache and linked under .sow/refs/. */
import { writeText } from '../cli/output.js';
import { progressAllowed } from '../cli/spinner.js';
import { shown } from '../domain/display.js';
import { command, type CommandDef } from '../model/def.js';
import { SowError } from '../domain/errors.js';

/** Git's own progress (clones) where a spinner would show: a terminal, not CI, not TERM=dumb. */
const progress = () => progressAllowed(process.stderr);
/** A spinner with the link's name while it is fetched (a terminal only; startSpinner decides). */
async function fetchSpinner(): Promise<import('../app/refs.js').FetchProgress> {
  const { startSpinner } = await import('../cli/spinner.js');
  let spinner: { stop(): void } | undefined;
  return { start: (link) => (spinner = startSpinner(`fetching ${link}`)), end: () => spinner?.stop() };
}
const short = (sha: string | null | undefined) => (sha ? sha.slice(0, 7) : '-');
const age = (iso: string | null | undefined) => {
  if (!iso) return 'never fetched';
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  return s < 172800 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86400)} days ago`;
};

export const commands: readonly CommandDef[] = [
  command({
    name: 'refs add',
    description:
      'Add a reference: a git URL (https, ssh, file://) or a local folder, linked as .sow/refs/<link>; only https ' +
      'and ssh sources are shared in the committed index',
    args: [{ name: 'source' }],
    options: [
      {
        flags: '--link <name>',
        description:
          "its name under .sow/refs/ (default: the source's name: the repository without .git, or the folder)",
      },
      { flags: '--path <subdir>', description: 'link only this folder (or file) of the source' },
      { flags: '--branch <b>', description: 'this branch of a git source (default: its default branch)' },
      { flags: '--description <text>', description: 'what it is, for agents' },
      {
        flags: '--semantic <kind>',
        description: 'knowledge (documents to follow) or code (examples to reuse)',
        default: 'knowledge',
      },
      { flags: '--tags <a,b>', description: 'comma-separated tags' },
      {
        flags: '--local',
        description: "this machine's own: kept out of the committed index (always so for a local folder)",
      },
    ],
    async run(ctx, { args, opts }) {
      const { addRef } = await import('../app/refs.js');
      const r = await addRef(ctx.app, args[0] as string, { ...opts, progress: progress() });
      const from = `${r.ref.source}${r.ref.branch ? ` (${r.ref.branch})` : ''}${r.sha ? ` at ${short(r.sha)}` : ''}`;
      return {
        data: r,
        text: r.link,
        message:
          `Added ref '${r.ref.link}' (${r.ref.semantic}) from ${from}: ${r.link} ` +
          `→ ${r.target}${r.via === 'copy' ? ' (a copy: symbolic links are not available here)' : ''}\n` +
          (r.local
            ? `Recorded in .sow/refs/index.local.json, this machine's own${r.why_local ? ` (${r.why_local})` : ''}`
            : "Recorded in .sow/refs/index.json: commit it, and teammates run 'sow refs init'"),
      };
    },
  }),
  command({
    name: 'refs list',
    description: 'The references: link, kind, source, whether the link works',
    writes: false,
    async run(ctx) {
      const { listRefs } = await import('../app/refs.js');
      const list = await listRefs(ctx.app);
      return {
        data: list,
        text: list
          .map(
            (r) =>
              `${shown(r.link)}  ${shown(r.semantic)}  ${shown(r.source)}` +
              (r.branch ? ` (${shown(r.branch)})` : '') +
              (r.path ? ` /${shown(r.path)}` : '') +
              (r.local ? '  [local]' : '') +
              (r.link_state === 'ok' ? '' : `  link ${r.link_state}: run 'sow refs init'`) +
              (r.description ? `\n    ${shown(r.description)}` : ''),
          )
          .join('\n'),
        message: list.length ? undefined : "No refs yet; 'sow refs add <source>' adds one",
      };
    },
  }),
  command({
    name: 'refs status',
    description: 'Fetch and compare: current, behind, ahead or diverged (offline: the cached commit and its age)',
    args: [{ name: 'link', optional: true, complete: 'ref' }],
    writes: false,
    async run(ctx, { args }) {
      const { refsStatus } = await import('../app/refs.js');
      const list = await refsStatus(ctx.app, args[0] as string | undefined, await fetchSpinner());
      type Status = (typeof list)[number] & Partial<{ behind: number; ahead: number; remote: string; reason: string }>;
      const says: Record<Status['state'], (s: Status) => string> = {
        offline: (s) => `offline: ${short(s.sha)}, fetched ${age(s.fetched_at)} (${s.reason})`,
        snapshot: () => "a copy of a local folder ('sow refs update' copies it again)",
        'not-cloned': () => "not in the cache: run 'sow refs init'",
        behind: (s) => `behind by ${s.behind}: ${short(s.sha)} → ${short(s.remote)} ('sow refs update ${s.link}')`,
        ahead: (s) => `ahead by ${s.ahead} (${short(s.sha)})`,
        diverged: (s) => `diverged: ${s.ahead} ahead, ${s.behind} behind`,
        current: (s) => `current (${short(s.sha)})`,
      };
      const line = (s: Status) => `${s.link}  ${says[s.state](s)}`;
      return { data: list, text: list.map(line).join('\n'), message: list.length ? undefined : 'No refs yet' };
    },
  }),
  command({
    name: 'refs update',
    description: 'Fast-forward the cached checkouts (never discarding changes made in the cache)',
    args: [{ name: 'link', optional: true, complete: 'ref' }],
    async run(ctx, { args }) {
      const { refsUpdate } = await import('../app/refs.js');
      const list = await refsUpdate(ctx.app, args[0] as string | undefined, progress(), await fetchSpinner());
      type Update = (typeof list)[number];
      const says: Record<Update['result'], (u: Update) => string> = {
        updated: (u) => `updated ${short(u.from)} → ${short(u.to)}`,
        current: (u) => `current (${short(u.to)})`,
        ahead: (u) => `ahead, kept at ${short(u.to)}: ${u.why}`,
        offline: (u) => `offline, kept at ${short(u.from)} (${u.why})`,
        recopied: () => 'copied again',
        cloned: (u) => `cloned (${short(u.to)})`,
        refused: (u) => `not updated: ${u.why}`,
      };
      const line = (u: Update) => `${u.link}  ${says[u.result](u)}`;
      const refused = list.filter((u) => u.result === 'refused');
      if (refused.length) {
        writeText(process.stdout, list.map(line).join('\n'));
        throw new SowError(
          'REF_NOT_UPDATED',
          'failed',
          `${refused.length} ref(s) not updated: ${refused.map((u) => u.link).join(', ')}`,
          'look at the checkout in the cache (sow refs list shows where), commit or move the changes, then ' +
            'update again',
        );
      }
      return { data: list, text: list.map(line).join('\n'), message: list.length ? undefined : 'No refs yet' };
    },
  }),
  command({
    name: 'refs remove',
    description: 'Remove a reference and its link',
    args: [{ name: 'link', complete: 'ref' }],
    options: [
      {
        flags: '--prune-cache',
        description: 'also delete its checkout from the cache when no other repository uses it',
      },
    ],
    async run(ctx, { args, opts }) {
      const { removeRef } = await import('../app/refs.js');
      const pruneCache = opts.pruneCache === true;
      const r = await removeRef(ctx.app, args[0] as string, pruneCache);
      const users = `${r.still_used_by} other repositor${r.still_used_by === 1 ? 'y' : 'ies'}`;
      const cache = r.pruned
        ? '; its checkout was deleted from the cache'
        : r.still_used_by
          ? `; its checkout stays in the cache (used by ${users})`
          : pruneCache
            ? ''
            : "; its checkout stays in the cache ('--prune-cache' deletes it)";
      return { data: r, message: `Removed ref '${r.link}'${cache}` };
    },
  }),
  command({
    name: 'refs init',
    description: 'Make every link again from the indexes (clone what the cache lacks): run it on a fresh clone',
    async run(ctx) {
      const { refsInit } = await import('../app/refs.js');
      const list = await refsInit(ctx.app, progress());
      return {
        data: list,
        text: list
          .map((r) => `${r.link}  ${r.cloned ? 'cloned and linked' : 'linked'}${r.via === 'copy' ? ' (a copy)' : ''}`)
          .join('\n'),
        message: list.length ? undefined : 'No refs in the indexes',
      };
    },
  }),
];
