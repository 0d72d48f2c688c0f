/**
 * Values never become options: the check every git and gh argv goes through (argvOf), and a
 * reading of every call of git and gh in src/ that fails when one hands over a string that is
 * neither sow's own literal word nor built by `val` (a value) or `opt` (`--name=value`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { exitCodeFor, SowError } from '../domain/errors.js';
import { argvOf, opt, OptionLikeValueError, val } from './argv.js';
import { GH_ARGS } from './gh.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** The functions that run git or gh, and which of their arguments is the argv. */
const RUNNERS: Record<string, number> = {
  run: 1,
  git: 1,
  gitSucceeds: 1,
  gitRun: 1,
  gitRunAsync: 1,
  gitIn: 1,
  gh: 1,
  ghJson: 1,
};
/** The helpers that make an element of an argv from a value. */
const MAKERS = new Set(['val', 'opt', 'num']);
/** The only files that start git or gh themselves (through argvOf). */
const SPAWNERS = new Set(['adapters/git.ts', 'adapters/gh.ts']);
const PROCESS_STARTERS = new Set(['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork']);

/** Where `node` is and what it says, for a failure message. */
function at(sf: ts.SourceFile, node: ts.Node): string {
  const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  return `${sf.fileName}:${line}: ${node.getText(sf).replace(/\s+/g, ' ').slice(0, 140)}`;
}

/**
 * The name of the function `node` is in (a declaration's, or the variable an arrow is assigned to), and its
 * parameters.
 */
function enclosingFunction(node: ts.Node): { name?: string; params: string[] } | undefined {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isFunctionDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n)) {
      const name = ts.isFunctionDeclaration(n)
        ? n.name?.text
        : ts.isVariableDeclaration(n.parent) && ts.isIdentifier(n.parent.name)
          ? n.parent.name.text
          : undefined;
      return { ...(name ? { name } : {}), params: n.parameters.map((p) => p.name.getText()) };
    }
  }
  return undefined;
}

