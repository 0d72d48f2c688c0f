/**
 * The check every command makes of the configuration files (config-health.ts): what it finds, and
 * that its kept verdict is believed only for the file as it was judged, by the sow that judged it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { worlds } from '../../test/inproc.js';
import { configProblems } from './config-health.js';

const world = worlds();
const LATER = Date.now() + 60_000;
const cacheOf = (dir: string) => join(dir, '.git', 'sow', 'config-check.json');

describe('configProblems', () => {
  it('none when neither file exists, or outside a workspace', async () => {
    const w = await world('init');
    expect(await configProblems(w.ctx(), LATER)).toEqual([]);
    expect(await configProblems({ ...w.ctx(), cwd: '/' }, LATER)).toEqual([]);
  });

  it(
    'a repository file with a mistake: the warning names the key and the fix; a settled file’s verdict is kept and ' +
      'believed while its stamp holds',
    async () => {
      const w = await world('init');
      w.write('.sow/config.yaml', 'bugdet:\n  usd: 5\n');
      const [p] = await configProblems(w.ctx(), LATER);
      expect(p).toEqual({
        file: '.sow/config.yaml',
        warning: expect.stringMatching(
          new RegExp(
            /^\.sow\/config\.yaml: bugdet: unknown key 'bugdet'; did you mean 'budget'\?; /.source +
              /.*\(no budget limits the workers\)/.source,
          ),
        ),
      });
      const kept = JSON.parse(readFileSync(cacheOf(w.dir), 'utf8'));
      const id = Object.keys(kept)[0]!;
      expect(kept[id]).toMatchObject({ problem: { budget: true } });
      // The kept verdict is what answers (a made-up message shows it is not judged again) …
      kept[id].problem.message = 'as kept';
      writeFileSync(cacheOf(w.dir), JSON.stringify(kept));
      expect((await configProblems(w.ctx(), LATER))[0]!.warning).toMatch(/^as kept; /);
      // … by the same sow only, and only for the same file.
      writeFileSync(cacheOf(w.dir), JSON.stringify({ [id]: { ...kept[id], version: 'another' } }));
      expect((await configProblems(w.ctx(), LATER))[0]!.warning).toMatch(/^\.sow\/config\.yaml: bugdet/);
      w.write('.sow/config.yaml', 'budget:\n  usd: 5\n');
      expect(await configProblems(w.ctx(), LATER + 60_000)).toEqual([]);
    },
  );

  it('a file that has not settled is judged every time, never kept; a cache that is not JSON is ignored', async () => {
    const w = await world('init');
    w.write('.sow/config.yaml', 'budget: 20\n');
    expect(await configProblems(w.ctx(), Date.now())).toHaveLength(1);
    expect(() => readFileSync(cacheOf(w.dir), 'utf8')).toThrow();
    writeFileSync(cacheOf(w.dir), '{not json');
    expect(await configProblems(w.ctx(), LATER)).toEqual([
      { file: '.sow/config.yaml', warning: expect.stringContaining('budget: ') },
    ]);
  });

  it('the user configuration, where the environment puts it', async () => {
    const w = await world('init');
    const ctx = w.ctx();
    const path = join(ctx.env['XDG_CONFIG_HOME']!, 'sow', 'config.yaml');
    w.write('.sow/config.yaml', 'budget:\n  usd: 5\n');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(ctx.env['XDG_CONFIG_HOME']!, 'sow'), { recursive: true });
    writeFileSync(path, 'agents:\n  bindings:\n    implementer: 3\n');
    expect(await configProblems(ctx, LATER)).toEqual([
      {
        file: path,
        warning: expect.stringMatching(
          /agents\.bindings\.implementer: .*; until it is fixed workers refuse to start; fix it with 'sow config edit'/,
        ),
      },
    ]);
  });
});
