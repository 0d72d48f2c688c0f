import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeAnswer, encodeAnswer, residentAllowed, residentFolder, residentKey, residentSocket, safeFolder, servedRead, volatileOf } from './resident.js';

const words = (line: string) => line.split(' ').filter(Boolean);

describe('servedRead', () => {
  it.each([
    'task list',
    'task list --json',
    'task list --status pending',
    'task list -s completed --no-color',
    'task list --status=pending',
    'task get --id 010',
    'task get --id=010 name --json',
    'task get name --id 010',
    'task next',
    'phase get tasks_approved',
    'phase get tasks_approved --phase implementation',
    'project status',
    'status --json',
    'advance --dry-run',
    'advance -n --json',
    'advance review_fail --dry-run',
  ])('serves %s', (line) => expect(servedRead(words(line))).toBe(true));

  it.each([
    'task set --id 010 iteration 2',
    'task add name',
    'task list --watch',
    'task list -w',
    'task list -ws pending',
    'task list --help',
    'task list -h',
    'task list --status',
    'task list --status --json',
    'task get --id',
    'task next --claim',
    'task next --agent implementer',
    'project status --all',
    'status --watch',
    'advance',
    'advance review_fail',
    'advance --dry-run=yes',
    'advance --list',
    '--json task list',
    'task --json list',
    'log',
    'mcp',
    '--version',
    '',
    'task',
    'task list --json=1',
    'task list -- --json',
  ])('leaves %j to a fresh process', (line) => expect(servedRead(words(line))).toBe(false));

  it('leaves a word with a NUL in it to a fresh process', () => {
    expect(servedRead(['task', 'get', '--id', '010', 'na\0me'])).toBe(false);
  });
});

describe('the key and the socket', () => {
  it('takes the whole environment but OLDPWD and _, the folder and the build', () => {
    const base = residentKey('b1', '/repo', { HOME: '/h', SOW_OWNER: 'a' });
    expect(residentKey('b1', '/repo', { SOW_OWNER: 'a', HOME: '/h' })).toBe(base);
    expect(residentKey('b1', '/repo', { HOME: '/h', SOW_OWNER: 'a', OLDPWD: '/x', _: '/usr/bin/sow' })).toBe(base);
    expect(residentKey('b1', '/repo', { HOME: '/h', SOW_OWNER: 'b' })).not.toBe(base);
    expect(residentKey('b1', '/repo', { HOME: '/h', SOW_OWNER: 'a', NEW: '' })).not.toBe(base);
    expect(residentKey('b1', '/repo/sub', { HOME: '/h', SOW_OWNER: 'a' })).not.toBe(base);
    expect(residentKey('b2', '/repo', { HOME: '/h', SOW_OWNER: 'a' })).not.toBe(base);
    expect(volatileOf({ OLDPWD: '/x', HOME: '/h' })).toEqual({ OLDPWD: '/x' });
  });

  it('names one socket per key, in the runtime folder, and none where the path would be too long', () => {
    expect(residentFolder({ XDG_RUNTIME_DIR: '/run/user/7' }, 7)).toBe('/run/user/7/sow');
    expect(residentFolder({ XDG_RUNTIME_DIR: 'relative', TMPDIR: '/var/tmp' }, 7)).toBe('/var/tmp/sow-7');
    expect(residentFolder({}, 7)).toBe('/tmp/sow-7');
    const a = residentSocket('/run/user/7/sow', 'key a', crc32)!;
    expect(a).toMatch(/^\/run\/user\/7\/sow\/[0-9a-f]{16}\.sock$/);
    expect(residentSocket('/run/user/7/sow', 'key a', crc32)).toBe(a);
    expect(residentSocket('/run/user/7/sow', 'key b', crc32)).not.toBe(a);
    expect(residentSocket(`/${'x'.repeat(90)}`, 'key a', crc32)).toBeUndefined();
  });
});

describe('safeFolder', () => {
  const root = mkdtempSync(join(tmpdir(), 'sow-resident-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const uid = process.getuid!();

  it('is made private when missing, and refused when others may enter it, it is a link, or another owns it', () => {
    const made = join(root, 'made');
    expect(safeFolder(made, uid)).toBe(false);
    expect(safeFolder(made, uid, true)).toBe(true);
    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o755);
    expect(safeFolder(open, uid, true)).toBe(false);
    chmodSync(open, 0o700);
    expect(safeFolder(open, uid)).toBe(true);
    const link = join(root, 'link');
    symlinkSync(made, link);
    expect(safeFolder(link, uid, true)).toBe(false);
    expect(safeFolder(made, uid + 1)).toBe(false);
  });
});

describe('residentAllowed', () => {
  it('is off in CI, for a worker, with SOW_DEBUG and when switched off', () => {
    expect(residentAllowed({})).toBe(process.execArgv.length === 0 && !process.sourceMapsEnabled);
    for (const env of [{ CI: 'true' }, { CI: '1' }, { SOW_AGENT_ID: 'implementer-1' }, { SOW_DEBUG: '1' }, { SOW_NO_READ_SERVER: '1' }]) expect(residentAllowed(env)).toBe(false);
  });
});

describe('the answer', () => {
  const answer = { code: 3, parts: [[2, Buffer.from('warning: x\n')] as const, [1, Buffer.from('line\n')] as const, [2, Buffer.from('')] as const] };

  it('comes back as it went, parts in order', () => {
    const back = decodeAnswer(encodeAnswer(answer))!;
    expect(back.code).toBe(3);
    expect(back.parts.map(([fd, b]) => [fd, b.toString()])).toEqual([
      [2, 'warning: x\n'],
      [1, 'line\n'],
      [2, ''],
    ]);
  });

  it('is refused cut short, with bytes to spare, as a refusal, or malformed', () => {
    const whole = encodeAnswer(answer);
    for (let cut = 0; cut < whole.length; cut++) expect(decodeAnswer(whole.subarray(0, cut))).toBeUndefined();
    expect(decodeAnswer(Buffer.concat([whole, Buffer.from('x')]))).toBeUndefined();
    for (const text of ['{"refused":"no"}\n', 'nonsense\n', '{"code":0,"parts":[[3,0]]}\n', '{"code":0,"parts":[[1,-1]]}\n', '{"code":1.5,"parts":[]}\n', '{"code":0,"parts":{}}\n'])
      expect(decodeAnswer(Buffer.from(text))).toBeUndefined();
    expect(decodeAnswer(Buffer.from('{"code":0,"parts":[]}\n'))).toEqual({ code: 0, parts: [] });
  });
});
