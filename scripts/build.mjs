// Bundles sow into dist/ with esbuild: dist/sow.cjs (the executable, src/bin.ts), dist/core.cjs
// (the CLI, src/main.ts), dist/pack-<name>.cjs (the CLI with the commands of one group alone, for
// the groups agents and scripts run most; see PACKS), dist/mcp-sdk.cjs (the MCP SDK, for `sow mcp`
// alone) and dist/acp-sdk.cjs (the ACP SDK, for workers on the ACP transport alone). Heavy modules
// (yaml's Document API, the JSON Schema generator) are behind dynamic import(), so a command runs
// only what it needs. The output depends only on the source:
// building the same source twice gives the same bytes.
// `--out <dir>` builds elsewhere (the build test uses it). Minified, because
// compiling less code is most of what start-up costs; the linked source map (of core.cjs, which
// the executable runs whenever source maps are on) gives readable stacks with
// NODE_OPTIONS=--enable-source-maps.
import { build } from 'esbuild';
import { rm, chmod, readFile, rename } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

/**
 * commander requires node:child_process at load time, for executable subcommands sow never uses;
 * loading it (and node:net behind it) costs several milliseconds on every start. Give commander a
 * proxy that loads the real module on first use.
 */
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: 'child_process', namespace: 'sow-lazy' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'sow-lazy' }, () => ({
      contents:
        "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

/**
 * node:child_process and node:crypto cost several million instructions to load (crypto alone
 * loads fifteen internal modules), and a read never uses them: git and agents are spawned, and
 * journals hashed, only by some commands. node:os is smaller (0.65 M), and needed only for the
 * home folder when HOME is unset, the host name a lock records, the temp folder of a git call.
 * sow's own imports of them get a module that loads the
 * real one on the first call. It exports the functions sow uses by name, so an import of any
 * other name fails the build instead of failing at run time.
 */
const LAZY_BUILTINS = {
  child_process: ['execFile', 'spawn', 'spawnSync'],
  crypto: ['createHash', 'randomBytes', 'randomUUID', 'timingSafeEqual'],
  os: ['homedir', 'hostname', 'tmpdir'],
  // Loading node:module loads Node's ES module loader and source map modules behind it; only the
  // heartbeat's thread and a confirmation prompt need createRequire.
  module: ['createRequire'],
};
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?(child_process|crypto|os|module)$/ }, (args) =>
      /[\\/]src[\\/]/.test(args.importer) && !/[\\/]node_modules[\\/]/.test(args.importer)
        ? { path: args.path.replace(/^node:/, ''), namespace: 'sow-lazy-builtin' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'sow-lazy-builtin' }, (args) => ({
      contents: [
        `let real; const load = () => (real ??= require('node:${args.path}'));`,
        ...LAZY_BUILTINS[args.path].map((name) => `export function ${name}(...a) { return load().${name}(...a); }`),
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * The MCP SDK and zod (src/mcp/sdk.ts) are bundled on their own, into dist/mcp-sdk.cjs, which
 * core.cjs requires only when `sow mcp` starts: inside core.cjs they would more than double the
 * file every command reads and caches (docs/decisions/0026-mcp-server.md).
 */
const mcpSdkApart = {
  name: 'mcp-sdk-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/sdk\.js$/ }, (args) =>
      /[\\/]src[\\/]mcp[\\/][^\\/]+\.ts$/.test(args.importer) ? { path: './mcp-sdk.cjs', external: true } : undefined,
    );
  },
};

/** The ACP SDK likewise (src/adapters/acp/sdk.ts → dist/acp-sdk.cjs), for workers on the ACP transport alone. */
const acpSdkApart = {
  name: 'acp-sdk-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/sdk\.js$/ }, (args) =>
      /[\\/]src[\\/]adapters[\\/]acp[\\/][^\\/]+\.ts$/.test(args.importer)
        ? { path: './acp-sdk.cjs', external: true }
        : undefined,
    );
  },
};

/**
 * Packs: the CLI once more for each group that agents and scripts run often, each a whole CLI with
 * the commands of its group alone (the registry's other groups are left out, and so are the
 * project types' command groups and completion, which only the full CLI answers). The executable
 * runs a command's pack when the first word names one (src/bin.ts), and core.cjs for everything
 * else: help, completion, `sow mcp`, `sow ui`, the project types' groups, a mistyped word.
 * Each pack is a process's only copy of sow's modules, as core.cjs is. Every function a bundle
 * holds costs start-up something, used or not (its place in the code cache, its closure when the
 * bundle runs), so a pack holding only what its group can reach starts faster: `phase get` at 100
 * tasks +66 M → +44 M instructions over `node -e 0` (docs/decisions/0070). `module` is the file of
 * src/commands/ whose commands the pack holds, as src/commands/index.ts imports it; `words` are the first word of a
 * command line, or its first two (docs/decisions/0088).
 */
const PACKS = [
  { name: 'phase', words: ['phase'], module: './phase.js' },
  { name: 'task', words: ['task'], module: './task.js' },
  { name: 'project', words: ['project', 'status'], module: './project.js' },
  { name: 'artifacts', words: ['input', 'output'], module: './artifacts.js' },
  { name: 'advance', words: ['advance'], module: './advance.js' },
  { name: 'log', words: ['log'], module: './log.js' },
  { name: 'agent', words: ['agent'], module: './agent.js' },
  { name: 'check', words: ['check'], module: './check.js' },
  { name: 'prompt', words: ['prompt'], module: './prompt.js' },
  { name: 'hook', words: ['hook', 'install', 'uninstall'], module: './install.js' },
  // A read pack: the hottest reads apart from their group's writes, which every read would otherwise parse and cache.
  // The group's module (`for`) is the read module there; any other word of the group runs the group's pack.
  { name: 'task-read', words: ['task get', 'task list', 'task next'], module: './task-read.js', for: './task.js' },
];

