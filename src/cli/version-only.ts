/** Whether the line only asks for the version (`sow --version`): then no command tree is built, the costliest part. */
export function versionOnly(words: readonly string[]): boolean {
  if (words.includes('--') || words.includes('--help') || words.includes('-h')) return false;
  return words.every((w) => w.startsWith('-')) && (words.includes('--version') || words.includes('-V'));
}
