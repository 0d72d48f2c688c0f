/**
 * Names that reach git, checked without git (so no value read from a file reaches it as an option or another
 * refspec).
 */

/**
 * A git remote's name as sow accepts it: letters, digits, `.`, `_`, `-`, in parts joined by `/`;
 * never beginning with `-` (git would read it as an option), never `..` (git refuses it in refs).
 */
const REMOTE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
export const isRemoteName = (name: string): boolean =>
  name.length <= 100 && REMOTE_NAME.test(name) && !name.includes('..') && !name.endsWith('.lock');

/**
 * Whether a branch name can stand in a claim ref: git's rules for ref names (check-ref-format),
 * checked without git. The project's branch comes from its state file, and a name with `:` in it
 * would make another refspec of the ref.
 */
export const isRefBranch = (branch: string): boolean =>
  branch.length > 0 &&
  branch.length <= 250 &&
  !/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|^[-/.]|\/\.|[/.]$|\.lock(\/|$)/.test(branch);
