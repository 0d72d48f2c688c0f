/**
 * Whether the command line only asks for sow's version (`sow --version`, `sow -V --json`): no
 * command word, no help, nothing after `--`. Such a run needs no command at all, and building
 * the whole command tree for it cost more than everything else it does.
 */
export function versionOnly(words: readonly string[]): boolean {
  if (words.includes('--') || words.includes('--help') || words.includes('-h')) return false;
  return words.every((w) => w.startsWith('-')) && (words.includes('--version') || words.includes('-V'));
}
