import { describe, expect, it } from 'vitest';
import { firstLine, probe } from './probe.js';

const env = process.env;

describe('probe', () => {
  it('a tool not on PATH is missing, with why on stderr; an argv Node refuses is not missing, never ran', async () => {
    const gone = await probe('sow-no-such-tool', ['--version'], { env });
    expect(gone).toMatchObject({ missing: true, timedOut: false, code: null, stdout: '' });
    expect(gone.stderr).toContain('ENOENT');
    expect(await probe('a\0b', [], { env })).toMatchObject({ missing: false, timedOut: false, code: null });
  });

  it('gives the exit code and both outputs, with NO_COLOR and extraEnv set; stdin is closed at once', async () => {
    const script = 'cat; echo "out $NO_COLOR $EXTRA"; echo err >&2; exit 3';
    const r = await probe('sh', ['-c', script], { env, extraEnv: { EXTRA: 'x' }, timeoutMs: 30_000 });
    expect(r).toEqual({ missing: false, timedOut: false, code: 3, stdout: 'out 1 x\n', stderr: 'err\n' });
  });

  it('a tool past its deadline is killed: timed out, no exit code', async () => {
    const r = await probe('sh', ['-c', 'exec sleep 30'], { env, timeoutMs: 200 });
    expect(r).toMatchObject({ missing: false, timedOut: true, code: null });
  });

  it('firstLine: the first non-empty line, trimmed, without colour codes', () => {
    expect(firstLine('\n  \x1b[1mgit version 2.43\x1b[0m  \nmore')).toBe('git version 2.43');
  });
});