/** What in the source `text` (named `file`) can hand git or gh a string that is not sow's own: one line each. */
function argvProblems(file: string, text: string): { problems: string[]; calls: number } {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const problems: string[] = [];
  let calls = 0;
  const unwrap = (e: ts.Expression): ts.Expression =>
    ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) ? unwrap(e.expression) : e;

  const checkArgv = (raw: ts.Expression, call: ts.Node): void => {
    const e = unwrap(raw);
    if (ts.isArrayLiteralExpression(e)) {
      for (const el of e.elements) checkElement(el, call);
    } else if (ts.isConditionalExpression(e)) {
      checkArgv(e.whenTrue, call);
      checkArgv(e.whenFalse, call);
    } else if (
      ts.isCallExpression(e) &&
      ts.isPropertyAccessExpression(e.expression) &&
      e.expression.expression.getText(sf) === 'GH_ARGS'
    ) {
      // built by GH_ARGS, whose builders are checked below
    } else if (ts.isIdentifier(e)) {
      // A runner handing its own argv parameter on (git → run, ghJson → gh).
      const fn = enclosingFunction(call);
      if (!(fn?.name && fn.name in RUNNERS && fn.params.includes(e.text)))
        problems.push(`${at(sf, call)} — the argv '${e.text}' is not an array sow builds here`);
    } else {
      problems.push(`${at(sf, call)} — the argv is not an array of literal words and val()/opt()`);
    }
  };

  const checkElement = (raw: ts.Expression, call: ts.Node): void => {
    const e = unwrap(raw);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return;
    if (ts.isConditionalExpression(e)) {
      checkElement(e.whenTrue, call);
      checkElement(e.whenFalse, call);
    } else if (ts.isSpreadElement(e)) {
      checkArgv(e.expression, call);
    } else if (ts.isCallExpression(e) && ts.isIdentifier(e.expression) && MAKERS.has(e.expression.text)) {
      // a value (val, num) or a value joined to its option (opt, whose name is checked where it is called)
    } else {
      problems.push(
        `${at(sf, call)} — '${e.getText(sf)}' is a string sow did not write: pass it as val(…) (after '--' where ` +
          `git has one) or opt('--name', …)`,
      );
    }
  };

  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
      const name = n.expression.text;
      const first = n.arguments[0];
      const tool = first && ts.isStringLiteral(first) ? first.text : undefined;
      if (name in RUNNERS && n.arguments[RUNNERS[name]!]) {
        calls++;
        checkArgv(n.arguments[RUNNERS[name]!]!, n);
      } else if (name === 'probe' && (tool === 'git' || tool === 'gh') && n.arguments[1]) {
        calls++;
        checkArgv(n.arguments[1], n);
      } else if (PROCESS_STARTERS.has(name) && (tool === 'git' || tool === 'gh') && !SPAWNERS.has(file)) {
        problems.push(`${at(sf, n)} — runs ${tool} itself; run it through adapters/${tool}.ts, which checks the argv`);
      } else if (name === 'exec' || name === 'execSync') {
        problems.push(`${at(sf, n)} — a shell command line; sow passes argv arrays`);
      } else if (name === 'opt' && !(first && ts.isStringLiteral(first) && first.text.startsWith('--'))) {
        problems.push(`${at(sf, n)} — opt() takes a literal option name`);
      }
    }
    // GH_ARGS: each builder returns an argv.
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.name.text === 'GH_ARGS' && n.initializer) {
      const obj = unwrap(n.initializer);
      if (!ts.isObjectLiteralExpression(obj)) problems.push(`${at(sf, n)} — GH_ARGS is not an object of builders`);
      else {
        for (const p of obj.properties) {
          const f = ts.isPropertyAssignment(p) ? unwrap(p.initializer) : undefined;
          if (f && ts.isArrowFunction(f) && !ts.isBlock(f.body)) {
            calls++;
            checkArgv(f.body, f);
          } else problems.push(`${at(sf, p)} — a GH_ARGS builder must be an arrow returning its argv`);
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { problems, calls };
}

function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(relative(SRC, p).split('\\').join('/'));
    }
  };
  walk(SRC);
  return out;
}

describe('every git and gh call in src/ builds its argv from literal words, val() and opt()', () => {
  it('no call hands over a string sow did not write', () => {
    let calls = 0;
    const problems: string[] = [];
    for (const file of sources()) {
      const r = argvProblems(file, readFileSync(join(SRC, file), 'utf8'));
      calls += r.calls;
      problems.push(...r.problems);
    }
    expect(problems).toEqual([]);
    // The reading found the calls (so an empty list of problems means something).
    expect(calls).toBeGreaterThan(40);
  });

  it(
    'the reading can fail: a value as its own word, a template, a variable, git started elsewhere, opt with a ' +
      'made-up name',
    () => {
      const bad = [
        "git(dir, ['fetch', '--quiet', 'origin', name]);",
        "gitSucceeds(root, ['rev-parse', `${branch}@{upstream}`]);",
        "const args = ['push', branch]; git(root, args);",
        "gh(root, ['pr', 'list', '--head', branch], repo);",
        "spawnSync('git', ['fetch', name]);",
        "git(root, ['push', ...extra]);",
        "git(root, ['push', opt(flag, branch)]);",
        'execSync(`git fetch ${name}`);',
        "const GH_ARGS = { x: (b: string) => ['pr', 'list', b] };",
      ];
      for (const code of bad) expect(argvProblems('app/x.ts', code).problems, code).toHaveLength(1);
      const good = [
        "git(dir, ['fetch', '--quiet', '--', 'origin', val(name, 'the branch')]);",
        "git(root, ['worktree', 'remove', ...(force ? ['--force', '--force'] : []), '--', val(path, 'p')]);",
        "gitIn(dir, ['clone', progress ? '--progress' : '--quiet', ...(b ? [opt('--branch', b)] : [])]);",
        'gh(root, GH_ARGS.prReady(repo, n), repo);',
        'function git(root: string, args: readonly Arg[]) { return run(root, args); }',
      ];
      for (const code of good) expect(argvProblems('app/x.ts', code).problems, code).toEqual([]);
    },
  );
});

