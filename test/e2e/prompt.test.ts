import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SOW } from './harness.js';

const sow = (...args: string[]) => spawnSync(process.execPath, [SOW, ...args], { cwd: tmpdir(), encoding: 'utf8' });

describe('sow prompt', () => {
  it('prints a prompt as it is, and works outside any repository', () => {
    const r = sow('prompt', 'guidance/implementer/tdd');
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(200);
    expect(r.stdout).not.toMatch(/\{\{/);
    const json = JSON.parse(sow('prompt', 'guidance/implementer/tdd', '--json').stdout);
    expect(json.ok).toBe(true);
    expect(json.data.path).toBe('guidance/implementer/tdd');
    expect(`${json.data.text.replace(/\n$/, '')}\n`).toBe(r.stdout);
  });

  it('names the list command for an unknown prompt', () => {
    const r = sow('prompt', 'guidance/nobody/base');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: no prompt 'guidance\/nobody\/base'\nhint: run 'sow prompt --list'/);
    expect(sow('prompt').status).toBe(2);
  });
});
