/** The checks a repository declares, picked by name. */
import { errorClass } from './errors.js';
import { REPO_CONFIG, type Check } from './config-schemas.js';
import { nearMiss } from './suggest.js';

export class UnknownCheckError extends errorClass(
  'CHECK_NOT_FOUND',
  'failed',
  (name: string, known: readonly string[]) => {
    const suggestion = nearMiss(name, known);
    return [
      known.length === 0
        ? `no check named '${name}': ${REPO_CONFIG} declares no checks`
        : `no check named '${name}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
      known.length === 0
        ? `declare it in ${REPO_CONFIG} ('sow check list' shows an example)`
        : `the declared checks: ${known.join(', ')}`,
      { check: name, known: [...known], ...(suggestion ? { suggestion } : {}) },
    ];
  },
) {}

/** The declared checks named (each once, in the order given), or all of them when none is named. */
export function selectChecks(declared: readonly Check[], names: readonly string[]): Check[] {
  if (names.length === 0) return [...declared];
  const known = declared.map((c) => c.name);
  return [...new Set(names)].map((name) => {
    const check = declared.find((c) => c.name === name);
    if (!check) throw new UnknownCheckError(name, known);
    return check;
  });
}
