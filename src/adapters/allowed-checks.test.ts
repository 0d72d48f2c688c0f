import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allowedChecksDir, allowRecordPath, checkHash, readAllowRecord, writeAllowRecord } from './allowed-checks.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'sow-allowed-unit-'));
  dirs.push(d);
  return d;
};

describe('where the records are', () => {
  it('$XDG_STATE_HOME/sow/allowed-checks when absolute, else ~/.local/state; %LOCALAPPDATA% on Windows', () => {
    expect(allowedChecksDir({ XDG_STATE_HOME: '/s', HOME: '/h' }, 'linux')).toBe('/s/sow/allowed-checks');
    expect(allowedChecksDir({ XDG_STATE_HOME: 'relative', HOME: '/h' }, 'linux')).toBe(
      '/h/.local/state/sow/allowed-checks',
    );
    expect(allowedChecksDir({ HOME: '/h' }, 'darwin')).toBe('/h/.local/state/sow/allowed-checks');
    expect(allowedChecksDir({ LOCALAPPDATA: 'C:\\L' }, 'win32')).toBe('C:\\L\\sow\\allowed-checks');
    expect(allowedChecksDir({ USERPROFILE: 'C:\\U' }, 'win32')).toBe('C:\\U\\AppData\\Local\\sow\\allowed-checks');
  });

  it('one file per repository, named by the sha256 of its real path', () => {
    const name = createHash('sha256').update('/r').digest('hex');
    expect(allowRecordPath('/r', { XDG_STATE_HOME: '/s' }, 'linux')).toBe(`/s/sow/allowed-checks/${name}.json`);
  });
});

describe('the hash of a check', () => {
  it('is the sha256 of the JSON of [name, run]: a changed command or name is another check', () => {
    expect(checkHash({ name: 'unit', run: 'npm test' })).toBe(
      createHash('sha256').update('["unit","npm test"]').digest('hex'),
    );
    expect(checkHash({ name: 'unit', run: 'npm test ' })).not.toBe(checkHash({ name: 'unit', run: 'npm test' }));
    // No separator games: the name and command cannot be shifted into each other.
    expect(checkHash({ name: 'a', run: 'b c' })).not.toBe(checkHash({ name: 'a b', run: 'c' }));
  });
});

describe('reading and writing a record', () => {
  it('none yet: an empty record; written, read back; emptied: the file is removed', () => {
    const file = join(temp(), 'sow', 'allowed-checks', 'r.json');
    expect(readAllowRecord(file, '/r')).toEqual([]);
    const entry = {
      name: 'unit',
      run: 'npm test',
      sha256: checkHash({ name: 'unit', run: 'npm test' }),
      allowed_at: '2026-11-26T00:00:00.000Z',
    };
    writeAllowRecord(file, '/r', [entry]);
    expect(readAllowRecord(file, '/r')).toEqual([entry]);
    writeAllowRecord(file, '/r', []);
    expect(readAllowRecord(file, '/r')).toEqual([]);
  });

  it.each([
    ['an unknown key', { version: 1, repository: '/r', checks: [], all: true }, 'not a record sow wrote'],
    ['another version', { version: 2, repository: '/r', checks: [] }, 'its version is 2'],
    [
      'an entry of another shape',
      { version: 1, repository: '/r', checks: [{ name: 'unit', run: 'x' }] },
      'checks[0] is not {name, run, sha256, allowed_at}',
    ],
    [
      'an entry with a key more',
      { version: 1, repository: '/r', checks: [{ name: 'u', run: 'x', sha256: 'h', allowed_at: 't', all: true }] },
      'checks[0] is not {name, run, sha256, allowed_at}',
    ],
    [
      'an entry with a field not a string',
      { version: 1, repository: '/r', checks: [{ name: 'u', run: ['x'], sha256: 'h', allowed_at: 't' }] },
      'checks[0] is not {name, run, sha256, allowed_at}',
    ],
    ['checks not a list', { version: 1, repository: '/r', checks: {} }, "'checks' is not a list"],
    ['a list', [], 'not a record sow wrote'],
  ])('%s: refused (exit 4), never read as allowed', (_label, data, problem) => {
    const file = join(temp(), 'r.json');
    writeFileSync(file, JSON.stringify(data));
    expect(() => readAllowRecord(file, '/r')).toThrow(
      expect.objectContaining({
        code: 'CHECKS_RECORD_INVALID',
        kind: 'state',
        message: expect.stringContaining(problem),
      }),
    );
  });
});
