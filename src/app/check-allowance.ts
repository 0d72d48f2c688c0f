/** Checks are commands whoever committed them wrote: they run only once the person allowed exactly those here, by
 * hash (SOW_ALLOW_CHECKS=1: all). A worker cannot allow or forget; that variable counts only if set at its start. */
import { pathWithin } from '../adapters/confine.js';
import { AbortedError, ConfirmationRequiredError, errorClass, UsageError } from '../domain/errors.js';
import { printable } from '../domain/display.js';
import type { Check } from '../domain/config-schemas.js';
import {
  allowedChecksDir,
  allowRecordPath,
  checkHash,
  readAllowRecord,
  writeAllowRecord,
  type AllowedCheck,
  type Env,
} from '../adapters/allowed-checks.js';
import { realPath } from '../adapters/files.js';
import { readRepoConfig, REPO_CONFIG } from '../adapters/repo-config.js';
import { traceWorker, type WorkerTrace } from '../adapters/worker-trace.js';
import { openRoot } from './workspace.js';
import type { AppContext } from './context.js';
import { selectChecks } from '../domain/checks.js';

export const ALLOW_VARIABLE = 'SOW_ALLOW_CHECKS';

/** What SOW_ALLOW_CHECKS says here: not set, allows, or set but not honoured (by a worker for itself). */
export type EnvAllowance = { kind: 'unset' } | { kind: 'allowed' } | { kind: 'ignored'; worker: WorkerTrace };

export function envAllowance(env: Env, trace: () => WorkerTrace | undefined = () => traceWorker(env)): EnvAllowance {
  const raw = env[ALLOW_VARIABLE];
  if (raw === undefined || raw === '' || raw === '0') return { kind: 'unset' };
  if (raw !== '1')
    throw new UsageError(
      `${ALLOW_VARIABLE}='${raw.slice(0, 20)}' is neither 1 nor 0`,
      `set ${ALLOW_VARIABLE}=1 to let every declared check run without 'sow check allow' (for CI), or unset it`,
    );
  const worker = trace();
  if (!worker) return { kind: 'allowed' };
  // Honoured only when the outermost worker process already carried it: given by whoever started it, not by the worker.
  const origin = worker.outermost;
  if (origin && origin.pid !== process.pid && origin.allowChecks === '1') return { kind: 'allowed' };
  return { kind: 'ignored', worker };
}

/** Where a worker was seen, for messages: `SOW_AGENT_ID in process 4242 (claude)`. */
const whereWorker = (w: WorkerTrace) =>
  `${w.nearest.variable} ` +
  (w.nearest.pid === process.pid
    ? 'in its own environment'
    : `in process ${w.nearest.pid} (${printable(w.nearest.command)})`);
const workerDetails = ({ nearest: n }: WorkerTrace) => ({ pid: n.pid, command: n.command, variable: n.variable });

/** A check that may not run yet, as the refusal shows it. */
export interface UnallowedCheck {
  name: string;
  run: string;
  /** The command allowed under this name before, when it changed since. */
  previously?: string;
}

const listing = (checks: readonly UnallowedCheck[]) =>
  checks
    .map((c) => {
      const changed = c.previously !== undefined ? `\n    (changed; you allowed: ${printable(c.previously)})` : '';
      return `  ${c.name}: ${printable(c.run)}${changed}`;
    })
    .join('\n');

export class ChecksNotAllowedError extends errorClass(
  'CHECKS_NOT_ALLOWED',
  'failed',
  (
    what: string,
    checks: readonly UnallowedCheck[],
    ctx: { repository: string; record: string; env: EnvAllowance; worker: WorkerTrace | undefined },
  ) => {
    const these = checks.length === 1 ? 'this command has' : `these ${checks.length} commands have`;
    return [
      `${what}; ${these} not been allowed to run on this machine:\n${listing(checks)}` +
        (ctx.env.kind === 'ignored'
          ? `\n(${ALLOW_VARIABLE}=1 was not honoured: inside a worker it counts only when the worker was ` +
            `started with it)`
          : ''),
      ctx.worker
        ? `a worker cannot allow checks (this sow runs under one: ${whereWorker(ctx.worker)}); ask the person to ` +
          `review ${REPO_CONFIG} and run 'sow check allow'`
        : `read what ${checks.length === 1 ? 'it' : 'they'} would run; if you ` +
          `trust ${checks.length === 1 ? 'it' : 'them'}, run 'sow check allow' (an agent shows this to the person ` +
          `and lets them decide; CI can set ${ALLOW_VARIABLE}=1 instead)`,
      {
        checks: checks.map((c) => ({ ...c })),
        repository: ctx.repository,
        record: ctx.record,
        ...(ctx.worker ? { worker: workerDetails(ctx.worker) } : {}),
        ...(ctx.env.kind === 'ignored' ? { environment_ignored: true } : {}),
      },
    ];
  },
) {}

