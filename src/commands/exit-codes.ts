/** `sow exit-codes` (also `sow help exit-codes`): the exit code table and the rule for 1, 2 and 3. */
import { EXIT_MEANINGS, EXIT_RULE } from '../cli/help-topics.js';
import { EXIT_CODES } from '../domain/errors.js';
import { command } from '../model/def.js';

export const exitCodes = command({
  name: 'exit-codes',
  description: 'Explain the exit codes (also: sow help exit-codes)',
  writes: false,
  async run() {
    const rows = (Object.keys(EXIT_CODES) as (keyof typeof EXIT_CODES)[]).map((k) => ({
      code: EXIT_CODES[k],
      kind: k,
      meaning: EXIT_MEANINGS[k],
    }));
    return {
      data: rows,
      text: `${rows.map((r) => `${String(r.code).padStart(3)}  ${r.meaning}`).join('\n')}\n${EXIT_RULE}`,
    };
  },
});
