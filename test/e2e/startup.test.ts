/**
 * What a command loads before it does its work (start-up is most of what a read costs): reads
 * load none of the Node modules that only spawning and hashing need.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SOW, toExecuting, useRepos } from './harness.js';

const fresh = useRepos();
const dir = mkdtempSync(join(tmpdir(), 'sow-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Preloaded into the sow process: says at exit which of Node's own modules it loaded.
const preload = join(dir, 'loaded.cjs');
writeFileSync(preload, "process.on('exit', () => process.stderr.write(`\\nLOADED ${JSON.stringify(process.moduleLoadList)}\\n`));\n");

function loaded(stderr: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith('LOADED '));
  if (!line) throw new Error(`no module list in: ${stderr}`);
  return (JSON.parse(line.slice('LOADED '.length)) as string[]).filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
}

describe('start-up', () => {
  it('reads load neither child_process nor crypto (only spawning git or agents, and hashing a journal, need them)', () => {
    const repo = fresh();
    toExecuting(repo);
    for (const args of [['--version'], ['task', 'list'], ['status'], ['phase', 'get', 'status'], ['task', 'get', '--id', '010'], ['advance', '--dry-run']]) {
      const r = repo.sow(args, { via: [process.execPath, '-r', preload, SOW] });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBeLessThan(4);
      const modules = loaded(r.stderr);
      expect(modules, args.join(' ')).toContain('fs');
      expect(
        modules.filter((m) => /^(child_process|crypto)$/.test(m)),
        args.join(' '),
      ).toEqual([]);
    }
  });
});
