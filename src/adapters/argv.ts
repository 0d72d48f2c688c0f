/** Values never become options (a branch named `--upload-pack=<cmd>` would run it): `argvOf` lets a value land only
 * after `--`, as `--name=value`, or not starting with `-`; argv.test.ts checks every git and gh call in src/. */
import { SowError, type ErrorKind } from '../domain/errors.js';

/** Where a value came from: a state or index file (exit 4), the user (exit 1), a remote (exit 5). */
export type ValueOrigin = 'file' | 'user' | 'remote';

const KIND: Record<ValueOrigin, ErrorKind> = { file: 'state', user: 'failed', remote: 'external' };

/** A value in an argv, never an option (made by `val`); `what` names it in a refusal: "the project's branch". */
export type ArgValue = { readonly text: string; readonly what: string; readonly origin: ValueOrigin };

/** One element of an argv: sow's own literal word, or a value. */
export type Arg = string | ArgValue;

export const val = (text: string, what: string, origin: ValueOrigin = 'file'): ArgValue => ({ text, what, origin });

/** `--name=value`: the value joined to its option, so it is that option's value whatever it starts with. */
export const opt = (name: `--${string}`, value: string): string => `${name}=${value}`;

/** A value that would have been read as an option; nothing was run. */
export class OptionLikeValueError extends SowError {
  constructor(tool: string, v: ArgValue) {
    super(
      'VALUE_LOOKS_LIKE_OPTION',
      KIND[v.origin],
      `${v.what} '${v.text}' begins with '-', so ${tool} would read it as an option; sow did not run ${tool}`,
      v.origin === 'file'
        ? 'correct the value where it is written; if it came with the repository, whoever wrote it may have meant it ' +
            'to run a command'
        : "use a name that does not begin with '-'",
      { value: v.text, what: v.what },
    );
  }
}

/** The argv for `tool`: each value checked to stand after `--` or not to begin with `-`. */
export function argvOf(tool: 'git' | 'gh', args: readonly Arg[]): string[] {
  let optionsEnded = false;
  return args.map((a) => {
    if (typeof a === 'string') {
      if (a === '--') optionsEnded = true;
      return a;
    }
    if (!optionsEnded && a.text.startsWith('-')) throw new OptionLikeValueError(tool, a);
    return a.text;
  });
}