export class WorkerCannotAllowError extends errorClass(
  'WORKER_CANNOT_ALLOW',
  'failed',
  (action: string, worker: WorkerTrace) => [
    `${action} is for the person, and this sow runs under a worker sow spawned (${whereWorker(worker)}): a ` +
      `worker cannot widen its own rights`,
    `ask the person to review ${REPO_CONFIG} and run 'sow check allow' in a terminal of their own`,
    { worker: workerDetails(worker) },
  ],
) {}

export class NothingAllowedError extends errorClass(
  'CHECK_NOT_ALLOWED_HERE',
  'failed',
  (names: readonly string[], known: readonly string[]) => [
    `nothing is allowed under the name${names.length === 1 ? '' : 's'} ${names.map((n) => `'${n}'`).join(', ')} ` +
      `in this repository`,
    known.length
      ? `allowed here: ${known.join(', ')} ('sow check list' shows them)`
      : "nothing is allowed here; 'sow check list' shows the declared checks",
    { names: [...names], allowed: [...known] },
  ],
) {}

export class RecordInsideRepositoryError extends errorClass(
  'CHECKS_RECORD_IN_REPOSITORY',
  'failed',
  (dir: string, repository: string) => [
    `sow keeps which checks you allowed in ${dir}, which lies inside this repository (${repository}), where a ` +
      `commit or a worker's edit could change it`,
    `set XDG_STATE_HOME to a folder outside every repository; or, where the repository is trusted, ` +
      `set ${ALLOW_VARIABLE}=1`,
    { record: dir, repository },
  ],
) {}

/** The record of the repository (named by its real path), refused when it would lie inside the repository. */
function recordFor(root: string, env: Env): { repository: string; file: string } {
  const repository = realPath(root);
  const dir = allowedChecksDir(env);
  if (pathWithin(repository, realPath(dir)) !== undefined) throw new RecordInsideRepositoryError(dir, repository);
  return { repository, file: allowRecordPath(repository, env) };
}

export interface CheckStanding {
  check: Check;
  allowed: boolean;
  /** Not allowed, but another command was allowed under its name: that command. */
  previously?: string;
}

/** Each check against the record: allowed by its hash, else with the latest command allowed under its name before. */
function judged(recorded: readonly AllowedCheck[], checks: readonly Check[]): CheckStanding[] {
  const hashes = new Set(recorded.map((c) => c.sha256));
  return checks.map((check) => {
    if (hashes.has(checkHash(check))) return { check, allowed: true };
    const before = [...recorded].reverse().find((r) => r.name === check.name);
    return { check, allowed: false, ...(before ? { previously: before.run } : {}) };
  });
}

const unallowed = (checks: readonly CheckStanding[]): UnallowedCheck[] =>
  checks
    .filter((c) => !c.allowed)
    .map(({ check: { name, run }, previously: p }) => ({ name, run, ...(p !== undefined && { previously: p }) }));

/** Whether each check may run here, and what allowed them (`via`: the person's record, or SOW_ALLOW_CHECKS). Reads
 * the record only when SOW_ALLOW_CHECKS does not allow. */
export function standingsOf(root: string, checks: readonly Check[], env: Env) {
  const fromEnv: EnvAllowance = checks.length === 0 ? { kind: 'unset' } : envAllowance(env);
  const via = fromEnv.kind === 'allowed' ? ('environment' as const) : ('record' as const);
  if (checks.length === 0 || via === 'environment') {
    const repository = realPath(root);
    const all: CheckStanding[] = checks.map((check) => ({ check, allowed: true }));
    return { checks: all, via, repository, record: allowRecordPath(repository, env), env: fromEnv };
  }
  const { repository, file } = recordFor(root, env);
  return { checks: judged(readAllowRecord(file, repository), checks), via, repository, record: file, env: fromEnv };
}

