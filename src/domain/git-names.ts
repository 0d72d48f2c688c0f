/** Names that reach git, checked without git, so no value from a file reaches it as an option or a refspec. */

/** A git remote's name as sow accepts it: never beginning with `-` (an option to git), never `..`. */
const REMOTE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
export const isRemoteName = (name: string): boolean =>
  name.length <= 100 && REMOTE_NAME.test(name) && !name.includes('..') && !name.endsWith('.lock');

/** Whether a branch name can stand in a claim ref (check-ref-format's rules; a `:` would make another refspec). */
export const isRefBranch = (branch: string): boolean =>
  branch.length > 0 &&
  branch.length <= 250 &&
  !/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|^[-/.]|\/\.|[/.]$|\.lock(\/|$)/.test(branch);
