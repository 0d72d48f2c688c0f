/**
 * References in-process: local bare repositories as sources (`file://`), commits pushed between
 * steps to prove behind and update, the source moved away to prove offline, two repositories
 * sharing one cache. The cache is where the context's environment says (XDG_CACHE_HOME), and the
 * time a reference was fetched is the context's clock, not the process's.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { refused, said, T0, worlds, type World } from '../../test/inproc.js';
import { GIT_ID, refSource } from '../../test/ref-source.js';
import { addRef, listRefs, refInfos, refsInit, refsStatus, refsUpdate, removeRef } from './refs.js';
import { refsForPrompt, withRefs } from './refs-index.js';

const world = worlds();
const sources = mkdtempSync(join(tmpdir(), 'sow-refs-src-'));
afterAll(() => rmSync(sources, { recursive: true, force: true }));
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};

const source = refSource;

/** A world whose contexts keep sow's cache in a folder of this test's own. */
async function setup(): Promise<{ w: World; cache: string; ctx: () => ReturnType<World['ctx']> }> {
  const w = await world('init');
  const cache = temp('sow-ref-cache-');
  return { w, cache, ctx: () => w.ctx({ XDG_CACHE_HOME: cache }) };
}

const ADD = { progress: false } as const;
const cacheIndex = (cache: string) => JSON.parse(readFileSync(join(cache, 'sow/refs/index.json'), 'utf8'));

