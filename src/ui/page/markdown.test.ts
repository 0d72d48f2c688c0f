import { describe, expect, it } from 'vitest';
import { MARKDOWN } from './markdown.js';

type Node = string | [string, Record<string, string>, ...Node[]];
// The page's script, run in Node: mdParse and logEntries read no DOM.
const { mdParse, logEntries } = new Function(`${MARKDOWN}\nreturn { mdParse, logEntries };`)() as {
  mdParse: (text: string) => Node[];
  logEntries: (text: string) => { fields: Record<string, unknown>; body: string }[];
};

/** The tags a tree holds, depth first. */
const tags = (nodes: Node[]): string[] =>
  nodes.flatMap((n) => (typeof n === 'string' ? [] : [n[0], ...tags(n.slice(2) as Node[])]));
const text = (nodes: Node[]): string =>
  nodes.map((n) => (typeof n === 'string' ? n : text(n.slice(2) as Node[]))).join('');

describe("the page's markdown: a closed set of tags, text as text, links only to http(s)", () => {
  it('headings (two levels down), paragraphs, lists with nested items and task boxes, code, quotes, tables', () => {
    const doc = mdParse(
      '# Title\n\nSome *words* and **more**.\n\n- one\n  - nested\n- [x] done\n\n1. first\n2. ' +
        'second\n\n```js\nconst a = 1;\n```\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n',
    );
    expect(doc.map((n) => (n as string[])[0])).toEqual(['h3', 'p', 'ul', 'ol', 'pre', 'blockquote', 'table']);
    expect(tags([doc[2]!])).toEqual(['ul', 'li', 'ul', 'li', 'li', 'span']);
    expect(text([doc[4]!])).toBe('const a = 1;');
    expect(text([doc[6]!])).toBe('ab12');
  });

  it('HTML and comments in the text are never markup: HTML stays text, comments go', () => {
    const doc = mdParse('<script>alert(1)</script>\n\n<!-- a note to sow -->\n\n<img src=x onerror=alert(1)>');
    expect(tags(doc)).toEqual(['p', 'p']);
    expect(text(doc)).toBe('<script>alert(1)</script><img src=x onerror=alert(1)>');
  });

  it.each([
    ['[a](https://example.com/x)', 'https://example.com/x'],
    ['![pic](https://example.com/p.png)', 'https://example.com/p.png'],
    ['see https://example.com/y.', 'https://example.com/y'],
    ['[x](javascript:alert(1))', null],
    ['[x](JAVASCRIPT:alert(1))', null],
    ['[x](data:text/html,hi)', null],
    ['[x](/etc/passwd)', null],
  ])('%j: only an http(s) address is a link (%j), opened apart; any other is shown as text', (md, href) => {
    const nodes = (mdParse(md)[0] as Node[]).slice(2) as Node[];
    const links = nodes.filter((n) => typeof n !== 'string' && n[0] === 'a') as [string, Record<string, string>][];
    if (href === null) {
      expect(links).toEqual([]);
      expect(text(nodes)).toContain(`(${/\(([^)]*\)?)\)$/.exec(md)![1]})`);
    } else
      expect(links.map((l) => l[1])).toEqual([{ href, rel: 'noopener noreferrer', target: '_blank', title: href }]);
  });

  it('a link with words says where it goes; a bare one is its own words', () => {
    expect(text(mdParse('[the guide](https://example.com/guide)'))).toBe('the guide (example.com)');
    expect(text(mdParse('<https://example.com/a>'))).toBe('https://example.com/a');
  });

  it('inline code keeps what looks like markup; escapes are taken literally', () => {
    expect(mdParse('`**not bold**` \\*not em\\*')[0]).toEqual(['p', {}, ['code', {}, '**not bold**'], ' *not em*']);
  });

  it("a task's log: its entries, each with its fields and its words", () => {
    const log = logEntries(
      '# Task log: 010 First\n\n---\ntimestamp: "2026-12-07T11:04:17.734Z"\nagent: user\naction: ' +
        'started_task\nresult: success\nfiles:\n  - a.txt\n  - "b c.txt"\n---\n\nStarted\n\n---\ntimestamp: ' +
        '"2026-12-07T11:05:00.000Z"\nagent: implementer-1\naction: note\nresult: success\n---\n\nMore *words*\n',
    );
    expect(log).toEqual([
      {
        fields: {
          timestamp: '2026-12-07T11:04:17.734Z',
          agent: 'user',
          action: 'started_task',
          result: 'success',
          files: ['a.txt', 'b c.txt'],
        },
        body: 'Started',
      },
      {
        fields: { timestamp: '2026-12-07T11:05:00.000Z', agent: 'implementer-1', action: 'note', result: 'success' },
        body: 'More *words*',
      },
    ]);
    expect(logEntries('# Task log: 010 First\n')).toEqual([]);
  });

  it('a large document parses whole', () => {
    const big = Array.from(
      { length: 5000 },
      (_, i) => `- item ${i} with \`code\` and a [link](https://example.com/${i})`,
    ).join('\n');
    const doc = mdParse(big);
    expect((doc[0] as Node[]).length - 2).toBe(5000);
  });
});
