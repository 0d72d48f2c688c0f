import { describe, expect, it } from 'vitest';
import {
  addToJson,
  claimedAddition,
  removeFromJson,
  SECTION_END,
  sectionOf,
  withoutSection,
  withSection,
} from './integrations.js';

const ADD = {
  hooks: { SessionStart: ['sow project continue'], Stop: ['sow hook stop'] },
  mcpServers: { sow: { command: 'sow', args: ['mcp'] } },
};

describe('JSON merging, as text', () => {
  const roundTrip = (text: string) => {
    const edit = addToJson(text, ADD, 's.json');
    return { edit, back: removeFromJson(edit.text, edit.added, edit.made) };
  };

  it("adds sow's hooks and server once, and takes out exactly them, every other byte kept", () => {
    const user = {
      model: 'x',
      hooks: { SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo hi' }] }] },
      mcpServers: { db: { command: 'db' } },
    };
    const text = `${JSON.stringify(user, null, 4)}`;
    const { edit, back } = roundTrip(text);
    const merged = JSON.parse(edit.text);
    expect(merged.hooks.SessionStart).toHaveLength(2);
    expect(merged.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'sow hook stop' }] }]);
    expect(merged.mcpServers).toEqual({ db: { command: 'db' }, sow: { command: 'sow', args: ['mcp'] } });
    expect(edit.made).toEqual(['hooks.Stop']);
    expect(addToJson(edit.text, ADD, 's.json').text).toBe(edit.text);
    expect(back).toBe(text);
  });

  for (const [name, text] of [
    ['empty object', '{}'],
    ['empty object over lines', '{\n}\n'],
    ['one line, no spaces', '{"model":"x","hooks":{"Stop":[]}}'],
    ['one line, spaced', '{ "model": "x", "hooks": { "Stop": [ ] } }\n'],
    [
      'tabs and CRLF',
      '{\r\n\t"hooks": {\r\n\t\t"PreToolUse": [\r\n' +
        '\t\t\t{"hooks": [{"type": "command", "command": "lint"}]}\r\n\t\t]\r\n\t},\r\n\t"z": 1\r\n}',
    ],
    [
      'keys out of order, duplicates',
      '{"z":1,"hooks":{},"a":2,"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}',
    ],
  ] as const) {
    it(`gives back the person's bytes: ${name}`, () => {
      const { edit, back } = roundTrip(text);
      const merged = JSON.parse(edit.text);
      expect(merged.hooks.SessionStart[merged.hooks.SessionStart.length - 1]).toEqual({
        hooks: [{ type: 'command', command: 'sow project continue' }],
      });
      expect(merged.mcpServers.sow).toEqual({ command: 'sow', args: ['mcp'] });
      expect(back).toBe(text);
    });
  }

  it('lays out what it adds like the entries beside it', () => {
    const text = '{\n    "hooks": {\n        "Stop": [\n            {"hooks": []}\n        ]\n    }\n}\n';
    const edit = addToJson(text, { hooks: { Stop: ['sow hook stop'] } }, 's.json');
    expect(edit.text).toBe(
      '{\n    "hooks": {\n        "Stop": [\n            {"hooks": []},\n            {\n                "hooks": ' +
        '[\n                    {\n                        "type": "command",\n                        "command": ' +
        '"sow hook stop"\n                    }\n                ]\n            }\n        ]\n    }\n}\n',
    );
  });

  it('takes out only groups exactly as sow writes them, and only keys it made', () => {
    const mine = { hooks: [{ type: 'command', command: 'sow hook stop' }] };
    const theirs = { matcher: 'x', hooks: [{ type: 'command', command: 'sow hook stop' }] };
    const text = JSON.stringify({
      hooks: { Stop: [theirs, mine], SessionStart: [] },
      mcpServers: { sow: { command: 'sow', args: ['mcp', '--x'] } },
    });
    const out = JSON.parse(
      removeFromJson(
        text,
        {
          hooks: { Stop: ['sow hook stop'], SessionStart: ['sow project continue'] },
          mcpServers: { sow: { command: 'sow', args: ['mcp'] } },
        },
        ['hooks', 'hooks.SessionStart', 'mcpServers'],
      ),
    );
    expect(out).toEqual({ hooks: { Stop: [theirs] }, mcpServers: { sow: { command: 'sow', args: ['mcp', '--x'] } } });
  });

  it("leaves a server of sow's name that the person set up, and refuses keys that hold something else", () => {
    const text = '{"mcpServers":{"sow":{"command":"my-sow"}}}';
    expect(addToJson(text, ADD, 's.json').text).toContain('"sow":{"command":"my-sow"}}');
    expect(addToJson(text, ADD, 's.json').added.mcpServers).toBeUndefined();
    expect(() => addToJson('{"hooks": []}', ADD, 's.json')).toThrow("'hooks' is not a map");
    expect(() => addToJson('{"hooks": {"Stop": {}}}', ADD, 's.json')).toThrow("'hooks.Stop' is not a list");
  });

  it('a record claims only what the plan adds', () => {
    const claim = {
      hooks: { Stop: ['sow hook stop', 'rm -rf /'], PreToolUse: ['echo checked'] },
      mcpServers: { db: {}, sow: { command: 'evil' } },
    };
    expect(claimedAddition(claim, ADD)).toEqual({
      hooks: { Stop: ['sow hook stop'] },
      mcpServers: { sow: { command: 'sow', args: ['mcp'] } },
    });
    expect(claimedAddition('nonsense', ADD)).toEqual({});
  });
});

describe('managed sections', () => {
  it('appends, replaces in place and removes, leaving the rest byte for byte', () => {
    const text = '# Notes\n\nKeep this.\n';
    const once = withSection(text, 'A');
    expect(sectionOf(once)).toBe('A');
    expect(once.startsWith(`${text}\n`)).toBe(true);
    const tail = `${once}\n## After\n`;
    const twice = withSection(tail, 'B');
    expect(sectionOf(twice)).toBe('B');
    expect(twice.endsWith(`${SECTION_END}\n\n## After\n`)).toBe(true);
    expect(withoutSection(once)).toBe(text);
    expect(withoutSection(withSection('', 'A'))).toBe('');
    expect(sectionOf(text)).toBeUndefined();
    for (const t of ['no newline at the end', 'two newlines\n\n', '\n', ' ', 'crlf\r\n'])
      expect(withoutSection(withSection(t, 'A')), JSON.stringify(t)).toBe(t);
  });
});
