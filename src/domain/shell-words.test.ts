import { describe, expect, it } from 'vitest';
import { shellWords } from './shell-words.js';

const words = (command: string) => {
  const p = shellWords(command);
  return p.simple ? p.words.map((w) => w.value) : p.found;
};

describe('shellWords', () => {
  it('splits only on space, tab and newline, and removes quotes and escapes as sh does', () => {
    expect(words('sow task list')).toEqual(['sow', 'task', 'list']);
    expect(words('  sow\ttask   list  ')).toEqual(['sow', 'task', 'list']);
    expect(words(`sow log "fixed the \\"x\\" bug; see y"`)).toEqual(['sow', 'log', 'fixed the "x" bug; see y']);
    expect(words(`sow agent report --summary 'a | b'`)).toEqual(['sow', 'agent', 'report', '--summary', 'a | b']);
    expect(words(`sow x ';' y`)).toEqual(['sow', 'x', ';', 'y']);
    expect(words(`sow a\\ b 'c'"d"e`)).toEqual(['sow', 'a b', 'cde']);
    // In double quotes a backslash escapes only $ \` " \\ and a newline; elsewhere it stays.
    expect(words(`sow "a\\nb" "c\\\\d"`)).toEqual(['sow', 'a\\nb', 'c\\d']);
    expect(words(`sow log '$(id)' 'a;b|c>d'`)).toEqual(['sow', 'log', '$(id)', 'a;b|c>d']);
    expect(words(`sow log "café ☕" x=1`)).toEqual(['sow', 'log', 'café ☕', 'x=1']);
    expect(words(`sow ''`)).toEqual(['sow', '']);
  });

  it('keeps each word as written too, so a quoted or escaped command name is told apart', () => {
    const p = shellWords(`'sow' s\\ow "x"`);
    expect(p.simple && p.words.map((w) => [w.value, w.raw])).toEqual([
      ['sow', "'sow'"],
      ['sow', 's\\ow'],
      ['x', '"x"'],
    ]);
  });

  it('says what shell syntax it found', () => {
    const cases: [string, RegExp][] = [
      ['sow status; id', /operator ;/],
      ['sow status && id', /operator &&/],
      ['sow status || id', /operator \|\|/],
      ['sow status | sh', /operator \|/],
      ['sow status & id', /operator &/],
      ['(sow status)', /operator \(/],
      ['sow status > f', /redirection \(>\)/],
      ['sow status >> f', /redirection \(>>\)/],
      ['sow < f', /redirection \(<\)/],
      ['sow 2>&1', /redirection \(>&\)/],
      ['sow <<EOF', /redirection \(<<\)/],
      ['sow <(id)', /redirection \(<\(\)/],
      ['sow $(id)', /command substitution/],
      ['sow "$(id)"', /command substitution/],
      ['sow `id`', /command substitution/],
      ['sow "`id`"', /command substitution/],
      ['sow $((1+1))', /arithmetic/],
      ['sow$IFS-x', /parameter expansion \(\$I/],
      ['sow${IFS}x', /parameter expansion \(\$\{/],
      ['sow "$HOME"', /parameter expansion/],
      ["sow $'\\x41'", /bash's \$'…' quoting/],
      ['sow *', /glob \(\*\)/],
      ['sow a?', /glob \(\?\)/],
      ['sow [ab]', /glob \(\[\)/],
      ['sow {a,b}', /brace/],
      ['sow ~/x', /tilde/],
      ['sow x~', /tilde/],
      ['sow # comment', /comment/],
      ['# sow', /comment/],
      ['sow \\\nstatus', /line continuation/],
      ['sow "a\\\nb"', /line continuation/],
      ['sow x\\', /backslash at the end/],
      ['sow status\nid', /newline/],
      ['sow "unclosed', /unclosed quote/],
      ["sow 'unclosed", /unclosed quote/],
      ['A=1 sow', /assignment \(A=…\)/],
      ['PATH+=:/x sow', /assignment/],
      ['exec sow', /runs another command/],
      ['command sow', /runs another command/],
      ['env sow', /runs another command/],
      ['/usr/bin/env sow', /runs another command/],
      ['eval sow', /runs another command/],
      ['builtin sow', /runs another command/],
      ['nohup sow', /runs another command/],
      ['xargs sow', /runs another command/],
      ['time sow', /shell's own word 'time'/],
      ['! sow', /shell's own word '!'/],
      ['if sow', /shell's own word 'if'/],
      ['', /no command/],
      ['   ', /no command/],
    ];
    for (const [command, found] of cases)
      expect([command, words(command)]).toEqual([command, expect.stringMatching(found)]);
  });

  it('refuses control characters and invisible or Unicode spaces anywhere, even inside quotes', () => {
    const odd = [
      '\v',
      '\f',
      '\r',
      '\0',
      '\x1b',
      '\x7f',
      '\x85',
      '\u00a0',
      '\u1680',
      '\u2000',
      '\u2005',
      '\u200a',
      '\u200b',
      '\u2028',
      '\u202f',
      '\u205f',
      '\u3000',
      '\ufeff',
      '\u202e',
      '\ud800',
    ];
    for (const ch of odd) {
      expect([ch, words(`sow${ch}status`)]).toEqual([
        ch,
        expect.stringMatching(/control character|invisible or Unicode space/),
      ]);
      expect([ch, words(`sow log '${ch}'`)]).toEqual([
        ch,
        expect.stringMatching(/control character|invisible or Unicode space/),
      ]);
    }
  });
});
