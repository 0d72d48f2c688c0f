import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { announceRunner, checkRunFiles, readRunnerRecord } from './check-runs.js';
import { runtimePath } from './runtime.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('announceRunner', () => {
  it('writes the record only at runner.json of a run folder of this checkout, whatever the variable names', () => {
    const root = mkdtempSync(join(tmpdir(), 'sow-check-runs-'));
    dirs.push(root);
    execFileSync('git', ['init', '-q', root]);
    const what = { checks: ['unit'], phase: 'finalize', started_at: '2026-12-01T09:00:00.000Z' };
    const files = checkRunFiles(root, 'run-1');
    const elsewhere = [
      join(root, 'runner.json'),
      runtimePath(root, 'check-runs', 'runner.json'),
      runtimePath(root, 'check-runs', 'run-1', 'other.json'),
      runtimePath(root, 'check-runs', 'run-1', '..', 'runner.json'),
      `${runtimePath(root, 'check-runs')}-x/run-1/runner.json`,
    ];
    for (const path of elsewhere) {
      announceRunner(root, path, what);
      expect(existsSync(path), path).toBe(false);
    }
    announceRunner(root, undefined, what);
    expect(existsSync(files.ready)).toBe(false);
    announceRunner(root, files.ready, what);
    expect(readRunnerRecord(files.ready)).toMatchObject({ checks: ['unit'], phase: 'finalize', pid: process.pid });
  });
});