/** Refuses (CHECKS_NOT_ALLOWED) unless every one of `checks` may run here; `what` starts the message. */
export function requireAllowed(root: string, checks: readonly Check[], what: string, env: Env): void {
  if (checks.length === 0) return;
  const standings = standingsOf(root, checks, env);
  const missing = unallowed(standings.checks);
  if (missing.length === 0) return;
  const worker = standings.env.kind === 'ignored' ? standings.env.worker : traceWorker(env);
  throw new ChecksNotAllowedError(what, missing, { ...standings, worker });
}

/** Refuses when a worker asks to change what the person allowed. */
function refuseWorker(action: string, env: Env): void {
  const worker = traceWorker(env);
  if (worker) throw new WorkerCannotAllowError(action, worker);
}

export interface AllowOptions {
  yes: boolean;
  interactive: boolean;
  confirm(question: string): Promise<boolean>;
  /** Shows the commands about to be allowed, before the question (stderr). */
  show(text: string): void;
}

/** What `sow check allow` shows before it asks. */
export function allowListing(root: string, checks: readonly UnallowedCheck[]): string {
  return (
    `sow would run ${checks.length === 1 ? 'this command' : `these ${checks.length} commands`} ` +
    `of ${REPO_CONFIG} in ${root}, as you, whenever ${checks.length === 1 ? 'it is' : 'they are'} ` +
    `needed:\n${listing(checks)}`
  );
}

/** `sow check allow [names…]`: shows the declared checks not yet allowed, asks (or --yes), and records exactly what
 * it showed. Refused inside a worker. */
export async function allowChecks(ctx: AppContext, names: readonly string[], opts: AllowOptions) {
  const env = ctx.env;
  const root = await openRoot(ctx);
  refuseWorker("'sow check allow'", env);
  const { repository, file } = recordFor(root, env);
  const { config } = await readRepoConfig(root);
  const chosen = selectChecks(config.checks ?? [], names);
  const standings = judged(readAllowRecord(file, repository), chosen);
  const toAllow = standings.filter((s) => !s.allowed).map((s) => s.check);
  // allowed: the checks allowed now; already: those asked for that were allowed before.
  const already = standings.filter((s) => s.allowed).map((s) => s.check.name);
  const result = { repository, record: file, allowed: toAllow.map(({ name, run }) => ({ name, run })), already };
  if (toAllow.length === 0) return result;
  opts.show(allowListing(root, unallowed(standings)));
  if (!opts.yes) {
    const these = toAllow.length === 1 ? 'this check' : 'these checks';
    if (!opts.interactive) throw new ConfirmationRequiredError(`allowing ${these} to run`, '--yes');
    if (!(await opts.confirm(`Allow ${toAllow.length === 1 ? 'it' : 'them'} to run here?`)))
      throw new AbortedError('check allow');
  }
  // Exactly what was shown is recorded, read again so that a record written meanwhile is kept.
  const at = ctx.now();
  const current = readAllowRecord(file, repository);
  const have = new Set(current.map((c) => c.sha256));
  const added: AllowedCheck[] = toAllow
    .filter((c) => !have.has(checkHash(c)))
    .map((c) => ({ name: c.name, run: c.run, sha256: checkHash(c), allowed_at: at }));
  writeAllowRecord(file, repository, [...current, ...added]);
  return result;
}

/** `sow check forget [names…]`: withdraws what was allowed here (all, or the checks named), whatever the config says
 * now. Refused inside a worker. */
export async function forgetChecks(ctx: AppContext, names: readonly string[]) {
  const env = ctx.env;
  const root = await openRoot(ctx);
  refuseWorker("'sow check forget'", env);
  const { repository, file } = recordFor(root, env);
  const allowed = readAllowRecord(file, repository);
  const unknown = names.filter((n) => !allowed.some((c) => c.name === n));
  if (unknown.length) {
    const known = [...new Set(allowed.map((c) => c.name))];
    throw new NothingAllowedError(unknown, known);
  }
  const kept = (c: AllowedCheck) => names.length > 0 && !names.includes(c.name);
  writeAllowRecord(file, repository, allowed.filter(kept));
  const forgotten = allowed.filter((c) => !kept(c)).map((c) => ({ name: c.name, run: c.run }));
  return { repository, record: file, forgotten };
}
