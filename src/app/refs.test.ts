/**
 * References in-process: the time a reference was fetched is the context's clock, not the
 * process's (a test, a long-lived server or a replay says when "now" is).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { T0, worlds } from '../../test/inproc.js';
import { addRef, listRefs } from './refs.js';

const world = worlds();
const sources = mkdtempSync(join(tmpdir(), 'sow-refs-src-'));
afterAll(() => rmSync(sources, { recursive: true, force: true }));

describe('refs', () => {
  it("a folder copied into the cache is recorded as fetched at the context's time", async () => {
    const w = await world('init');
    const source = join(sources, 'api-docs');
    mkdirSync(source);
    writeFileSync(join(source, 'README.md'), '# API\n');
    w.clock.advance(90);
    const added = await addRef(w.ctx(), source, { link: 'api-docs', semantic: 'knowledge', local: true, progress: false });
    expect(added.ref.link).toBe('api-docs');
    const [ref] = await listRefs(w.ctx());
    expect(ref?.cache?.fetched_at).toBe(new Date(Date.parse(T0) + 90_000).toISOString());
  });
});
