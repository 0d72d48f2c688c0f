/**
 * `npm run demo` is sow's main job as the README shows it: every project type walked from creation
 * to completion by a scripted agent through the built CLI, each command's exit code and each
 * advance's state checked by the script itself.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SOW } from './harness.js';

const DEMO = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));

function demo(args: string[]) {
  return spawnSync(process.execPath, [DEMO, ...args], {
    encoding: 'utf8',
    env: { ...process.env, SOW_DEMO_BIN: SOW, NO_COLOR: '1' },
    timeout: 120_000,
  });
}

describe('npm run demo', () => {
  it('--type all walks every project type to its end, as the script expects', () => {
    const r = demo(['--type', 'all']);
    expect(r.stdout).toContain('✓ every command did what the script expected');
    expect(r.status, r.stdout.slice(-3000)).toBe(0);
    // The last walk is the iterative one; each type's final step printed what it left behind.
    expect(r.stdout).toContain('.sow/knowledge/explorations/jwt-libs/summary.md');
    expect(r.stdout).toContain('.sow/knowledge/adrs/0001-jwt.md');
    expect(r.stdout).toContain('.sow/knowledge/iterative/jwt-survey/progress.md');
    expect(r.stdout).toMatch(/Advanced: FinalizeDelete → NoProject/);
  });

  it('refuses an unknown type with exit 2', () => {
    const r = demo(['--type', 'waterfall']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown type 'waterfall'");
  });
});
