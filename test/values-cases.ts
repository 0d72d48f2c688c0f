/**
 * Values as a person writes them, shared by the in-process and end-to-end tests of values kept as
 * written (src/app/values-as-written.test.ts, test/e2e/values-as-written.test.ts): hand-written
 * metadata of every kind a YAML file holds, the hand edit of task 010 that carries it, and YAML
 * built to exhaust a reader.
 */

/** The task file of task 010 (the harnesses' taskFile('010')). */
const TASK_010 = '.sow/project/phases/implementation/tasks/010/state.yaml';

/** Free-form metadata as a person might write it: every kind of value a YAML file can hold. */
export const METADATA = `metadata:
  # written by hand
  big: 9999999999999999
  bigger: 12345678901234567890
  oct: 007
  octal: 0o17
  hex: 0x1F
  exp: 1e3
  float: 3.14159265358979323846
  inf: .inf
  ninf: -.inf
  nan: .nan
  tilde: ~
  yes_string: yes
  set: !!set {a, b}
  omap: !!omap [a: 1, b: 2]
  binary: !!binary aGVsbG8=
  custom: !mytag foo
  anchor: &A {x: 1, y: [1, 2]}
  alias: *A
  flow: {a: 1, b: "two"}   # a flow map
  seq: [1, 2, 3]
  literal: |
    line one
    line two
  folded: >-
    folded
    text
  quoted: "tab\\there \\u00e9"
  single: 'it''s'
`;

/** Values of METADATA as they read back (the CLI's JSON adds `.inf`, `-.inf` and `.nan` as strings). */
export const METADATA_READ = {
  oct: 7,
  octal: 15,
  hex: 31,
  exp: 1000,
  tilde: null,
  yes_string: 'yes',
  set: ['a', 'b'],
  omap: { a: 1, b: 2 },
  binary: 'aGVsbG8=',
  custom: 'foo',
  alias: { x: 1, y: [1, 2] },
  literal: 'line one\nline two\n',
  folded: 'folded text',
};

/** Task 010's file, hand-edited: a comment, other quoting and spacing, and the metadata above. */
export function handEditTask(repo: { read(rel: string): string; write(rel: string, text: string): void }): string {
  const text = repo
    .read(TASK_010)
    .replace(/^name: .*$/m, "name: 'First task'   # what we agreed")
    .replace(/^metadata: \{\}\n/m, METADATA);
  const edited = `# Task 010, edited by hand\n${text}`;
  repo.write(TASK_010, edited);
  return edited;
}

/** `text` with its `updated_at:` lines (any indentation) replaced by those of `like`, in order. */
export function withTimesOf(text: string, like: string): string {
  const times = [...like.matchAll(/^(\s*)updated_at: .*$/gm)].map((m) => m[0]);
  let i = 0;
  return text.replace(/^(\s*)updated_at: .*$/gm, (line) => times[i++] ?? line);
}

/** YAML that would exhaust a reader: each refused at once with exit 4. */
export const EXHAUSTING: { name: string; yaml: string; message: RegExp }[] = [
  {
    name: 'an alias bomb (billion laughs)',
    yaml: [
      'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]',
      ...Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`),
    ].join('\n'),
    message: /aliases \(\*name\) that would repeat their anchors' values more than 100 times/,
  },
  {
    name: 'a flow collection 100,000 levels deep',
    yaml: `deep: ${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    message: /nests collections more than 100 levels deep/,
  },
  {
    name: 'a list 20,000 levels deep',
    yaml: `deep:\n  ${'- '.repeat(20_000)}x`,
    message: /nests collections more than 100 levels deep/,
  },
  {
    name: 'an alias inside its own anchor',
    yaml: 'loop: &l [1, *l]',
    message: /alias \*l \(line \d+, column \d+\) inside the value its anchor names/,
  },
];
