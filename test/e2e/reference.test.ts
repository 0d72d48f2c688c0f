/**
 * docs/reference/ is generated from sow's command model (scripts/reference.mjs): it must be what the
 * build under test would write, so a command, option or exit code changed without the reference
 * fails here — and the check itself must see a page that went stale.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SOW } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = (root: string) =>
  spawnSync(process.execPath, [join(root, 'scripts/reference.mjs'), '--check'], {
    encoding: 'utf8',
    env: { ...process.env, SOW_BIN: SOW },
  });

describe('the command reference', () => {
  it('docs/reference/ is what the command model says, a page per command', () => {
    const r = run(ROOT);
    expect(r.status, r.stderr).toBe(0);
    const index = readFileSync(join(ROOT, 'docs/reference/README.md'), 'utf8');
    expect(index).toContain('[`sow task set`](task-set.md)');
    expect(readFileSync(join(ROOT, 'docs/reference/agent-wait.md'), 'utf8')).toMatch(/\| 124 \|/);
  });

  it('a stale page, a missing one and a page of no command are each named', () => {
    const copy = mkdtempSync(join(tmpdir(), 'sow-ref-'));
    try {
      cpSync(join(ROOT, 'scripts'), join(copy, 'scripts'), { recursive: true });
      cpSync(join(ROOT, 'docs/reference'), join(copy, 'docs/reference'), { recursive: true });
      writeFileSync(join(copy, 'docs/reference/task-set.md'), 'old\n');
      rmSync(join(copy, 'docs/reference/advance.md'));
      writeFileSync(join(copy, 'docs/reference/task-frobnicate.md'), '# gone\n');
      const r = run(copy);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/task-set\.md/);
      expect(r.stderr).toMatch(/advance\.md/);
      expect(r.stderr).toMatch(/task-frobnicate\.md \(no such command\)/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
