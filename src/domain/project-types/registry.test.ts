import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allProjectTypes, loadProjectType, PROJECT_TYPE_NAMES } from './index.js';

const PROJECT_TYPES = Object.fromEntries((await allProjectTypes()).map((t) => [t.name, t]));

const SRC = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [p] : [];
  });
}

describe('the registry', () => {
  it('loads each type alone, under its own name, and no type it does not hold', async () => {
    expect(Object.keys(PROJECT_TYPES)).toEqual(PROJECT_TYPE_NAMES);
    for (const [name, type] of Object.entries(PROJECT_TYPES)) expect(await loadProjectType(name), name).toBe(type);
    for (const name of ['', 'Standard', 'toString', '__proto__', 'constructor', 'hasOwnProperty'])
      expect(await loadProjectType(name), name).toBeUndefined();
  });

  it('every type has one phase that holds its tasks', () => {
    for (const type of Object.values(PROJECT_TYPES))
      expect(type.phases.filter((p) => p.hasTasks).length, type.name).toBe(1);
  });

  it('the registry imports no type: each is loaded when asked for, so reading a project loads only its own', () => {
    expect(readFileSync(join(SRC, 'domain', 'project-types', 'index.ts'), 'utf8')).not.toMatch(
      /^import (?!type ).*from '\.\/\w+\/index\.js'/m,
    );
  });

  it('a project type is named only in its own folder and in the registry (adding one changes nothing else)', () => {
    const offenders: string[] = [];
    for (const type of Object.values(PROJECT_TYPES)) {
      if (type.name === 'standard') continue; // the default's name is the registry's DEFAULT_TYPE
      const needle = new RegExp(`['"\`]${type.name}['"\`]|\\b${type.name}/`);
      for (const file of sources(SRC)) {
        const rel = relative(SRC, file);
        if (rel.startsWith(join('domain', 'project-types', type.name))) continue;
        if (rel === join('domain', 'project-types', 'index.ts')) continue;
        if (needle.test(readFileSync(file, 'utf8'))) offenders.push(`${rel} names '${type.name}'`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it(
    "no general code names a type's phases or states: what it needs from a type, the type declares (pullRequest, " +
      'promptVariables)',
    () => {
      // migrate.ts converts the layout of sow before project types, which was standard's.
      // acp-worker.ts reads the Agent Client Protocol's own update kinds, one of which is 'plan'.
      // The executor modules name the agent CLIs' own session modes, one of which is 'plan'.
      const allowed = new Set([
        join('app', 'migrate.ts'),
        join('app', 'acp-worker.ts'),
        ...['claude', 'copilot', 'gemini'].map((cli) => join('adapters', 'executors', `${cli}.ts`)),
      ]);
      const names = new Set(
        Object.values(PROJECT_TYPES).flatMap((t) => [
          ...t.phases.map((p) => p.name),
          ...Object.keys(t.states).filter((s) => s !== 'NoProject'),
        ]),
      );
      const offenders: string[] = [];
      for (const dir of ['app', 'cli', 'mcp', 'adapters']) {
        for (const file of sources(join(SRC, dir))) {
          const rel = relative(SRC, file);
          if (allowed.has(rel)) continue;
          const text = readFileSync(file, 'utf8');
          for (const name of names) {
            // 'review' is also an artifact type (a.type === 'review'): only a phase lookup counts for it.
            const needle =
              name === 'review'
                ? /phases\[['"`]review['"`]\]|phaseOf\([^,]+, ['"`]review['"`]\)/
                : new RegExp(String.raw`['"\`]${name}['"\`]|startsWith\(['"\`]${name.slice(0, 5)}`);
            if (needle.test(text)) offenders.push(`${rel} names '${name}'`);
          }
        }
      }
      expect(offenders).toEqual([]);
    },
  );

  it('every type has a prompt for each non-final state, and a branch prefix of its own', () => {
    const prefixes = Object.values(PROJECT_TYPES).map((t) => t.branchPrefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const type of Object.values(PROJECT_TYPES)) {
      expect(type.branchPrefix).toMatch(/^[a-z]+\/$/);
      for (const [state, def] of Object.entries(type.states)) {
        if (def.final) continue;
        expect(
          () => readFileSync(join(SRC, '..', 'templates', 'prompts', type.name, `${state}.md`)),
          `templates/prompts/${type.name}/${state}.md`,
        ).not.toThrow();
      }
    }
  });
});