/**
 * What a pack leaves out: the registry's loaders of other groups, and what main.ts and completion
 * load only for a line that names no group of sow's (the project types' groups, completion). Left
 * out means a module that throws when loaded; the executable never runs a pack for such a line.
 */
function onlyGroup(pack) {
  let kept = false;
  let swapped = false;
  let leftTypes = false;
  let leftComplete = false;
  return {
    name: `only-${pack.name}`,
    setup(b) {
      const leftOut = (path) => ({ path, namespace: 'sow-left-out' });
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        if (/[\\/]src[\\/]commands[\\/]index\.ts$/.test(args.importer)) {
          if (args.path === pack.module) return void (kept = true);
          if (args.path === pack.for) {
            swapped = true;
            return { path: resolve(dirname(args.importer), pack.module.replace(/\.js$/, '.ts')) };
          }
          return leftOut(args.path);
        }
        if (/[\\/]src[\\/]main\.ts$/.test(args.importer) && args.path === './commands/types.js') {
          leftTypes = true;
          return leftOut(args.path);
        }
        if (/[\\/]src[\\/]cli[\\/]completion\.ts$/.test(args.importer) && args.path === './complete.js') {
          leftComplete = true;
          return leftOut(args.path);
        }
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'sow-left-out' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`sow: ${args.path} is not in the ${pack.name} pack`)});`,
        loader: 'js',
      }));
      b.onEnd((result) => {
        if (!kept && !swapped) throw new Error(`pack ${pack.name}: src/commands/index.ts imports no ${pack.module}`);
        if (pack.for !== undefined) {
          if (!swapped) throw new Error(`pack ${pack.name}: src/commands/index.ts imports no ${pack.for}`);
          // A read module that imported its group's module would bring every write back, unseen.
          const group = `src/commands/${pack.for.slice(2, -'.js'.length)}.ts`;
          if (result.metafile && group in result.metafile.inputs)
            throw new Error(`pack ${pack.name}: ${pack.module} imports ${group}, the writes it is kept apart from`);
        }
        // A moved import would put the project types' groups or completion back into every pack, unseen.
        if (!leftTypes || !leftComplete)
          throw new Error(`pack ${pack.name}: main.ts or cli/completion.ts no longer imports what a pack leaves out`);
      });
    },
  };
}

// Build beside dist/ and swap it in, so a sow process running meanwhile never finds it half gone.
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? pathToFileURL(resolve(process.argv[outArg + 1])) : new URL('../dist', import.meta.url);
const next = new URL(`${out.href}.next-${process.pid}`);
await rm(next, { recursive: true, force: true });
const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  logLevel: 'warning',
};
// The CLI itself: one CommonJS file, because only a classic script can be given a V8 code cache on
// Node 20 (docs/decisions/0008). Modules behind import() stay lazy: esbuild turns them into
// functions that run on first use, and V8 compiles a function only when it first runs.
const cli = {
  ...common,
  entryPoints: ['src/main.ts'],
  // import.meta.url, worked out when first asked for (finding the templates, a prompt): making a
  // file URL costs every command about 0.5 M instructions otherwise (docs/decisions/0044).
  banner: {
    js: "const __sowImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };",
  },
  define: {
    'import.meta.url': '__sowImportMeta.url',
    SOW_VERSION: JSON.stringify(pkg.version),
  },
};
const cliPlugins = [lazyChildProcessForCommander, lazyBuiltins, mcpSdkApart, acpSdkApart];
await Promise.all([
  build({
    ...cli,
    outfile: fileURLToPath(new URL('core.cjs', `${next.href}/`)),
    sourcemap: 'linked',
    plugins: cliPlugins,
  }),
  // No source map: with source maps on, the executable runs core.cjs.
  ...PACKS.map((pack) =>
    build({
      ...cli,
      outfile: fileURLToPath(new URL(`pack-${pack.name}.cjs`, `${next.href}/`)),
      metafile: pack.for !== undefined,
      plugins: [onlyGroup(pack), ...cliPlugins],
    }),
  ),
]);
await build({
  ...common,
  entryPoints: ['src/mcp/sdk.ts'],
  outfile: fileURLToPath(new URL('mcp-sdk.cjs', `${next.href}/`)),
});
await build({
  ...common,
  entryPoints: ['src/adapters/acp/sdk.ts'],
  outfile: fileURLToPath(new URL('acp-sdk.cjs', `${next.href}/`)),
});
// The executable: a few lines that load the command's pack, or core.cjs, through the code cache.
await build({
  ...common,
  entryPoints: ['src/bin.ts'],
  plugins: [lazyBuiltins],
  define: {
    SOW_VERSION: JSON.stringify(pkg.version),
    SOW_PACKS: JSON.stringify(
      Object.fromEntries(PACKS.flatMap((pack) => pack.words.map((word) => [word, `pack-${pack.name}.cjs`]))),
    ),
  },
  outfile: fileURLToPath(new URL('sow.cjs', `${next.href}/`)),
  banner: { js: '#!/usr/bin/env node' },
});
await chmod(new URL('sow.cjs', `${next.href}/`), 0o755);
const old = new URL(`${out.href}.old-${process.pid}`);
await rename(out, old).catch(() => undefined);
await rename(next, out);
await rm(old, { recursive: true, force: true });
