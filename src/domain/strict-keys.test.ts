import { describe, expect, it } from 'vitest';
import { RepoConfigSchema, UserConfigSchema } from './config-schemas.js';
import { describeUnknownKey, findUnknownKey } from './strict-keys.js';

describe('findUnknownKey', () => {
  it('finds a mistyped key at any depth, with the known key it is closest to', () => {
    expect(findUnknownKey(UserConfigSchema, { agents: { bindngs: {} } })).toMatchObject({
      path: 'agents.bindngs',
      suggestion: 'bindings',
    });
    expect(
      findUnknownKey(UserConfigSchema, {
        agents: { executors: { mine: { type: 'claude', settings: { yolo: true } } } },
      }),
    ).toMatchObject({
      path: 'agents.executors.mine.settings.yolo',
      key: 'yolo',
    });
    expect(findUnknownKey(RepoConfigSchema, { checks: [{ name: 'unit', run: 'npm test', timout: 5 }] })).toMatchObject({
      path: 'checks.0.timout',
      suggestion: 'timeout',
    });
    expect(findUnknownKey(UserConfigSchema, { agentz: {} })).toMatchObject({ path: 'agentz', suggestion: 'agents' });
  });

  it('passes what the schema knows, and leaves values of free-form maps alone', () => {
    expect(
      findUnknownKey(UserConfigSchema, {
        agents: {
          executors: { anything: { type: 'codex', settings: { model: 'x', permissions: 'safe' } } },
          bindings: { implementer: 'anything' },
        },
      }),
    ).toBeUndefined();
    expect(
      findUnknownKey(RepoConfigSchema, {
        checks: [{ name: 'unit', run: 'npm test', when: ['finalize'], timeout: 60 }],
      }),
    ).toBeUndefined();
    expect(findUnknownKey(RepoConfigSchema, null)).toBeUndefined();
  });

  it('says what is known where nothing is near', () => {
    const u = findUnknownKey(UserConfigSchema, { agents: { zzz: 1 } })!;
    expect(describeUnknownKey(u)).toBe("unknown key 'zzz' (known here: executors, bindings)");
    expect(describeUnknownKey(findUnknownKey(UserConfigSchema, { agents: { bindngs: {} } })!)).toBe(
      "unknown key 'bindngs'; did you mean 'bindings'?",
    );
  });
});
