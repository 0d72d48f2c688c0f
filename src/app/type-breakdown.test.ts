/**
 * The breakdown type in-process: its guards on the way to Publishing and out of it, publishing units as files,
 * and specs that lead out of the repository never published. The repositories here have no
 * GitHub remote, so a publication that reached for GitHub would be refused with another code.
 * Issues through a fake gh are test/e2e/type-breakdown.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { refused, said, typeCommand, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { newProject } from './project.js';
import { addTask } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';

const taskState = (id: string) => `.sow/project/phases/breakdown/tasks/${id}/state.yaml`;
const KNOWLEDGE = '.sow/knowledge/breakdowns/auth';
const SPECS: Record<string, string> = {
  '010': '# Refresh tokens\n\nRotate refresh tokens on use.\n',
  '020': '# Token format\n\nHS256, 15 minutes.\n',
  '030': '# Verify tokens\n\nMiddleware that rejects bad tokens.\n',
};

async function specify(w: World, id: string): Promise<void> {
  const ctx = w.ctx();
  w.write(`.sow/project/units/${id}.md`, SPECS[id]!);
  await addArtifact(ctx, { kind: 'task', id }, 'outputs', {
    type: 'work_unit_spec',
    path: `units/${id}.md`,
    extra: {},
  });
  await setArtifact(ctx, { kind: 'task', id }, 'outputs', 0, 'approved', 'true');
  await setTaskField(ctx, id, 'status', 'completed');
}

/**
 * Active: the discovery approved; 010 Refresh tokens (after 030), 020 Token format, 030 Verify tokens (after 020),
 * 040 Admin screen.
 */
async function toActive(w: World): Promise<void> {
  const ctx = w.ctx();
  await newProject(ctx, { name: 'auth', type: 'breakdown', description: 'JWT authentication', planning: true });
  w.write('.sow/project/discovery.md', '# JWT authentication\n\nStateless tokens for the API.\n');
  await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
    type: 'discovery',
    path: 'discovery.md',
    approved: 'true',
    extra: {},
  });
  expect((await advanceProject(ctx, undefined, false)).to).toBe('Active');
  await addTask(ctx, { name: 'Refresh tokens' });
  await addTask(ctx, { name: 'Token format' });
  await addTask(ctx, { name: 'Verify tokens', dependsOn: '020' });
  await setTaskField(ctx, '010', 'dependencies', '030');
  await addTask(ctx, { name: 'Admin screen' });
}

const world = worlds({
  active: toActive,
  /** Publishing: three completed units with approved specs, one abandoned. */
  publishing: async (w) => {
    await toActive(w);
    for (const id of ['020', '030', '010']) await specify(w, id);
    await abandonTask(w.ctx(), '040');
    expect((await advanceProject(w.ctx(), undefined, false)).to).toBe('Publishing');
  },
});

