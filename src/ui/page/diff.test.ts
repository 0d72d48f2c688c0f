import { describe, expect, it } from 'vitest';
import { DIFF } from './diff.js';

const { parsePatch, tokens, reviewText } = new Function(`${DIFF}\nreturn { parsePatch, tokens, reviewText };`)() as {
  parsePatch: (p: string) => { header: string; lines: { kind: string; text: string; old?: number; new?: number }[] }[];
  tokens: (text: string, lang: string) => [string, string][];
  reviewText: (
    general: string,
    comments: Map<string, { file: string; line: number; side: string; code: string; text: string }>,
  ) => string;
};

describe("the page's diffs", () => {
  it("a file's patch: hunks, each line with its kind and its number on each side", () => {
    const hunks = parsePatch(
      'diff --git a/a b/a\nindex 1..2 100644\n--- a/a\n+++ b/a\n@@ -1,3 +1,3 @@ fn\n one\n-two\n+TWO\n three\n\\ ' +
        'No newline at end of file\n@@ -10 +10,2 @@\n ten\n+eleven',
    );
    expect(hunks.map((h) => h.header)).toEqual(['@@ -1,3 +1,3 @@ fn', '@@ -10 +10,2 @@']);
    expect(hunks[0]!.lines).toEqual([
      { kind: 'ctx', text: 'one', old: 1, new: 1 },
      { kind: 'del', text: 'two', old: 2 },
      { kind: 'add', text: 'TWO', new: 2 },
      { kind: 'ctx', text: 'three', old: 3, new: 3 },
      { kind: 'note', text: 'No newline at end of file' },
    ]);
    expect(hunks[1]!.lines).toEqual([
      { kind: 'ctx', text: 'ten', old: 10, new: 10 },
      { kind: 'add', text: 'eleven', new: 11 },
    ]);
    // Lines before the first hunk (its headers; "+++" among them) are no lines of the file.
    expect(parsePatch('diff --git a/x b/x\n--- /dev/null\n+++ b/x')).toEqual([]);
  });

  it('code is highlighted by token, and the pieces are the line again', () => {
    const line = 'const s = "a // b"; // note 42';
    const t = tokens(line, 'js');
    expect(t.map(([, x]) => x).join('')).toBe(line);
    expect(t.filter(([c]) => c)).toEqual([
      ['k', 'const'],
      ['s', '"a // b"'],
      ['c', '// note 42'],
    ]);
    expect(tokens('x = 1 # one', 'py').filter(([c]) => c)).toEqual([
      ['n', '1'],
      ['c', '# one'],
    ]);
    expect(
      tokens('color: #fff', 'css')
        .map(([, x]) => x)
        .join(''),
    ).toBe('color: #fff');
  });

  it("the review's feedback: the general words, then each comment with its file, line and code", () => {
    const comments = new Map([
      ['k', { file: 'src/a.ts', line: 12, side: 'new', code: '  return x;', text: 'Name it.' }],
    ]);
    expect(reviewText(' Nearly. ', comments)).toBe('Nearly.\n\nsrc/a.ts, line 12:\n> return x;\nName it.');
    expect(reviewText('', new Map())).toBe('');
  });
});