describe('refs add | list', () => {
  it("a folder copied into the cache is recorded as fetched at the context's time", async () => {
    const w = await world('init');
    const src = join(sources, 'api-docs');
    mkdirSync(src);
    writeFileSync(join(src, 'README.md'), '# API\n');
    w.clock.advance(90);
    const added = await addRef(w.ctx(), src, { link: 'api-docs', semantic: 'knowledge', local: true, progress: false });
    expect(added.ref.link).toBe('api-docs');
    const [ref] = await listRefs(w.ctx());
    expect(ref?.cache?.fetched_at).toBe(new Date(Date.parse(T0) + 90_000).toISOString());
  });

  it(
    "clones a git source once into the cache of the context's environment and links it; a file:// source stays in " +
      'the local index',
    async () => {
      const { w, cache, ctx } = await setup();
      const src = source();
      const r = await addRef(ctx(), src.url, { ...ADD, description: 'House style', tags: 'style, lint' });
      expect(r).toMatchObject({
        local: true,
        link: '.sow/refs/origin',
        via: 'link',
        forcedLocal: true,
        ref: {
          link: 'origin',
          source: src.url,
          semantic: 'knowledge',
          tags: ['style', 'lint'],
          description: 'House style',
        },
      });
      expect(r.why_local).toMatch(/\S/);
      expect(r.sha).toMatch(/^[0-9a-f]{40}$/);
      const target = readlinkSync(join(w.dir, '.sow/refs/origin'));
      expect(target.startsWith(join(cache, 'sow/refs/repos') + '/'), target).toBe(true);
      expect(readFileSync(join(w.dir, '.sow/refs/origin/README.md'), 'utf8')).toBe('# Style guide\n');
      expect(JSON.parse(w.read('.sow/refs/index.local.json')).refs.map((x: any) => x.link)).toEqual(['origin']);
      expect(w.exists('.sow/refs/index.json')).toBe(false);
      // The link and the local index are ignored by git.
      expect(w.git(['status', '--porcelain', '-uall', '--', '.sow/refs']).split('\n')).toEqual([
        '?? .sow/refs/.gitignore',
        '?? .sow/refs/.gitkeep',
      ]);
      const [info] = await listRefs(ctx());
      expect(info).toMatchObject({
        link: 'origin',
        local: true,
        link_state: 'ok',
        cache: { kind: 'git', sha: r.sha, fetched_at: T0 },
      });
      expect(refInfos({ ...ctx(), cwd: w.dir })).toEqual([info]);
      expect(Object.values(cacheIndex(cache).entries)).toEqual([
        expect.objectContaining({ source: src.url, users: [w.dir] }),
      ]);
      const listed = refsForPrompt(w.dir);
      expect(listed).toContain('- `.sow/refs/origin` (knowledge; style, lint): House style');
      expect(withRefs('# Prompt\n', listed)).toBe(`# Prompt\n\n${listed}`);
      expect(withRefs('# Prompt\n', '')).toBe('# Prompt\n');
    },
  );

  it(
    '--path links a folder inside the source; --branch a branch; ' + 'a folder that is no git repository is copied',
    async () => {
      const { w, ctx } = await setup();
      const src = source();
      src.branch('v2', 'README.md', '# Style guide v2\n');
      await addRef(ctx(), src.url, { ...ADD, link: 'guide', path: 'docs/' });
      expect(readFileSync(join(w.dir, '.sow/refs/guide/guide.md'), 'utf8')).toBe('Use tabs.\n');
      await addRef(ctx(), src.url, { ...ADD, link: 'v2', branch: 'v2' });
      expect(readFileSync(join(w.dir, '.sow/refs/v2/README.md'), 'utf8')).toBe('# Style guide v2\n');
      const folder = temp('sow-ref-folder-');
      writeFileSync(join(folder, 'notes.md'), 'notes\n');
      const copied = await addRef(ctx(), folder, { ...ADD, link: 'notes' });
      expect(copied).toMatchObject({ local: true, sha: null });
      const infos = await listRefs(ctx());
      expect(infos.map((i) => [i.link, i.path ?? null, i.branch ?? null, i.cache?.kind])).toEqual([
        ['guide', 'docs', null, 'git'],
        ['v2', null, 'v2', 'git'],
        ['notes', null, null, 'copy'],
      ]);
      // A copy is a snapshot: status does not fetch it; update copies it again.
      writeFileSync(join(folder, 'notes.md'), 'notes, later\n');
      expect((await refsStatus(ctx(), 'notes'))[0]).toMatchObject({ link: 'notes', kind: 'copy', state: 'snapshot' });
      expect(await refsUpdate(ctx(), 'notes', false)).toEqual([{ link: 'notes', result: 'recopied' }]);
      expect(readFileSync(join(w.dir, '.sow/refs/notes/notes.md'), 'utf8')).toBe('notes, later\n');
    },
  );

  it(
    'refusals, changing nothing: a taken link, a bad link, --semantic or --path, a source that is not one, one ' +
      'inside the repository, a clone that fails',
    async () => {
      const { w, ctx } = await setup();
      const src = source();
      await addRef(ctx(), src.url, { ...ADD, link: 'style' });
      expect((await refused(w, () => addRef(ctx(), src.url, { ...ADD, link: 'style' }), 'REF_EXISTS', 1)).message).toBe(
        "a ref named 'style' exists already (a local one)",
      );
      await refused(w, () => addRef(ctx(), src.url, { ...ADD, link: 'Bad Name' }), 'USAGE', 2);
      await refused(w, () => addRef(ctx(), src.url, { ...ADD, link: 'x', semantic: 'docs' }), 'USAGE', 2);
      await refused(w, () => addRef(ctx(), src.url, { ...ADD, link: 'x', path: '../up' }), 'USAGE', 2);
      await refused(w, () => addRef(ctx(), src.url, { ...ADD, link: 'x', path: 'no/such' }), 'INVALID_VALUE', 1);
      await refused(w, () => addRef(ctx(), '/no/such/folder', { ...ADD, link: 'x' }), 'INVALID_VALUE', 1);
      w.write('docs/a.md', 'a\n');
      await refused(w, () => addRef(ctx(), join(w.dir, 'docs'), { ...ADD, link: 'x' }), 'REF_INSIDE_REPOSITORY', 1);
      const bad = await refused(
        w,
        () => addRef(ctx(), 'file:///no/such/repo.git', { ...ADD, link: 'x' }),
        'EXTERNAL_TOOL_FAILED',
        5,
      );
      expect(bad.message).toContain('cannot clone file:///no/such/repo.git');
      expect(existsSync(join(w.dir, '.sow/refs/x'))).toBe(false);
    },
  );

  it(
    'an index sow cannot read, or a committed one that names a folder of this machine, is refused (exit 4) and ' +
      'left as it is',
    async () => {
      const { w, ctx } = await setup();
      w.write('.sow/refs/index.json', '{"version": 1, "refs": [{"link": "x"}]}');
      expect(said(await refused(w, () => listRefs(ctx()), 'STATE_FILE_INVALID', 4))).toContain(
        '.sow/refs/index.json: refs.0.source',
      );
      w.write(
        '.sow/refs/index.json',
        JSON.stringify({ version: 1, refs: [{ link: 'home', source: '/home/me', semantic: 'knowledge', tags: [] }] }),
      );
      const e = await refused(w, () => refsInit(ctx(), false), 'REF_SOURCE_NOT_SHARED', 4);
      expect(e.hint).toContain('sow refs add /home/me --link home --local');
      expect(w.exists('.sow/refs/home')).toBe(false);
      // The refs in a prompt: an index sow cannot read lists none.
      expect(refsForPrompt(w.dir)).toBe('');
    },
  );
});