describe('argvOf: a value lands after --, joined to its option, or not beginning with -', () => {
  const hostile = '--upload-pack=touch /tmp/pwned;git-upload-pack';

  it('a value that begins with - before -- is refused, with the exit code of where it came from', () => {
    for (const [origin, code] of [
      ['file', 4],
      ['user', 1],
      ['remote', 5],
    ] as const) {
      let err: unknown;
      try {
        argvOf('git', ['fetch', '--quiet', 'origin', val(hostile, "the ref's branch", origin)]);
      } catch (e) {
        err = e;
      }
      expect(err, origin).toBeInstanceOf(OptionLikeValueError);
      expect(exitCodeFor((err as SowError).kind), origin).toBe(code);
      expect((err as SowError).message).toBe(
        `the ref's branch '${hostile}' begins with '-', so git would read it as an option; sow did not run git`,
      );
    }
    // A value that is `--` ends nothing: only sow's own `--` does.
    expect(() => argvOf('git', ['fetch', val('--', 'x'), val('-x', 'y')])).toThrow(OptionLikeValueError);
  });

  it("after --, any value goes; joined by opt, it is the option's value; plain ones pass as they are", () => {
    expect(argvOf('git', ['fetch', '--quiet', '--', 'origin', val(hostile, 'b')])).toEqual([
      'fetch',
      '--quiet',
      '--',
      'origin',
      hostile,
    ]);
    expect(argvOf('git', ['clone', opt('--branch', hostile), '--', val('https://x/y.git', 's')])).toEqual([
      'clone',
      `--branch=${hostile}`,
      '--',
      'https://x/y.git',
    ]);
    expect(argvOf('git', ['checkout', val('feat/x', 'b'), '--'])).toEqual(['checkout', 'feat/x', '--']);
  });

  it('every gh call (GH_ARGS) keeps hostile values out of flag position, or is refused', () => {
    const R = hostile;
    const samples: Record<keyof typeof GH_ARGS, () => readonly unknown[]> = {
      issueList: () => GH_ARGS.issueList(R, { state: 'open', label: hostile, limit: 5 }),
      issueView: () => GH_ARGS.issueView(R, 7),
      issueLinkedBranches: () => GH_ARGS.issueLinkedBranches(R, 7),
      issueLinkBranch: () => GH_ARGS.issueLinkBranch(R, 7, hostile, hostile),
      prForBranch: () => GH_ARGS.prForBranch(R, hostile),
      prCreate: () =>
        GH_ARGS.prCreate(R, { head: hostile, base: hostile, title: hostile, bodyFile: hostile, draft: false }),
      prReady: () => GH_ARGS.prReady(R, 12),
      issueCreate: () => GH_ARGS.issueCreate(R, { title: hostile }),
    };
    expect(Object.keys(samples).sort()).toEqual(Object.keys(GH_ARGS).sort());
    for (const [name, make] of Object.entries(samples)) {
      const argv = argvOf('gh', make() as Parameters<typeof argvOf>[1]);
      // As gh's parser (pflag) reads it: before `--`, a word beginning with '-' is a flag — only
      // sow's own names, with the value after '='.
      const end = argv.indexOf('--');
      const flags = (end < 0 ? argv : argv.slice(0, end)).filter((a) => a.startsWith('-') && a !== '-');
      for (const f of flags) expect(f.split('=')[0], `${name}: ${f}`).toMatch(/^--[a-z][a-z-]*$/);
    }
    // Numbers are positional: a negative one would be a flag.
    expect(() => argvOf('gh', GH_ARGS.prReady('acme/api', -1))).toThrow(OptionLikeValueError);
    expect(() => argvOf('gh', GH_ARGS.issueView('acme/api', -7))).toThrow(OptionLikeValueError);
  });
});
