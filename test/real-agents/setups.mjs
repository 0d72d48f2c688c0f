/**
 * How each CLI is pointed at the loopback scripted model, and the sow executor config it runs with.
 * Per CLI: startServer(opts) → server; prepare({ env, server, dir, yolo }) → { env, executor };
 * sessionOf(request record) → the session id the request carries, if the CLI sends one.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAnthropicServer } from './anthropic.mjs';
import { startGeminiServer } from './gemini.mjs';
import { startResponsesServer } from './openai-responses.mjs';

export const SETUPS = {
  claude: {
    startServer: (opts) => startAnthropicServer(opts),
    async prepare({ server, env, yolo }) {
      return {
        env: {
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: 'test',
          CLAUDE_CODE_MAX_RETRIES: '0',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          CLAUDE_CONFIG_DIR: env.CLAUDE_CONFIG_DIR,
          HOME: env.HOME,
        },
        executor: { type: 'claude', settings: { yolo_mode: yolo, model: 'claude-sonnet-4-5' } },
      };
    },
    sessionOf: (r) => r.headers['x-claude-code-session-id'],
  },
  codex: {
    startServer: (opts) => startResponsesServer(opts),
    async prepare({ server, yolo }) {
      return {
        // OPENAI_BASE_URL is not honoured; the base URL goes in as a config override.
        env: { CODEX_API_KEY: 'test' },
        executor: {
          type: 'codex',
          settings: { yolo_mode: yolo, model: 'gpt-6.1-sol' },
          custom_args: ['-c', `openai_base_url="${server.url}/v1"`],
        },
      };
    },
    sessionOf: (r) => r.headers['thread-id'] ?? r.headers['session-id'],
    notes: [
      'codex first tries a Responses WebSocket (GET /v1/responses, Upgrade); the server answers 404 and codex ' +
        'falls back to HTTPS after 5 tries (~6 s per run)',
      "codex 0.169 runs commands as `/bin/bash -lc` (a login shell: Debian's /etc/profile resets PATH), so sow " +
        'must be on the PATH a login shell sets up — here the isolated ~/.profile',
    ],
  },
  copilot: {
    // Copilot's BYOK provider of type anthropic posts to <base>/v1/messages: the same fake as claude.
    startServer: (opts) => startAnthropicServer(opts),
    async prepare({ server, yolo }) {
      return {
        env: {
          COPILOT_OFFLINE: 'true',
          COPILOT_PROVIDER_TYPE: 'anthropic',
          COPILOT_PROVIDER_BASE_URL: server.url,
          COPILOT_PROVIDER_API_KEY: 'test',
          COPILOT_MODEL: 'claude-sonnet-4',
          COPILOT_AUTO_UPDATE: 'false',
        },
        executor: { type: 'copilot', settings: { yolo_mode: yolo, model: 'claude-sonnet-4' } },
      };
    },
  },
  opencode: {
    // opencode's anthropic provider with a baseURL override: the same fake as claude.
    startServer: (opts) => startAnthropicServer(opts),
    async prepare({ server, yolo }) {
      return {
        env: {
          OPENCODE_CONFIG_CONTENT: JSON.stringify({
            autoupdate: false,
            share: 'disabled',
            provider: { anthropic: { options: { baseURL: `${server.url}/v1` } } },
          }),
          ANTHROPIC_API_KEY: 'test',
          OPENCODE_DISABLE_MODELS_FETCH: 'true',
        },
        executor: { type: 'opencode', settings: { yolo_mode: yolo, model: 'anthropic/claude-sonnet-4-5' } },
      };
    },
    sessionOf: (r) => r.headers['x-session-id'],
  },
  gemini: {
    startServer: (opts) => startGeminiServer(opts),
    async prepare({ server, env, yolo }) {
      // An API key alone is not enough: settings.json must select the gemini-api-key auth type.
      const dir = join(env.GEMINI_CLI_HOME, '.gemini');
      mkdirSync(dir, { recursive: true });
      const settings = {
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      };
      writeFileSync(join(dir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
      return {
        env: { GEMINI_API_KEY: 'test', GOOGLE_GEMINI_BASE_URL: server.url },
        // A new folder is untrusted: without --skip-trust gemini exits 55.
        executor: {
          type: 'gemini',
          settings: { yolo_mode: yolo, model: 'gemini-2.5-flash' },
          custom_args: ['--skip-trust'],
        },
      };
    },
  },
};