describe('refs status | update', () => {
  it(
    "current, then behind after a push; update fast-forwards and records the context's time; offline once the " +
      'source is gone',
    async () => {
      const { w, cache, ctx } = await setup();
      const src = source();
      const first = (await addRef(ctx(), src.url, { ...ADD, link: 'style' })).sha;
      expect(await refsStatus(ctx())).toEqual([
        {
          link: 'style',
          kind: 'git',
          sha: first,
          fetched_at: T0,
          state: 'current',
          behind: 0,
          ahead: 0,
          remote: expect.any(String),
        },
      ]);
      const next = src.push('README.md', '# Style guide, v2\n');
      w.clock.advance(60);
      // It says when it was fetched before; the cache records this fetch.
      expect((await refsStatus(ctx(), 'style'))[0]).toMatchObject({
        state: 'behind',
        behind: 1,
        sha: first,
        fetched_at: T0,
      });
      expect(Object.values(cacheIndex(cache).entries)[0]).toMatchObject({
        sha: first,
        fetched_at: '2026-11-26T10:01:00.000Z',
      });
      expect(readFileSync(join(w.dir, '.sow/refs/style/README.md'), 'utf8'), 'status changes nothing').toBe(
        '# Style guide\n',
      );
      w.clock.advance(60);
      expect(await refsUpdate(ctx(), undefined, false)).toEqual([
        { link: 'style', result: 'updated', from: first, to: next },
      ]);
      expect(readFileSync(join(w.dir, '.sow/refs/style/README.md'), 'utf8')).toBe('# Style guide, v2\n');
      expect(Object.values(cacheIndex(cache).entries)[0]).toMatchObject({
        sha: next,
        fetched_at: '2026-11-26T10:02:00.000Z',
      });
      expect(await refsUpdate(ctx(), undefined, false)).toEqual([
        { link: 'style', result: 'current', from: next, to: next },
      ]);
      renameSync(src.bare, `${src.bare}.gone`);
      w.clock.advance(60);
      const [offline] = await refsStatus(ctx());
      expect(offline).toMatchObject({
        link: 'style',
        state: 'offline',
        sha: next,
        fetched_at: '2026-11-26T10:02:00.000Z',
      });
      expect((await refsUpdate(ctx(), undefined, false))[0]).toMatchObject({ result: 'offline', from: next });
      expect(readFileSync(join(w.dir, '.sow/refs/style/README.md'), 'utf8')).toBe('# Style guide, v2\n');
    },
  );

  it(
    'a commit made in the cache is ahead and kept; with upstream commits too it has diverged and is not rewritten; ' +
      'uncommitted changes are never discarded',
    async () => {
      const { w, ctx } = await setup();
      const src = source();
      await addRef(ctx(), src.url, { ...ADD, link: 'style' });
      const checkout = readlinkSync(join(w.dir, '.sow/refs/style'));
      writeFileSync(join(checkout, 'LOCAL.md'), 'mine\n');
      execFileSync('git', [...GIT_ID, 'add', 'LOCAL.md'], { cwd: checkout });
      execFileSync('git', [...GIT_ID, 'commit', '-q', '-m', 'local'], { cwd: checkout });
      expect((await refsStatus(ctx()))[0]).toMatchObject({ state: 'ahead', ahead: 1, behind: 0 });
      expect((await refsUpdate(ctx(), undefined, false))[0]).toMatchObject({
        result: 'ahead',
        why: '1 commit(s) made in the cache that the source does not have; kept',
      });
      src.push('README.md', '# upstream\n');
      expect((await refsStatus(ctx()))[0]).toMatchObject({ state: 'diverged', ahead: 1, behind: 1 });
      expect((await refsUpdate(ctx(), undefined, false))[0]).toMatchObject({
        result: 'refused',
        why: 'its checkout and the source have diverged (1 ahead, 1 behind); sow does not rewrite it',
      });
      writeFileSync(join(checkout, 'README.md'), '# my local edit\n');
      expect((await refsUpdate(ctx(), 'style', false))[0]).toMatchObject({
        result: 'refused',
        why: expect.stringContaining('1 uncommitted change(s), which sow does not discard'),
      });
      expect(readFileSync(join(checkout, 'README.md'), 'utf8')).toBe('# my local edit\n');
      const e = await refused(w, () => refsStatus(ctx(), 'styel'), 'REF_NOT_FOUND', 1);
      expect(e.message).toBe("no ref named 'styel'; did you mean 'style'?");
      expect(e.hint).toBe('the refs: style');
    },
  );
});

