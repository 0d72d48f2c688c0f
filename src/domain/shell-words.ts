// A command line as a POSIX shell parses it, so what a worker may run is never judged by a regular expression. Strict:
// any operator, expansion, glob, assignment or invisible character makes it "not simple", saying what was found.

/** `value`: the word as the command receives it (quotes and escapes removed); `raw`: as written. */
export type ShellWord = { value: string; raw: string };

export type ShellParse = { simple: true; words: ShellWord[] } | { simple: false; found: string };

/** Words of the shell's own grammar when they begin a command (bash's too, and `[[`). */
const RESERVED = new Set(
  '! { } [[ ]] case coproc do done elif else esac fi for function if in select then time until while'.split(' '),
);

/** Builtins and programs whose arguments are another command: the first word of such a line is not what runs. */
const RUNNERS = new Set(
  (
    '. builtin busybox chroot command doas env eval exec flock ionice nice nohup runuser setsid source stdbuf strace ' +
    'su sudo time timeout trap unbuffer watch xargs sh bash dash zsh ksh fish'
  ).split(' '),
);

const hex = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

// The first character of `text` a person cannot see for what it is; a parsed command line leaves tab and newline to
// the parser.
function firstUnseen(text: string, parsed: boolean): string | undefined {
  for (const ch of text) {
    if (ch === ' ' || (parsed && (ch === '\t' || ch === '\n'))) continue;
    if (/\p{Cc}/u.test(ch)) return `a control character (${hex(ch)})`;
    if (/[\p{Z}\p{Cf}\p{Cs}]/u.test(ch))
      return `an invisible or Unicode space character (${hex(ch)}), which the shell does not split words on`;
  }
  return undefined;
}

/** The first character of `text` a person cannot see for what it is (tab and newline too), said. */
export const invisibleIn = (text: string): string | undefined => firstUnseen(text, false);

function dollar(s: string, i: number): string {
  const next = s[i + 1] ?? '';
  if (s.startsWith('$((', i)) return 'an arithmetic expansion ($((…)))';
  if (next === '(') return 'a command substitution ($(…))';
  if (next === '{') return 'a parameter expansion (${…})';
  if (next === "'") return "bash's $'…' quoting, which decodes escapes";
  if (next === '"') return 'bash\'s $"…" translation';
  if (/[A-Za-z0-9_@*#?!$-]/.test(next)) return `a parameter expansion ($${next}…)`;
  return 'a $, which the shell may expand';
}

const OPERATORS = '<<- && || ;; >> << <& >& <> >| &> |& <( >( ; & | < > ( )'.split(' ');

/** What the shell does with the unquoted character at `i` besides taking it as is, or undefined. */
function unquoted(s: string, i: number): string | undefined {
  const ch = s[i]!;
  if (ch === '$') return dollar(s, i);
  if (ch === '`') return 'a command substitution (`…`)';
  if (';&|<>()'.includes(ch)) {
    const op = OPERATORS.find((o) => s.startsWith(o, i))!;
    return op.includes('<') || op.includes('>') ? `a redirection (${op})` : `the operator ${op}`;
  }
  if ('*?['.includes(ch)) return `a glob (${ch}), which the shell expands to file names`;
  if ('{}'.includes(ch)) return `a brace (${ch}), which bash expands or reads as a group`;
  if (ch === '~') return 'a tilde (~), which the shell expands to a home folder';
  return undefined;
}

/** The words of `command`, and whether it is one simple command of literal words only (else what made it not). */
export function shellWords(command: string): ShellParse {
  const bad = (found: string): ShellParse => ({ simple: false, found });
  const unseen = firstUnseen(command, true);
  if (unseen) return bad(unseen);
  const words: ShellWord[] = [];
  let value = '';
  let start = -1;
  const end = (i: number) => {
    if (start < 0) return;
    words.push({ value, raw: command.slice(start, i) });
    value = '';
    start = -1;
  };
  for (let i = 0; i < command.length;) {
    const ch = command[i]!;
    if (ch === ' ' || ch === '\t') {
      end(i);
      i++;
      continue;
    }
    if (ch === '\n') return bad('a newline, which ends one command and starts another');
    if (start < 0) {
      start = i;
      if (ch === '#') return bad('a comment (#)');
    }
    switch (ch) {
      case "'": {
        const close = command.indexOf("'", i + 1);
        if (close < 0) return bad('an unclosed quote');
        value += command.slice(i + 1, close);
        i = close + 1;
        break;
      }
      case '"': {
        // Inside double quotes, `\` escapes only $ ` " \ and a newline; $ and ` still expand.
        for (i++; ;) {
          const c = command[i];
          if (c === undefined) return bad('an unclosed quote');
          if (c === '"') {
            i++;
            break;
          }
          if (c === '\\' && command[i + 1] === '\n') return bad('a line continuation (\\ and a newline)');
          if (c === '$') return bad(dollar(command, i));
          if (c === '`') return bad('a command substitution (`…`)');
          const escaped = c === '\\' && '$`"\\'.includes(command[i + 1] || '-');
          value += escaped ? command[i + 1]! : c;
          i += escaped ? 2 : 1;
        }
        break;
      }
      case '\\': {
        const next = command[i + 1];
        if (next === undefined) return bad('a backslash at the end');
        if (next === '\n') return bad('a line continuation (\\ and a newline)');
        value += next;
        i += 2;
        break;
      }
      default: {
        const found = unquoted(command, i);
        if (found) return bad(found);
        value += ch;
        i++;
      }
    }
  }
  end(command.length);
  if (!words.length) return bad('no command');
  const first = words[0]!;
  if (/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(first.raw))
    return bad(`an assignment (${first.raw.slice(0, first.raw.indexOf('=') + 1)}…) before the command`);
  if (RESERVED.has(first.raw)) return bad(`the shell's own word '${first.raw}'`);
  const name = first.value.slice(first.value.lastIndexOf('/') + 1);
  if (RUNNERS.has(name)) return bad(`'${first.value}', which runs another command`);
  return { simple: true, words };
}
