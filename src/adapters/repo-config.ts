// `.sow/config.yaml`: settings committed with the repository (its checks). Read strictly: an unknown key ("did you
// mean") or a check name used twice is an error.
import { errorClass } from '../domain/errors.js';
import { check } from '../domain/schema-check.js';
import { REPO_CONFIG, RepoConfigSchema, type RepoConfig } from '../domain/config-schemas.js';
import { describeUnknownKey, findUnknownKey } from '../domain/strict-keys.js';
import { readFileIfExists } from './files.js';
import { parseStateText } from './state-files.js';
import { quoted } from '../domain/display.js';

export { REPO_CONFIG };

export class RepoConfigError extends errorClass('CONFIG_INVALID', 'state', (problem: string, field?: string) => [
  `${REPO_CONFIG}: ${field ? `${field}: ` : ''}${problem}`,
  `fix ${REPO_CONFIG} (its fields: 'sow schema repo-config')`,
  { file: REPO_CONFIG, ...(field ? { field } : {}) },
]) {}

/** 1 MiB: a configuration of a hundred checks takes a few KB; a larger file is not one a person keeps. */
const CONFIG_LIMITS = {
  max: 1024 * 1024,
  what: 'configuration files',
  why: 'a repository configuration takes a few KB',
};

export async function readRepoConfig(root: string): Promise<{ exists: boolean; config: RepoConfig }> {
  const text = readFileIfExists(root, REPO_CONFIG, CONFIG_LIMITS);
  if (text === undefined) return { exists: false, config: {} };
  let data: unknown;
  try {
    data = (await parseStateText(REPO_CONFIG, text)).data;
  } catch (err) {
    throw new RepoConfigError(err instanceof Error ? err.message.replace(`${REPO_CONFIG}: `, '') : String(err));
  }
  if (data === null || data === undefined) return { exists: true, config: {} };
  // A mistyped key first: `runn:` is better told as "did you mean 'run'" than as a missing run.
  const unknown = findUnknownKey(RepoConfigSchema, data);
  if (unknown) throw new RepoConfigError(describeUnknownKey(unknown), unknown.path);
  const valid = check(RepoConfigSchema, data);
  if (!valid.ok) throw new RepoConfigError(valid.issue.message, valid.issue.path);
  const names = (valid.value.checks ?? []).map((c) => c.name);
  const twice = names.findIndex((name, i) => names.indexOf(name) !== i);
  if (twice >= 0)
    throw new RepoConfigError(`the check name ${quoted(names[twice]!)} is used twice`, `checks.${twice}.name`);
  return { exists: true, config: valid.value };
}
