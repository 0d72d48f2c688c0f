import type { Command } from 'commander';
import { EXIT_CODES } from '../domain/errors.js';
import { respond } from './output.js';

const EXIT_MEANINGS: Record<keyof typeof EXIT_CODES, string> = {
  ok: 'success (an empty list too)',
  failed: 'the operation failed: not found, invalid value, conflict',
  usage: 'usage error: unknown command, bad flag or argument',
  blocked: "'sow advance' was blocked by a guard; nothing was written",
  state: 'a state file or your configuration is unreadable or invalid (a typo, an unknown key, an executor that does not exist); nothing was changed',
  external: 'an external tool (git, gh, an agent CLI) is missing or failed',
  internal: 'internal error: a bug in sow',
  interrupted: 'interrupted (Ctrl-C)',
};

export default function register(program: Command): void {
  program
    .command('exit-codes')
    .description('Explain the exit codes (also: sow help exit-codes)')
    .action(() => {
      const rows = (Object.keys(EXIT_CODES) as (keyof typeof EXIT_CODES)[]).map((k) => ({ code: EXIT_CODES[k], kind: k, meaning: EXIT_MEANINGS[k] }));
      respond({ data: rows, text: rows.map((r) => `${String(r.code).padStart(3)}  ${r.meaning}`).join('\n') });
    });
}
