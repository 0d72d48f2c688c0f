#!/usr/bin/env node
/**
 * sow's main job, end to end: a throw-away git repo walks one project (the specification's
 * "add-auth" example) through every state of the standard lifecycle with the built CLI, printing each command
 * and what it printed, as a person would see it in a terminal. A scripted "agent" writes real files.
 *
 *   npm run demo                         run it (the temp repo is removed at the end)
 *   npm run demo -- --type iterative     another project type: standard (the default), exploration,
 *                                        design, breakdown, iterative, or all (each in turn)
 *   npm run demo -- --keep               keep the temp repo and print its path
 *
 * SOW_DEMO_BIN runs another build than dist/sow.cjs (the tests use it).
 *
 * Every command's exit code is checked — expected failures (a blocked `sow advance`) included —
 * and so is the state each `sow advance` lands in. Exit 0 when all went as the script says,
 * 1 otherwise.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOW = process.env.SOW_DEMO_BIN || resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'sow.cjs');
const argv = process.argv.slice(2);
const KEEP = argv.includes('--keep');
const TYPES = ['standard', 'exploration', 'design', 'breakdown', 'iterative'];
let TYPE = 'standard';
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--help' || a === '-h') {
    process.stdout.write(`usage: node scripts/demo.mjs [--type ${[...TYPES, 'all'].join('|')}] [--keep]\n`);
    process.exit(0);
  }
  if (a === '--type' || a.startsWith('--type=')) {
    TYPE = a.includes('=') ? a.slice('--type='.length) : argv[++i];
    if (![...TYPES, 'all'].includes(TYPE)) {
      process.stderr.write(`demo: unknown type '${TYPE}' (types: ${[...TYPES, 'all'].join(', ')})\n`);
      process.exit(2);
    }
  } else if (a !== '--keep') {
    process.stderr.write(`demo: unknown option '${a}' (try --help)\n`);
    process.exit(2);
  }
}

// ---------------------------------------------------------------------------------------------
// Terminal output

const COLOUR = process.stdout.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
const paint = (code) => (s) => (COLOUR ? `\x1b[${code}m${s}\x1b[0m` : s);
const bold = paint('1');
const dim = paint('2');
const cyan = paint('36');
const green = paint('32');
const yellow = paint('33');
const red = paint('31');

const out = (s = '') => process.stdout.write(`${s}\n`);

let section = 0;
function heading(title) {
  section += 1;
  out();
  out(bold(`── ${section}. ${title} ${'─'.repeat(Math.max(3, 66 - title.length))}`));
  out();
}
const note = (s) => out(dim(`# ${s}`));

/** How a shell would show the argument. */
function quote(arg) {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `"${arg.replace(/(["\\$`])/g, '\\$1')}"`;
}

// ---------------------------------------------------------------------------------------------
// Running things

const CHILD_ENV = { ...process.env, NO_COLOR: '1', GIT_CONFIG_NOSYSTEM: '1' };
delete CHILD_ENV.FORCE_COLOR;
delete CHILD_ENV.SOW_DEBUG;
delete CHILD_ENV.SOW_ALLOW_CHECKS;
// Where sow records the checks the person allowed: the demo's own, not the invoking user's.
const STATE_HOME = realpathSync(mkdtempSync(join(tmpdir(), 'sow-demo-state-')));
CHILD_ENV.XDG_STATE_HOME = STATE_HOME;
process.on('exit', () => rmSync(STATE_HOME, { recursive: true, force: true }));

const started = performance.now();
let repo;
const stats = { sow: 0, expectedFailures: 0, git: 0, files: [] };
const softFailures = [];

class DemoFailure extends Error {}

/**
 * Runs one command in the repo, prints it and its output, and checks its exit code.
 * `soft` is for read-only commands: a failure is recorded and the demo goes on (nothing depends on
 * their output), and the demo still exits 1 at the end.
 */