describe('one cache for every repository; refs init; remove', () => {
  it(
    'a second repository reuses the clone; init makes missing links again and clones what the cache lacks; remove ' +
      '--prune-cache only when unused',
    async () => {
      const src = source();
      const cache = temp('sow-ref-cache-');
      const a = await world('init');
      const b = await world('init');
      const at = (w: World, dir = cache) => w.ctx({ XDG_CACHE_HOME: dir });
      await addRef(at(a), src.url, { ...ADD, link: 'style' });
      const target = readlinkSync(join(a.dir, '.sow/refs/style'));
      // b names the same source in its index, without the link (as a clone of a would have it).
      b.write('.sow/refs/index.local.json', a.read('.sow/refs/index.local.json'));
      expect((await listRefs(at(b)))[0]!.link_state).toBe('missing');
      expect(await refsInit(at(b), false)).toEqual([{ link: 'style', cloned: false, via: 'link' }]);
      expect(readlinkSync(join(b.dir, '.sow/refs/style')), 'the same checkout').toBe(target);
      expect((Object.values(cacheIndex(cache).entries)[0] as any).users).toEqual([a.dir, b.dir]);

      expect(await removeRef(at(a), 'style', true)).toEqual({
        link: 'style',
        local: true,
        pruned: false,
        still_used_by: 1,
      });
      expect(existsSync(target)).toBe(true);
      expect(JSON.parse(a.read('.sow/refs/index.local.json')).refs).toEqual([]);
      expect(a.exists('.sow/refs/style')).toBe(false);
      expect(await removeRef(at(b), 'style', true)).toEqual({
        link: 'style',
        local: true,
        pruned: true,
        still_used_by: 0,
      });
      expect(existsSync(target)).toBe(false);
      await refused(b, () => removeRef(at(b), 'style', false), 'REF_NOT_FOUND', 1);

      // A fresh cache: init clones.
      const c = await world('init');
      c.write(
        '.sow/refs/index.local.json',
        JSON.stringify({ version: 1, refs: [{ link: 'style', source: src.url, semantic: 'knowledge', tags: [] }] }),
      );
      expect(await refsInit(at(c, temp('sow-ref-cache-')), false)).toEqual([
        { link: 'style', cloned: true, via: 'link' },
      ]);
      expect(readFileSync(join(c.dir, '.sow/refs/style/README.md'), 'utf8')).toBe('# Style guide\n');
    },
  );
});