const publishing = () => world('publishing');

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the way to Publishing', () => {
  it('each unfinished, unspecified or unapproved unit is named with the command that fixes it', async () => {
    const w = await world('active');
    const ctx = w.ctx();
    const blocked = () => refused(w, () => advanceProject(ctx, undefined, false), 'TRANSITION_BLOCKED', 3).then(said);
    expect(await blocked()).toContain('finish or abandon 010, 020, 030 and 040');
    await setTaskField(ctx, '020', 'status', 'completed');
    await abandonTask(ctx, '040');
    expect(await blocked()).toContain(
      "unit 020 has no spec: write it and add it: 'sow task output add --id 020 --type work_unit_spec --path " +
        "units/020.md'",
    );
    w.write('.sow/project/units/020.md', SPECS['020']!);
    await addArtifact(ctx, { kind: 'task', id: '020' }, 'outputs', {
      type: 'work_unit_spec',
      path: 'units/020.md',
      extra: {},
    });
    await setTaskField(ctx, '010', 'status', 'abandoned');
    await setTaskField(ctx, '030', 'status', 'abandoned');
    expect(await blocked()).toBe(
      'cannot advance from Active: blocked until every unit is completed or abandoned (at least one completed), ' +
        "each completed unit's work_unit_spec is approved, and the dependencies name existing units and form " +
        'no cycle\n' +
        "the spec of unit 020 (units/020.md) is not approved: the human approves it with 'sow task output set --id " +
        "020 --index 0 approved true'",
    );
    await setArtifact(ctx, { kind: 'task', id: '020' }, 'outputs', 0, 'approved', 'true');
    await setTaskField(ctx, '020', 'status', 'pending', { force: true });
    await setTaskField(ctx, '020', 'dependencies', '040');
    await setTaskField(ctx, '020', 'status', 'completed');
    expect(await blocked()).toContain('unit 020 is completed but depends on 040, which was abandoned');
    await setTaskField(ctx, '020', 'dependencies', '');
    expect((await advanceProject(ctx, undefined, true)).to).toBe('Publishing');
    const early = said(
      await refused(w, () => typeCommand(ctx, ['breakdown', 'publish', '--to', 'files']), 'NOT_PUBLISHING', 3),
    );
    expect(early).toContain("run 'sow advance' (Active → Publishing)");
  });

  it('in Publishing, the advance waits for every completed unit to be published, and names them', async () => {
    const w = await publishing();
    const ctx = w.ctx();
    const blocked = () => refused(w, () => advanceProject(ctx, undefined, false), 'TRANSITION_BLOCKED', 3).then(said);
    expect(await blocked()).toContain("publish units 010, 020 and 030: 'sow breakdown publish'");
    w.write('.sow/config.yaml', 'github:\n  repo: acme/api\n');
    const before = w.yaml(taskState('020'));
    w.write(
      taskState('020'),
      w.read(taskState('020')).replace(/^metadata:.*$/m, '') +
        'metadata:\n  published:\n    issue: 8\n    url: https://github.com/acme/api/issues/8\n    at: ' +
        '2026-11-26T10:00:00.000Z\n',
    );
    expect(w.yaml(taskState('020')).metadata.published.issue).toBe(8);
    expect(before.metadata?.published).toBeUndefined();
    expect(await blocked()).toContain("publish units 010 and 030: 'sow breakdown publish'");
  });
});