function sh(display, file, args, { expect = 0, maxLines = Infinity, soft = false } = {}) {
  out(`${cyan('$')} ${bold(display)}`);
  const r = spawnSync(file, args, { cwd: repo, env: CHILD_ENV, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (r.error) throw new DemoFailure(`could not run ${display}: ${r.error.message}`);
  const printed = printOutput(r.stdout, maxLines) + printOutput(r.stderr, Infinity);
  const code = r.status ?? 128;
  if (code !== expect) {
    const message = `'${display}' exited ${code}${r.signal ? ` (${r.signal})` : ''}, expected ${expect}`;
    out(red(`✗ ${message}`));
    if (!soft) throw new DemoFailure(message);
    softFailures.push(message);
  } else if (code !== 0) {
    stats.expectedFailures += 1;
    out(yellow(`[exit ${code}${expect === 3 ? ' — blocked by a guard, as expected' : ', as expected'}]`));
  }
  if (printed > 0 || code !== 0) out();
  return { stdout: r.stdout, stderr: r.stderr, code };
}

/** Prints a stream's text as the terminal would (up to maxLines); returns how many lines. */
function printOutput(text, maxLines) {
  if (!text) return 0;
  const lines = text.replace(/\n$/, '').split('\n');
  for (const line of lines.slice(0, maxLines)) out(line);
  if (lines.length > maxLines) out(dim(`… (${lines.length - maxLines} more lines)`));
  return lines.length;
}

function sow(args, opts) {
  stats.sow += 1;
  return sh(`sow ${args.map(quote).join(' ')}`, process.execPath, [SOW, ...args], opts);
}

const GIT_IDENTITY = [
  '-c',
  'user.name=Demo Person',
  '-c',
  'user.email=demo@example.invalid',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'init.defaultBranch=main',
];
function git(args, opts) {
  stats.git += 1;
  return sh(`git ${args.map(quote).join(' ')}`, 'git', [...GIT_IDENTITY, ...args], opts);
}

/** `sow advance`, checking where it lands. */
function advance(to) {
  const r = sow(['advance']);
  const state = r.stdout.trim();
  if (state !== to) throw new DemoFailure(`'sow advance' moved to '${state}', expected '${to}'`);
  statesVisited.push(state);
  return r;
}
const statesVisited = [];

/** The agent (or person) writes a file; paths are relative to the repository. */
function write(rel, text, who = 'agent') {
  const abs = join(repo, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, text);
  stats.files.push(rel);
  const lines = text.split('\n').length - 1;
  note(`${who} writes ${rel} (${lines} line${lines === 1 ? '' : 's'})`);
}
/** A file under .sow/project/, where artifact paths point. */
const writeArtifact = (rel, text, who) => write(`.sow/project/${rel}`, text, who);

// ---------------------------------------------------------------------------------------------
// What the scripted agent writes

const FILES = {
  'discovery/jwt-research.md':
    '# JWT research\n\n- HS256 with a 32-byte secret from the environment (AUTH_SECRET).\n- Tokens carry `sub`, ' +
    '`iat`, `exp`; 15 minute lifetime.\n- Verification must check the signature in constant time and reject ' +
    'expired tokens.\n',
  'sinks/auth-patterns.md':
    '# Auth patterns in this codebase\n\n- Middleware lives in src/auth/, one export per file.\n- Errors are ' +
    '`AuthError` with an HTTP status.\n',
  'sinks/style-guide.md': '# Style guide\n\n- Named exports only.\n- No third-party crypto; use node:crypto.\n',
  'planning/tasks.md':
    '# add-auth: task list\n\n1. Implement JWT signing (src/auth/jwt.ts)\n2. Implement JWT verification ' +
    '(src/auth/verify.ts)\n3. Add auth middleware (src/auth/middleware.ts)\n',
};

const JWT_TS_V1 = `import { createHmac } from 'node:crypto';

const b64 = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export function sign(payload: Record<string, unknown>, secret: string): string {
  const head = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64(JSON.stringify(payload));
  const sig = createHmac('sha256', secret).update(\`\${head}.\${body}\`).digest('base64url');
  return \`\${head}.\${body}.\${sig}\`;
}
`;
const JWT_TS_V2 = `import { createHmac } from 'node:crypto';

export const TOKEN_LIFETIME_S = 15 * 60;
const b64 = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** Signs \`payload\` with HS256; \`iat\` and \`exp\` are added here so no caller forgets them. */
export function sign(payload: { sub: string } & Record<string, unknown>, secret: string, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const head = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64(JSON.stringify({ ...payload, iat, exp: iat + TOKEN_LIFETIME_S }));
  const sig = createHmac('sha256', secret).update(\`\${head}.\${body}\`).digest('base64url');
  return \`\${head}.\${body}.\${sig}\`;
}
`;
const VERIFY_TS = `import { createHmac, timingSafeEqual } from 'node:crypto';

export class AuthError extends Error {
  constructor(message: string, readonly status = 401) {
    super(message);
  }
}

export function verify(token: string, secret: string): Record<string, unknown> {
  const [head, body, sig] = token.split('.');
  if (!head || !body || !sig) throw new AuthError('malformed token');
  const expected = createHmac('sha256', secret).update(\`\${head}.\${body}\`).digest();
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new AuthError('bad signature');
  return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
}
`;
const VERIFY_TS_V2 = VERIFY_TS.replace(
  "  return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));\n",
  "  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));\n  if (typeof claims.exp !== " +
    "'number' || claims.exp * 1000 <= now) throw new AuthError('token expired');\n  return claims;\n",
).replace(
  'export function verify(token: string, secret: string)',
  'export function verify(token: string, secret: string, now = Date.now())',
);
const MIDDLEWARE_TS = `import { AuthError, verify } from './verify.js';

type Req = { headers: Record<string, string | undefined>; user?: unknown };
type Next = (err?: unknown) => void;

export function requireAuth(secret: string) {
  return (req: Req, _res: unknown, next: Next) => {
    const header = req.headers['authorization'] ?? '';
    if (!header.startsWith('Bearer ')) return next(new AuthError('missing bearer token'));
    try {
      req.user = verify(header.slice('Bearer '.length), secret);
      next();
    } catch (err) {
      next(err);
    }
  };
}
`;

// ---------------------------------------------------------------------------------------------
// The walk-through

function demo() {
  if (!existsSync(SOW)) throw new DemoFailure(`${SOW} is missing; run 'npm run build' first`);
  repo = realpathSync(mkdtempSync(join(tmpdir(), 'sow-demo-')));

  out(bold('sow demo — one project through the whole standard lifecycle'));
  note(`a fresh git repository in ${repo}`);
  note(`the CLI under test: ${SOW}`);

  heading('A repository to work in');
  git(['init', '-q']);
  write('README.md', '# api\n\nA small HTTP API.\n', 'person');
  write('src/server.ts', "export const routes = ['/health'];\n", 'person');
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Initial commit']);

  heading('Initialize sow and start the project');
  sow(['init']);
  note(
    "the person declares the repository's checks: sow runs them itself before a task is completed and before " +
      'finalizing',
  );
  write(
    '.sow/config.yaml',
    'checks:\n  - name: no-todo\n    run: "! grep -rn TODO src"\n    when: [task_complete, finalize]\n',
    'person',
  );
  sow(['check', 'list']);
  note('a check is a shell command: sow runs it only once the person has read it and allowed it on this machine');
  sow(['check', 'allow', '--yes']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Add sow']);
  const created = sow(['project', 'new', 'add-auth', '--description', 'Add JWT authentication to API']);
  statesVisited.push(created.stdout.trim());
  git(['branch', '--show-current']);
  note('the orchestrator agent asks sow what to do in this state (first 15 lines of the prompt):');
  sow(['project', 'continue'], { maxLines: 15, soft: true });

  heading('Planning (PlanningActive)');
  writeArtifact('discovery/jwt-research.md', FILES['discovery/jwt-research.md']);
  writeArtifact('sinks/auth-patterns.md', FILES['sinks/auth-patterns.md'], 'person');
  sow(['input', 'add', '--type', 'context', '--path', 'discovery/jwt-research.md']);
  sow(['input', 'add', '--type', 'context', '--path', 'sinks/auth-patterns.md']);
  writeArtifact('planning/tasks.md', FILES['planning/tasks.md']);
  sow(['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
  sow(['output', 'list']);
  note('the task list is not approved yet, so the guard holds the project here:');
  sow(['advance'], { expect: 3 });
  note('the person reads planning/tasks.md and approves it');
  sow(['output', 'set', '--index', '0', 'approved', 'true']);
  advance('ImplementationPlanning');

  heading('Implementation planning (ImplementationPlanning)');
  sow([
    'task',
    'add',
    'Implement JWT signing',
    '--agent',
    'implementer',
    '--description',
    'sign(payload, secret) in src/auth/jwt.ts, HS256 via node:crypto.',
  ]);
  sow([
    'task',
    'add',
    'Implement JWT verification',
    '--agent',
    'implementer',
    '--description',
    'verify(token, secret) in src/auth/verify.ts; constant-time signature check.',
  ]);
  sow([
    'task',
    'add',
    'Add auth middleware',
    '--agent',
    'implementer',
    '--depends-on',
    '020',
    '--description',
    'requireAuth(secret) in src/auth/middleware.ts, reading a Bearer token.',
  ]);
  sow(['task', 'list']);
  sow(['phase', 'set', 'tasks_approved', 'true']);
  advance('ImplementationExecuting');
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Plan add-auth: three tasks']);

  heading('Implementation (ImplementationExecuting)');
  note('the middleware needs verification first: sow will not start it yet');
  sow(['task', 'set', '--id', '030', 'status', 'in_progress'], { expect: 3 });
  note('task 010 — the agent starts, reads its references and writes code');
  sow(['task', 'set', '--id', '010', 'status', 'in_progress']);
  writeArtifact('sinks/style-guide.md', FILES['sinks/style-guide.md'], 'person');
  sow(['task', 'input', 'add', '--id', '010', '--type', 'reference', '--path', 'sinks/style-guide.md']);
  write('src/auth/jwt.ts', JWT_TS_V1);
  sow(['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/auth/jwt.ts']);
  note('the person reviews the code and leaves feedback');
  writeArtifact(
    'phases/implementation/tasks/010/feedback/001.md',
    '# Feedback 001\n\nTokens never expire: add `iat` and `exp` (15 minutes) when signing.\n',
    'person',
  );
  sow([
    'task',
    'input',
    'add',
    '--id',
    '010',
    '--type',
    'feedback',
    '--path',
    'phases/implementation/tasks/010/feedback/001.md',
  ]);
  sow(['task', 'input', 'list', '--id', '010']);
  note('pending feedback keeps the task from being completed');
  sow(['task', 'set', '--id', '010', 'status', 'completed'], { expect: 3 });
  note('the agent addresses the feedback and marks it');
  write('src/auth/jwt.ts', JWT_TS_V2);
  sow(['task', 'input', 'set', '--id', '010', '--index', '1', 'status', 'addressed']);
  sow(['task', 'set', '--id', '010', 'status', 'completed']);
  sow(['project', 'status'], { soft: true });

  note("task 020 — the agent logs its work; the files it names become the task's outputs");
  sow(['task', 'set', '--id', '020', 'status', 'in_progress']);
  write('src/auth/verify.ts', VERIFY_TS);
  sow([
    'log',
    '--agent',
    'implementer-1',
    '--task',
    '020',
    '--action',
    'created_file',
    '--result',
    'success',
    '--file',
    'src/auth/verify.ts',
    'verify() with a constant-time signature check',
  ]);
  sow(['task', 'output', 'list', '--id', '020']);
  sow(['task', 'set', '--id', '020', 'status', 'completed']);

  note('task 030');
  sow(['task', 'set', '--id', '030', 'status', 'in_progress']);
  write('src/auth/middleware.ts', `${MIDDLEWARE_TS}// TODO: also accept the token from a cookie\n`);
  sow(['task', 'output', 'add', '--id', '030', '--type', 'modified', '--path', 'src/auth/middleware.ts']);
  note('the agent says it is done, but the declared check fails: sow does not complete the task');
  sow(['task', 'set', '--id', '030', 'status', 'completed'], { expect: 3 });
  write('src/auth/middleware.ts', MIDDLEWARE_TS);
  sow(['task', 'set', '--id', '030', 'status', 'completed']);
  note('both runs are evidence on the task');
  sow(['task', 'output', 'list', '--id', '030']);
  sow(['task', 'list']);
  advance('ReviewActive');
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Implement JWT signing, verification and middleware']);
  git(['log', '--oneline']);

  heading('Review, first round (ReviewActive) — it fails');
  writeArtifact(
    'review/report.md',
    '# Review 1\n\nAssessment: **fail**\n\n- verify() accepts expired tokens: it never checks `exp`.\n',
    'reviewer agent',
  );
  sow(['output', 'add', '--type', 'review', '--path', 'review/report.md', '--assessment', 'fail']);
  sow(['output', 'list']);
  sow(['output', 'set', '--index', '0', 'approved', 'true']);
  advance('ImplementationPlanning');
  note('back to planning the rework: the failed review is copied to the inputs of implementation, in iteration 2');
  sow(['input', 'list']);
  sow(['phase', 'get', 'iteration']);
  sow(['phase', 'get', 'tasks_approved']);
  sow(['project', 'status'], { soft: true });

  heading('Rework (ImplementationPlanning → ImplementationExecuting)');
  sow([
    'task',
    'add',
    'Reject expired tokens',
    '--agent',
    'implementer',
    '--description',
    'verify() must reject tokens whose exp has passed (see review/report.md).',
  ]);
  sow(['phase', 'set', 'tasks_approved', 'true']);
  advance('ImplementationExecuting');
  sow(['task', 'set', '--id', '040', 'status', 'in_progress']);
  sow(['task', 'input', 'add', '--id', '040', '--type', 'reference', '--path', 'review/report.md']);
  write('src/auth/verify.ts', VERIFY_TS_V2);
  sow(['task', 'output', 'add', '--id', '040', '--type', 'modified', '--path', 'src/auth/verify.ts']);
  sow(['task', 'set', '--id', '040', 'status', 'completed']);
  advance('ReviewActive');

  heading('Review, second round (ReviewActive) — it passes');
  note("the first round's review stays as history; it no longer decides");
  sow(['output', 'list']);
  writeArtifact(
    'review/report-2.md',
    '# Review 2\n\nAssessment: **pass**\n\n- Expired tokens are rejected; signing adds iat/exp.\n',
    'reviewer agent',
  );
  sow(['output', 'add', '--type', 'review', '--path', 'review/report-2.md', '--assessment', 'pass']);
  sow(['output', 'set', '--index', '1', 'approved', 'true']);
  sow(['output', 'list']);
  advance('FinalizeDocumentation');
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Reject expired tokens (review round 2)']);

  heading('Finalize (FinalizeDocumentation → FinalizeChecks → FinalizeDelete)');
  sow(['project', 'status'], { soft: true });
  write(
    'docs/auth.md',
    '# Authentication\n\nSend `Authorization: Bearer <token>`; tokens are HS256 JWTs valid for 15 minutes.\n',
  );
  advance('FinalizeChecks');
  note('leaving FinalizeChecks needs passing evidence of every finalize check for the code as it is now');
  sow(['advance'], { expect: 3 });
  sow(['check', 'run']);
  advance('FinalizeDelete');
  sow(['advance'], { expect: 3 });
  sow(['project', 'history']);
  sow(['phase', 'set', 'project_deleted', 'true']);
  advance('NoProject');
  sow(['project', 'status'], { expect: 1 });
  note('with no project, the orchestrator still gets its next step:');
  sow(['project', 'continue'], { maxLines: 6, soft: true });
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Finish add-auth: docs, checks, remove project state']);
  git(['log', '--oneline']);
}

/** A fresh repository with sow initialised, committed on main. */
function setUpRepo(title) {
  repo = realpathSync(mkdtempSync(join(tmpdir(), 'sow-demo-')));
  out(bold(title));
  note(`a fresh git repository in ${repo}`);
  note(`the CLI under test: ${SOW}`);
  heading('A repository to work in');
  git(['init', '-q']);
  write('README.md', '# api\n\nA small HTTP API.\n', 'person');
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Initial commit']);
  sow(['init']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Add sow']);
}

function startProject(args) {
  const created = sow(['project', 'new', ...args]);
  statesVisited.push(created.stdout.trim());
  sow(['project', 'continue'], { maxLines: 12, soft: true });
}

function demoExploration() {
  setUpRepo("sow demo — an exploration: topics → approved summaries → the repository's knowledge");
  heading('Start the exploration (Active)');
  startProject(['jwt-libs', '--type', 'exploration', '--description', 'Which JWT library should the API use?']);
  sow(['phase', 'set', 'tags', 'auth,jwt']);
  sow(['task', 'add', 'jose', '--description', 'Maintained? ESM? HS256 and EdDSA?']);
  sow(['task', 'add', 'jsonwebtoken', '--description', 'Same questions']);
  sow(['advance'], { expect: 3 });
  sow(['task', 'set', '--id', '010', 'status', 'in_progress']);
  writeArtifact(
    'findings/jose.md',
    '# jose\n\n- Maintained, ESM, zero dependencies.\n- HS256, EdDSA, JWE.\n',
    'researcher agent',
  );
  sow(['task', 'output', 'add', '--id', '010', '--type', 'findings', '--path', 'findings/jose.md']);
  sow(['task', 'set', '--id', '010', 'status', 'completed']);
  note('the person drops the second topic: jose answers the question');
  sow(['task', 'abandon', '--id', '020']);
  advance('Summarizing');
  heading('Summarize (Summarizing → Finalizing)');
  writeArtifact(
    'summary.md',
    '# Which JWT library?\n\nUse **jose**: maintained, ESM, no dependencies.\n',
    'researcher agent',
  );
  sow(['output', 'add', '--type', 'summary', '--path', 'summary.md']);
  sow(['advance'], { expect: 3 });
  note('the person reads the summary and approves it');
  sow(['output', 'set', '--index', '0', 'approved', 'true']);
  advance('Finalizing');
  heading('Complete: the summary becomes knowledge');
  advance('Completed');
  sh('cat .sow/knowledge/index.yaml', 'cat', ['.sow/knowledge/index.yaml']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Exploration: which JWT library']);
}

function demoDesign() {
  setUpRepo('sow demo — a design project: documents written, approved, kept as ADRs and designs');
  heading('Start the design (Active)');
  startProject(['auth-design', '--type', 'design', '--description', 'How the API authenticates']);
  sow(['task', 'add', 'ADR: tokens, not sessions']);
  sow(['task', 'add', 'Design: the auth middleware']);
  sow(['task', 'set', '--id', '010', 'status', 'in_progress']);
  writeArtifact(
    'adrs/0001-jwt.md',
    '# 1. Use JWTs, not server sessions\n\nStatus: accepted\n\n## Context\nThe API runs on several ' +
      'instances.\n\n## Decision\nHS256 JWTs, 15 minutes.\n',
    'architect agent',
  );
  sow(['task', 'output', 'add', '--id', '010', '--type', 'adr', '--path', 'adrs/0001-jwt.md']);
  sow(['task', 'set', '--id', '010', 'status', 'completed']);
  sow(['task', 'set', '--id', '020', 'status', 'in_progress']);
  writeArtifact(
    'designs/middleware.md',
    '# Auth middleware\n\n`requireAuth(secret)` reads a Bearer token and sets `req.user`.\n',
    'architect agent',
  );
  sow(['task', 'output', 'add', '--id', '020', '--type', 'design', '--path', 'designs/middleware.md']);
  sow(['task', 'set', '--id', '020', 'status', 'completed']);
  note('the documents are written, but the person has not approved them:');
  sow(['advance'], { expect: 3 });
  sow(['task', 'output', 'set', '--id', '010', '--index', '0', 'approved', 'true']);
  sow(['task', 'output', 'set', '--id', '020', '--index', '0', 'approved', 'true']);
  advance('Finalizing');
  heading('Complete: ADRs to .sow/knowledge/adrs/, the rest to designs/');
  advance('Completed');
  sh('find .sow/knowledge -type f', 'find', ['.sow/knowledge', '-type', 'f']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Design: authentication']);
}

function demoBreakdown() {
  setUpRepo('sow demo — a breakdown: a large feature split into work units, published');
  heading('Discovery');
  startProject(['auth', '--type', 'breakdown', '--description', 'Authentication for the API']);
  writeArtifact('discovery.md', '# Authentication\n\nJWT sign/verify, middleware, docs.\n', 'planner agent');
  sow(['output', 'add', '--type', 'discovery', '--path', 'discovery.md']);
  sow(['advance'], { expect: 3 });
  sow(['output', 'set', '--index', '0', 'approved', 'true']);
  advance('Active');
  heading('Work units (Active)');
  sow(['task', 'add', 'JWT signing and verification']);
  sow(['task', 'add', 'Auth middleware', '--depends-on', '010']);
  for (const [id, text] of [
    ['010', '# JWT signing and verification\n\nsign() and verify() in src/auth/, HS256.\n'],
    ['020', '# Auth middleware\n\nrequireAuth(secret) on every route but /health.\n'],
  ]) {
    sow(['task', 'set', '--id', id, 'status', 'in_progress']);
    writeArtifact(`units/${id}.md`, text, 'planner agent');
    sow(['task', 'output', 'add', '--id', id, '--type', 'work_unit_spec', '--path', `units/${id}.md`]);
    sow(['task', 'set', '--id', id, 'status', 'completed']);
  }
  note('the specs are not approved yet:');
  sow(['advance'], { expect: 3 });
  sow(['task', 'output', 'set', '--id', '010', '--index', '0', 'approved', 'true']);
  sow(['task', 'output', 'set', '--id', '020', '--index', '0', 'approved', 'true']);
  advance('Publishing');
  heading('Publish (here as files; with gh, as GitHub issues with "Depends on #n")');
  sow(['breakdown', 'publish', '--to', 'files', '--dry-run']);
  sow(['breakdown', 'publish', '--to', 'files']);
  sow(['breakdown', 'publish', '--to', 'files']);
  advance('Completed');
  sh('find .sow/knowledge -type f', 'find', ['.sow/knowledge', '-type', 'f']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Breakdown: authentication']);
}

function demoIterative() {
  setUpRepo(
    'sow demo — iterative work (spec 002): brief, phases, zero-context iterations with confirm and verify gates',
  );
  heading('Discover (DiscoverActive)');
  startProject(['jwt-survey', '--type', 'iterative', '--description', 'Survey JWT libraries']);
  note('the brief is still the template: approving it is refused, naming each placeholder left');
  sow(['output', 'set', '--index', '0', 'approved', 'true'], { expect: 1 });
  write(
    '.sow/project/brief.md',
    '# Survey JWT libraries\n\n**Domain:** research\n\n## Outcome Needed\nA recommendation.\n\n## Done When\n- ' +
      'Three libraries compared\n- One recommended\n',
    'person',
  );
  sow(['advance'], { expect: 3 });
  sow(['output', 'set', '--index', '0', 'approved', 'true']);
  advance('PlanActive');
  heading('Plan (PlanActive): sow renders plan.md from the phases');
  sow([
    'iter',
    'phase',
    'add',
    'R1',
    '--title',
    'Compare three libraries',
    '--criteria',
    'a table of 3 libraries: maintenance, ESM, algorithms',
    '--output',
    'outputs/compare.md',
    '--max',
    '3',
  ]);
  sow(['iter', 'phase', 'add', 'R2', '--title', 'Recommend one', '--after', 'R1']);
  sow(['advance'], { expect: 3 });
  sow(['iter', 'phase', 'set', 'R2', 'criteria', 'one library named, with two reasons']);
  sow(['iter', 'phase', 'set', 'R2', 'output', 'outputs/recommendation.md']);
  sow(['iter', 'phase', 'set', 'R2', 'max', '2']);
  sh('cat .sow/project/plan.md', 'cat', ['.sow/project/plan.md'], { maxLines: 30 });
  sow(['output', 'set', '--index', '0', 'approved', 'true']);
  advance('ExecuteActive');
  heading('Execute (ExecuteActive): each iteration by a fresh worker');
  note('the prompt a zero-context worker gets for the next iteration (first 12 lines):');
  sow(['iter', 'next'], { maxLines: 12 });
  write(
    '.sow/project/outputs/compare.md',
    '| lib | maintained | ESM |\n|---|---|---|\n| jose | yes | yes |\n',
    'worker 1',
  );
  sow(['iter', 'log', 'R1', '--did', 'compared jose', '--remaining', 'jsonwebtoken, fast-jwt']);
  sow([
    'iter',
    'guardrail',
    'add',
    '--pattern',
    'npm stats lie',
    '--context',
    'judging maintenance',
    '--problem',
    'downloads reflect old installs',
    '--solution',
    'look at the last release date',
  ]);
  write(
    '.sow/project/outputs/compare.md',
    '| lib | maintained | ESM |\n|---|---|---|\n| jose | yes | yes |\n| jsonwebtoken | slow | no |\n| fast-jwt | ' +
      'yes | yes |\n',
    'worker 2',
  );
  sow(['iter', 'log', 'R1', '--did', 'compared the other two', '--remaining', 'None', '--signal']);
  sow(['iter', 'log', 'R1', '--did', 'checked the table against the criteria', '--remaining', 'None']);
  sow(['iter', 'verify', 'R1', '--pass']);
  write('.sow/project/outputs/recommendation.md', 'Use jose: maintained and ESM.\n', 'worker 4');
  sow(['iter', 'log', 'R2', '--did', 'wrote it', '--remaining', 'None', '--signal']);
  sow(['iter', 'log', 'R2', '--did', 'checked: one library, two reasons', '--remaining', 'None']);
  sow(['iter', 'verify', 'R2', '--pass']);
  sow(['iter', 'status']);
  advance('VerifyActive');
  heading('Verify and deliver');
  writeArtifact('review/report.md', "# Review\n\nPass: the brief's criteria are met.\n", 'reviewer agent');
  sow(['output', 'add', '--type', 'review', '--path', 'review/report.md', '--assessment', 'pass']);
  sow(['output', 'set', '--index', '0', 'approved', 'true']);
  advance('DeliverActive');
  advance('Complete');
  sh('find .sow/knowledge -type f', 'find', ['.sow/knowledge', '-type', 'f']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Iterative: JWT survey']);
}

const WALKS = {
  standard: demo,
  exploration: demoExploration,
  design: demoDesign,
  breakdown: demoBreakdown,
  iterative: demoIterative,
};

function summary() {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  heading('Summary');
  out(`states   ${statesVisited.join(' → ')}`);
  out(`commands ${stats.sow} sow, ${stats.git} git (${stats.expectedFailures} expected non-zero exits checked)`);
  const files = [...new Set(stats.files)];
  out(
    `files    ${files.length} written by the agents and the person, e.g. ${files
      .filter((f) => f !== 'README.md')
      .slice(0, 3)
      .join(', ')}`,
  );
  out(`time     ${seconds} s`);
}

let code = 0;
process.on('SIGINT', () => {
  if (repo && !KEEP) rmSync(repo, { recursive: true, force: true });
  process.exit(130);
});
try {
  for (const type of TYPE === 'all' ? TYPES : [TYPE]) {
    if (repo && !KEEP) rmSync(repo, { recursive: true, force: true });
    WALKS[type]();
  }
  summary();
  if (softFailures.length) {
    out(red(`✗ ${softFailures.length} command(s) failed:`));
    for (const f of softFailures) out(red(`  - ${f}`));
    code = 1;
  } else {
    out(green('✓ every command did what the script expected'));
  }
} catch (err) {
  out();
  out(red(`✗ demo failed: ${err instanceof DemoFailure ? err.message : (err?.stack ?? String(err))}`));
  for (const f of softFailures) out(red(`  also failed earlier: ${f}`));
  code = 1;
} finally {
  if (repo) {
    if (KEEP) out(`kept the demo repository: ${repo}`);
    else {
      rmSync(repo, { recursive: true, force: true });
      if (code !== 0) out(dim('(rerun with --keep to inspect the repository)'));
    }
  }
}
process.exit(code);
