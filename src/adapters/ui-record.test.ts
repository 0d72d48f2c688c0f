// The ui record is read only in the shape sow writes: anything else is ignored, never half-read.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readUiRecord, writeUiRecord } from './ui-record.js';

const HASH = 'a'.repeat(64);

function repo(): string {
  const root = mkdtempSync(join(tmpdir(), 'sow-ui-record-'));
  mkdirSync(join(root, '.git', 'sow'), { recursive: true });
  return root;
}

describe('the ui record', () => {
  it('reads back what was written, only its fields', () => {
    const root = repo();
    writeUiRecord(root, { port: 8080, tokens: [{ sha256: HASH, at: 'now' }] });
    expect(readUiRecord(root)).toEqual({ port: 8080, tokens: [{ sha256: HASH, at: 'now' }] });
    writeFileSync(
      join(root, '.git/sow/ui.json'),
      JSON.stringify({ port: 1, tokens: [{ sha256: HASH, at: 'x', y: 1 }] }),
    );
    expect(readUiRecord(root)).toEqual({ port: 1, tokens: [{ sha256: HASH, at: 'x' }] });
  });

  it.each([
    ['no port', { tokens: [] }],
    ['port 0', { port: 0, tokens: [] }],
    ['port above 65535', { port: 65536, tokens: [] }],
    ['a port in text', { port: '8080', tokens: [] }],
    ['tokens not a list', { port: 8080, tokens: {} }],
    ['a token not hex', { port: 8080, tokens: [{ sha256: 'z'.repeat(64), at: 'now' }] }],
    ['a token without a time', { port: 8080, tokens: [{ sha256: HASH }] }],
    ['a token that is text', { port: 8080, tokens: [HASH] }],
    ['a list', [8080]],
    ['null', null],
  ])('ignores a record with %s', (_, record) => {
    const root = repo();
    writeFileSync(join(root, '.git/sow/ui.json'), JSON.stringify(record));
    expect(readUiRecord(root)).toBeUndefined();
  });
});