describe('breakdown publish without --to', () => {
  it('publishes as issues when gh is on the PATH of the context, as files (saying why) when it is not', async () => {
    const w = await publishing();
    w.write('.sow/config.yaml', 'github:\n  repo: acme/api\n');
    const bin = mkdtempSync(join(tmpdir(), 'sow-inproc-gh-'));
    temps.push(bin);
    const without = await typeCommand(w.ctx({ PATH: bin }), ['breakdown', 'publish', '--dry-run']);
    expect(without.data).toMatchObject({ target: 'files' });
    expect(without.message).toMatch(/^gh \(the GitHub CLI\) is not on PATH, so the units become markdown files/);
    writeFileSync(join(bin, 'gh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const withGh = await typeCommand(w.ctx({ PATH: bin }), ['breakdown', 'publish', '--dry-run']);
    expect(withGh.data).toMatchObject({ target: 'github', repo: 'acme/api' });
    expect(withGh.message).toBe('dry run: would publish 3 units as issues of acme/api; nothing was changed');
  });
});

describe('breakdown publish --to files', () => {
  it(
    'a dry run plans in dependency order and writes nothing; the files link to each other; published units are ' +
      'recorded, archived and indexed',
    async () => {
      const w = await publishing();
      const ctx = w.ctx();
      const before = w.snapshot();
      const dry = await typeCommand(ctx, ['breakdown', 'publish', '--to', 'files', '--dry-run']);
      expect(dry.text).toBe(
        `020 → ${KNOWLEDGE}/020-token-format.md\n030 → ${KNOWLEDGE}/030-verify-tokens.md (depends on 020)\n010 ` +
          `→ ${KNOWLEDGE}/010-refresh-tokens.md (depends on 030)`,
      );
      expect(w.snapshot()).toEqual(before);
      w.clock.set('2026-12-02T12:00:00.000Z');
      const r = await typeCommand(ctx, ['breakdown', 'publish', '--to', 'files']);
      expect(r.text).toBe(
        `020 → ${KNOWLEDGE}/020-token-format.md\n030 → ${KNOWLEDGE}/030-verify-tokens.md\n010 ` +
          `→ ${KNOWLEDGE}/010-refresh-tokens.md`,
      );
      expect(w.read(`${KNOWLEDGE}/020-token-format.md`)).toBe(SPECS['020']);
      expect(w.read(`${KNOWLEDGE}/030-verify-tokens.md`)).toBe(
        '# Verify tokens\n\nMiddleware that rejects bad tokens.\n\nDepends on [020 Token ' +
          'format](020-token-format.md)\n',
      );
      expect(w.yaml(taskState('010')).metadata.published).toEqual({
        file: `${KNOWLEDGE}/010-refresh-tokens.md`,
        at: '2026-12-02T12:00:00.000Z',
      });
      expect((await typeCommand(ctx, ['breakdown', 'publish', '--to', 'files'])).message).toContain(
        'nothing to publish',
      );
      expect(await advanceProject(ctx, undefined, false)).toMatchObject({ to: 'Completed', projectRemoved: true });
      const entry = parse(w.read('.sow/knowledge/index.yaml')).entries[0];
      expect(entry).toMatchObject({ type: 'breakdown', name: 'auth', date: '2026-12-02' });
      expect(entry.units[1]).toEqual({
        id: '020',
        title: 'Token format',
        file: `${KNOWLEDGE}/020-token-format.md`,
        depends_on: [],
      });
    },
  );

  it(
    'a spec changed since the human approved it is not published (exit 3, ' + 'nothing written); approved again, it is',
    async () => {
      const w = await publishing();
      const ctx = w.ctx();
      w.write('.sow/project/units/020.md', '# Token format\n\nHS256, 15 minutes, and no expiry for admins.\n');
      const e = await refused(w, () => typeCommand(ctx, ['breakdown', 'publish', '--to', 'files']), 'SPEC_CHANGED', 3);
      expect(said(e)).toBe(
        "the spec of unit 020 ('.sow/project/units/020.md') changed since the human approved it\nhave the human read " +
          "it again and approve it again ('sow task output set --id 020 --index 0 approved true'), then publish",
      );
      await setArtifact(ctx, { kind: 'task', id: '020' }, 'outputs', 0, 'approved', 'true');
      await typeCommand(ctx, ['breakdown', 'publish', '--to', 'files']);
      expect(w.read(`${KNOWLEDGE}/020-token-format.md`)).toBe(
        '# Token format\n\nHS256, 15 minutes, and no expiry for admins.\n',
      );
    },
  );

  it(
    'a spec that leads out of the repository (a link, .git/, ' + '..) is never published, as an issue body or a file',
    async () => {
      const outside = mkdtempSync(join(tmpdir(), 'sow-outside-'));
      temps.push(outside);
      writeFileSync(join(outside, 'secret'), 'token=hunter2\n');
      const cases: [string, (w: World) => void, string, RegExp][] = [
        [
          'a spec file linked out',
          (w) => {
            rmSync(join(w.dir, '.sow/project/units/020.md'));
            symlinkSync(join(outside, 'secret'), join(w.dir, '.sow/project/units/020.md'));
          },
          'PATH_ESCAPES',
          /is a link to '.*secret', outside the repository/,
        ],
        [
          'a spec path into .git/',
          (w) => {
            w.write(
              taskState('020'),
              w.read(taskState('020')).replace('path: units/020.md', 'path: ../../.git/config'),
            );
          },
          'PATH_ESCAPES',
          /lies in \.git\//,
        ],
        [
          'a spec path out of the repository',
          (w) => {
            w.write(
              taskState('020'),
              w.read(taskState('020')).replace('path: units/020.md', 'path: ../../../../../../../../etc/passwd'),
            );
          },
          'STATE_FILE_INVALID',
          /must be a path inside the repository/,
        ],
      ];
      for (const [what, make, code, problem] of cases) {
        const w = await publishing();
        make(w);
        for (const to of ['github', 'files']) {
          const text = said(
            await refused(w, () => typeCommand(w.ctx(), ['breakdown', 'publish', '--to', to]), code, 4),
          );
          expect(text, `${what}, --to ${to}`).toMatch(problem);
        }
        expect(w.exists(KNOWLEDGE), `${what}: no file published`).toBe(false);
      }
      expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('token=hunter2\n');
    },
  );
});
