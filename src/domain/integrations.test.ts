import { describe, expect, it } from 'vitest';
import { mergeJson, parseTarget, SECTION_END, sectionOf, TARGETS, unmergeJson, withoutSection, withSection } from './integrations.js';

const ADD = { hooks: { SessionStart: ['sow project continue'], Stop: ['sow hook stop'] }, mcpServers: { sow: { command: 'sow', args: ['mcp'] } } };

describe('JSON merging', () => {
  it('adds sow\'s hooks and server once, and takes out exactly them', () => {
    const user = { model: 'x', hooks: { SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo hi' }] }] }, mcpServers: { db: { command: 'db' } } };
    const merged = mergeJson(user, ADD, 's.json');
    expect(mergeJson(merged, ADD, 's.json')).toEqual(merged);
    expect((merged['hooks'] as any).SessionStart).toHaveLength(2);
    expect(unmergeJson(merged, ADD)).toEqual(user);
    expect(unmergeJson(mergeJson({}, ADD, 's.json'), ADD)).toEqual({});
  });

  it('refuses keys that hold something else rather than overwrite them', () => {
    expect(() => mergeJson({ hooks: [] }, ADD, 's.json')).toThrow("'hooks' is not a map");
    expect(() => mergeJson({ hooks: { Stop: {} } }, ADD, 's.json')).toThrow("'hooks.Stop' is not a list");
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
  });
});

describe('targets', () => {
  it('all is every target; a mistake is a usage error', () => {
    expect(parseTarget('all')).toEqual([...TARGETS]);
    expect(() => parseTarget('vscode')).toThrow("unknown target 'vscode'");
  });
});
