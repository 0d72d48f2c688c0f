// Every command warns of an invalid .sow/config.yaml or user config (a misspelt `bugdet:` would leave a project without
// its budget). Cheap: the verdict is kept beside the stamp of the file it judged (decisions 0009, 0069).
import { join } from 'node:path';
import type { AppContext } from './context.js';
import { SowError } from '../domain/errors.js';
import { fileStamp, sameStamp, stampMs, type FileStamp } from '../adapters/file-stamp.js';
import { readFileIfExists } from '../adapters/files.js';
import { quietly } from '../adapters/io-errors.js';
import { findWorkspaceRoot } from '../adapters/repo.js';
import { REPO_CONFIG } from '../domain/config-schemas.js';
import { readVerdicts, writeVerdicts, type Verdict } from '../adapters/config-verdicts.js';
import { userConfigPath } from '../adapters/user-config.js';

declare const SOW_VERSION: string;
/** A verdict holds for the sow that gave it: another may read the file differently. */
const VERSION = typeof SOW_VERSION === 'string' ? SOW_VERSION : 'dev';

/** Whether a stamp may be believed: its timestamps had settled when it was taken (the task index's rule). */
const SETTLE_MS = 2000;
const settled = (s: FileStamp, now: number) =>
  now - Math.max(stampMs(s.mtimeS, s.mtimeNs), stampMs(s.ctimeS, s.ctimeNs)) > SETTLE_MS;

/** What a strict read of a configuration file (as `agent spawn` and `check run` read it) finds wrong, if anything. */
async function judge(read: () => Promise<unknown>, budget: (message: string) => boolean): Promise<Verdict['problem']> {
  try {
    await read();
    return undefined;
  } catch (err) {
    if (!(err instanceof SowError) || err.code !== 'CONFIG_INVALID') throw err;
    return { message: err.message, budget: budget(err.message) };
  }
}

/** Whether the file sets a budget (a misspelt key is named in the message, with "did you mean 'budget'"). */
const mentionsBudget = (root: string) => /^budget\s*:/m.test(quietly(() => readFileIfExists(root, REPO_CONFIG)) ?? '');

const repoWarning = (p: NonNullable<Verdict['problem']>) =>
  `${p.message}; until it is fixed none of its settings is in ` +
  `force${p.budget ? ' (no budget limits the workers)' : ''} and workers and checks refuse to start; ` +
  `fix ${REPO_CONFIG} (its fields: 'sow schema repo-config')`;

const userWarning = (p: NonNullable<Verdict['problem']>) =>
  `${p.message}; until it is fixed workers refuse to start; fix it with 'sow config edit', check it with 'sow ` +
  `config validate'`;

type ConfigProblem = { file: string; warning: string };
/** The configuration files that are not valid, each with its warning. Never throws: no command fails for it. */
export async function configProblems(ctx: AppContext, now = Date.parse(ctx.now())): Promise<ConfigProblem[]> {
  const root = quietly(() => findWorkspaceRoot(ctx.cwd));
  if (root === undefined) return [];
  try {
    const userPath = userConfigPath(ctx.env);
    const files = [
      {
        key: 'repo',
        abs: join(root, REPO_CONFIG),
        file: REPO_CONFIG,
        read: async () => (await import('../adapters/repo-config.js')).readRepoConfig(root),
        budget: (m: string) => /\bbudget\b/.test(m) || mentionsBudget(root),
        warning: repoWarning,
      },
      {
        key: 'user',
        abs: userPath,
        file: userPath,
        read: async () => (await import('../adapters/user-config.js')).readUserConfig(userPath),
        budget: () => false,
        warning: userWarning,
      },
    ];
    const present = files.map((f) => ({ ...f, stamp: fileStamp(f.abs) })).filter((f) => f.stamp !== undefined);
    if (present.length === 0) return [];
    const kept = readVerdicts(root);
    // Only the files of this command are kept: another user's path would pile up otherwise.
    const cache = new Map<string, Verdict>();
    let changed = false;
    const out: ConfigProblem[] = [];
    for (const f of present) {
      const id = `${f.key}:${f.abs}`;
      const verdict = kept.get(id);
      let problem: Verdict['problem'];
      if (verdict?.version === VERSION && verdict.stamp && sameStamp(verdict.stamp, f.stamp!)) {
        problem = verdict.problem;
        cache.set(id, verdict);
      } else {
        problem = await judge(f.read, f.budget);
        // Kept only when the file had settled: an edit within the timestamps' granularity would hide.
        if (settled(f.stamp!, now)) {
          cache.set(id, { version: VERSION, stamp: f.stamp!, ...(problem ? { problem } : {}) });
          changed = true;
        }
      }
      if (problem) out.push({ file: f.file, warning: f.warning(problem) });
    }
    if (changed || kept.size !== cache.size) writeVerdicts(root, cache);
    return out;
  } catch {
    // Unreadable, a link where a file should be, a full disk: the commands that need the file say so.
    return [];
  }
}
