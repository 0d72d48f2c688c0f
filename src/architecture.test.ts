/**
 * The house's rules, read from the imports: domain/ is pure (no disk, no processes, nothing of
 * the layers above it); app/ touches disk and processes only through adapters/ and its workspace;
 * adapters/ never reach up into app/ or cli/; model/ (the command model) reaches no front end. And what was
 * taken out stays out: no XState, no parse cache.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('.', import.meta.url));

function sources(): { file: string; imports: string[] }[] {
  const out: { file: string; imports: string[] }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        const text = readFileSync(p, 'utf8');
        const imports = [
          ...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'";]*?from\s+'([^']+)'|import\('([^']+)'\)/g),
        ].map((m) => m[1] ?? m[2]!);
        out.push({ file: relative(SRC, p).split('\\').join('/'), imports });
      }
    }
  };
  walk(SRC);
  return out;
}

/** Which layer a relative import from `file` lands in. */
function layerOf(file: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const target = join(file, '..', spec).split('\\').join('/');
  return target.split('/')[0];
}

describe('the layers', () => {
  const all = sources();
  it('finds the code', () => {
    expect(all.filter((s) => s.file.startsWith('app/')).length).toBeGreaterThan(10);
  });

  it('domain/ is pure: no node:fs, node:child_process, and nothing of app/, adapters/ or cli/', () => {
    const bad = all
      .filter((s) => s.file.startsWith('domain/'))
      .flatMap((s) =>
        s.imports
          .filter(
            (i) =>
              /^node:(fs|child_process|os|process)/.test(i) ||
              ['app', 'adapters', 'cli'].includes(layerOf(s.file, i) ?? ''),
          )
          .map((i) => `${s.file} → ${i}`),
      );
    expect(bad).toEqual([]);
  });

  it(
    'app/ touches disk and processes only through adapters/: ' + 'no node:fs or node:child_process, nothing of cli/',
    () => {
      const bad = all
        .filter((s) => s.file.startsWith('app/'))
        .flatMap((s) =>
          s.imports
            .filter((i) => /^node:(fs|child_process)/.test(i) || layerOf(s.file, i) === 'cli')
            .map((i) => `${s.file} → ${i}`),
        );
      expect(bad).toEqual([]);
    },
  );

  it('adapters/ never reach up into app/ or cli/', () => {
    const bad = all
      .filter((s) => s.file.startsWith('adapters/'))
      .flatMap((s) =>
        s.imports.filter((i) => ['app', 'cli'].includes(layerOf(s.file, i) ?? '')).map((i) => `${s.file} → ${i}`),
      );
    expect(bad).toEqual([]);
  });

  it('model/ (what a command is) reaches nothing of the front ends: cli/, commands/, mcp/, ui/', () => {
    const fronts = ['cli', 'commands', 'mcp', 'ui'];
    const bad = all
      .filter((s) => s.file.startsWith('model/'))
      .flatMap((s) =>
        s.imports.filter((i) => fronts.includes(layerOf(s.file, i) ?? '')).map((i) => `${s.file} → ${i}`),
      );
    expect(all.some((s) => s.file === 'model/def.ts')).toBe(true);
    expect(bad).toEqual([]);
  });

  it(
    'app/ reads the environment and the clock only from its context: no process.env, Date.now() or new Date() but ' +
      'in context.ts',
    () => {
      const bad = all
        .filter((s) => s.file.startsWith('app/') && s.file !== 'app/context.ts')
        .flatMap((s) =>
          readFileSync(join(SRC, s.file), 'utf8')
            .split('\n')
            .flatMap((line, i) =>
              /process\.env\b|Date\.now\(\)|new Date\(\)/.test(line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, ''))
                ? [`${s.file}:${i + 1}: ${line.trim()}`]
                : [],
            ),
        );
      expect(bad).toEqual([]);
    },
  );

  it('no source file is over 500 lines: a file that grows past it is split by what its parts do', () => {
    const long = all
      .map((s) => ({ file: s.file, lines: readFileSync(join(SRC, s.file), 'utf8').split('\n').length - 1 }))
      .filter((s) => s.lines > 500)
      .map((s) => `${s.file}: ${s.lines} lines`);
    expect(long).toEqual([]);
  });

  it('what was taken out stays out: no XState, no parse cache', () => {
    const pkg = JSON.parse(readFileSync(join(SRC, '..', 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    expect(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })).not.toContain('xstate');
    const mentions = all.flatMap((s) => s.imports.filter((i) => i === 'xstate').map(() => s.file));
    expect(mentions).toEqual([]);
    // The old parse cache was `.sow/.cache/` (join(root, '.sow', '.cache', …)); ~/.cache is the code cache's home.
    const cache = all
      .filter(
        (s) =>
          /\.sow\/\.cache|'\.sow',\s*'\.cache'/.test(readFileSync(join(SRC, s.file), 'utf8')) &&
          !s.file.endsWith('migrate.ts'),
      )
      .map((s) => s.file);
    expect(cache, 'only migrate knows the old parse cache, to remove it').toEqual([]);
  });
});
