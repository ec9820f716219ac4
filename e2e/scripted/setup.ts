/*
 * How each real CLI is pointed at a scripted endpoint (measured with Claude Code 2.1.328,
 * Codex 0.169.0, Gemini CLI 0.61.0, OpenCode 1.18.33, Qwen Code 0.15.10, Copilot CLI 1.0.102, Kilo Code 7.7.7, Cline 3.0.65, as root). One home for it: the capture scripts and the
 * real-CLI test suite both start their CLIs through here.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnthropicEndpoint, type AnthropicTurn } from './anthropic';
import { startGeminiEndpoint, type GeminiTurn } from './gemini';
import { startOpenAIChatEndpoint, SCRIPTED_CHAT_MODEL, type ChatTurn } from './openai-chat';
import { startOpenAIResponsesEndpoint, type ResponsesTurn } from './openai-responses';
import type { ScriptedServer } from './server';

/** The CLIs this package pins. */
export type CliName = 'claude' | 'codex' | 'gemini' | 'opencode' | 'qwen' | 'copilot' | 'pi' | 'kilo' | 'cline';

/**
 * Where the CLIs' executables are: `e2e/node_modules/.bin`, where `npm install --prefix e2e` puts the
 * pinned CLIs, or `$CSC_E2E_CLI_PREFIX/node_modules/.bin` for another install of them (`npm run
 * test:latest` runs the suite against the newest releases that way).
 */
export const E2E_BIN = join(process.env.CSC_E2E_CLI_PREFIX || join(__dirname, '..'), 'node_modules', '.bin');

/**
 * The pinned CLI's executable. Copilot's `copilot` is an npm loader (node) that runs the native
 * binary with spawnSync and forwards no signal: a kill of the loader leaves Copilot running, so
 * the native binary of this platform is started directly.
 */
export function cliPath(name: CliName, bin: string = E2E_BIN): string {
  return join(bin, name === 'copilot' ? `copilot-${process.platform}-${process.arch}` : name);
}

/** The CLIs driven over the Agent Client Protocol (JSON-RPC 2.0 on stdio) here. */
export type AcpCliName = 'opencode' | 'qwen' | 'copilot' | 'kilo' | 'cline';

/** The arguments that start `name` as an ACP agent on stdio (with the environment of `pointCliAt`). */
export function acpArgs(name: AcpCliName): string[] {
  switch (name) {
    case 'opencode':
    case 'kilo':
      return ['acp'];
    case 'qwen':
      // The auth type and model come from settings.json and OPENAI_MODEL (pointQwenAt).
      return ['--acp'];
    case 'copilot':
      return ['--acp', '--no-auto-update', '--disable-client-telemetry'];
    case 'cline':
      return ['--acp'];
  }
}

/** Only what a CLI needs: no API keys or settings of the machine leak in. */
export function isolatedEnv(home: string, extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', ...extra };
}

/** Starts the scripted endpoint a CLI speaks to (Codex's also plays the Responses-only turns). */
export function startEndpoint(name: CliName, script: readonly ResponsesTurn[]): Promise<ScriptedServer> {
  if (name === 'codex') return startOpenAIResponsesEndpoint(script);
  switch (name) {
    case 'claude':
      // Its `call` turns have the Responses script's shape (a tool by name, and its arguments).
      return startAnthropicEndpoint(script as readonly AnthropicTurn[]);
    case 'gemini':
      // Its `call` turns have the Responses script's shape too.
      return startGeminiEndpoint(script as readonly GeminiTurn[]);
    case 'opencode':
    case 'qwen':
    case 'copilot':
    case 'pi':
    case 'kilo':
    case 'cline':
      // Their `call` turns have the Responses script's shape too.
      return startOpenAIChatEndpoint(script as readonly ChatTurn[]);
  }
}

/** Options of `pointCliAt`. */
export interface PointOptions {
  /** Codex: configure the stdio MCP server `echo` (capture/mcp-echo-server.js). */
  mcpEcho?: boolean;
  /**
   * No credentials anywhere, config files included (the auth-required checks): each CLI still
   * pointed at the endpoint where it can be without a key, so that a request it made would be seen.
   */
  withoutCredentials?: boolean;
}

/**
 * Writes what the CLI reads from `home` to reach `serverUrl`, and answers the environment it
 * needs (over an isolated one):
 * - Claude Code: `ANTHROPIC_BASE_URL` and any `ANTHROPIC_API_KEY`; it probes `HEAD /api/hello`, then streams `POST /v1/messages?beta=true`.
 * - Codex ignores `OPENAI_BASE_URL`: a custom model provider in `CODEX_HOME/config.toml` redirects it
 *   (model `gpt-5.5`: another name makes it print a model-metadata error item).
 * - Gemini CLI: `GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY`, and a settings.json selecting API-key auth
 *   with no folder-trust question; `TMPDIR` in the home, where it writes its error reports.
 * - OpenCode, Qwen Code, Copilot CLI, Kilo Code, Cline: the scripted Chat Completions endpoint at `<serverUrl>/v1`
 *   (see pointOpenCodeAt, pointQwenAt, pointCopilotAt, pointKiloAt, pointClineAt).
 */
export function pointCliAt(name: CliName, home: string, serverUrl: string, options: PointOptions = {}): Record<string, string> {
  switch (name) {
    case 'claude':
      return isolatedEnv(home, { ANTHROPIC_BASE_URL: serverUrl, ANTHROPIC_API_KEY: 'sk-ant-scripted', DISABLE_AUTOUPDATER: '1' });
    case 'codex':
      writeFileSync(join(home, 'config.toml'), codexConfig(serverUrl, options.mcpEcho === true));
      // Codex 0.169 links its codex-linux-sandbox helper (CODEX_HOME/tmp/arg0-linux) only when CODEX_HOME is
      // not under the temp dir ("Refusing to create helper binaries under temporary dir"); a system
      // bubblewrap without --argv0 (< 0.9: Debian's 0.8.0) then runs the bare name, and every sandboxed
      // command fails with `bwrap: execvp codex-linux-sandbox`. A temp dir of its own inside its home fixes it.
      mkdirSync(join(home, 'tmp'), { recursive: true });
      return {
        PATH: process.env.PATH ?? '',
        HOME: home,
        CODEX_HOME: home,
        TMPDIR: join(home, 'tmp'),
        OPENAI_API_KEY: 'sk-scripted',
        RUST_LOG: 'off',
        NO_COLOR: '1',
      };
    case 'gemini':
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(GEMINI_SETTINGS));
      return isolatedEnv(home, { GOOGLE_GEMINI_BASE_URL: serverUrl, GEMINI_API_KEY: 'scripted-gemini-key', TMPDIR: home });
    case 'opencode':
      return pointOpenCodeAt(home, serverUrl, options);
    case 'qwen':
      return pointQwenAt(home, serverUrl, options);
    case 'copilot':
      return pointCopilotAt(home, serverUrl, options);
    case 'pi':
      return pointPiAt(home, serverUrl, options);
    case 'kilo':
      return pointKiloAt(home, serverUrl, options);
    case 'cline':
      return pointClineAt(home, serverUrl, options);
  }
}

/*
 * OpenCode 1.18.33 reads its config from `$XDG_CONFIG_HOME/opencode/opencode.json` and keeps its
 * database (migrated on the first run, which is slow), logs and caches under the other XDG dirs,
 * all put in the fresh home. Its own "opencode" provider lists hosted models: only the scripted
 * provider is enabled. Its default lets `bash` run without asking; the config asks instead, like
 * the other CLIs' defaults, so an ACP session sees session/request_permission and `opencode run`
 * needs `--auto` to run a command (without it the run auto-rejects and ends the turn).
 */
function pointOpenCodeAt(home: string, serverUrl: string, options: PointOptions): Record<string, string> {
  const config = join(home, '.config');
  mkdirSync(join(config, 'opencode'), { recursive: true });
  writeFileSync(join(config, 'opencode', 'opencode.json'), JSON.stringify(openCodeConfig(serverUrl, options), null, 2));
  return isolatedEnv(home, {
    XDG_CONFIG_HOME: config,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    OPENCODE_DISABLE_MODELS_FETCH: 'true',
    OPENCODE_DISABLE_AUTOUPDATE: 'true',
    OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
    OPENCODE_DISABLE_SHARE: 'true',
    TMPDIR: home,
  });
}

/**
 * The scripted endpoint as an OpenCode (and Kilo) provider, and its one model. Without credentials:
 * the AI SDK's `openai` provider with no key, which needs one (OPENAI_API_KEY): the openai-compatible
 * one sends its requests without.
 */
const FAKE_PROVIDER = (serverUrl: string, options: PointOptions = {}) =>
  options.withoutCredentials
    ? { npm: '@ai-sdk/openai', name: 'Scripted', options: { baseURL: `${serverUrl}/v1` } }
    : { npm: '@ai-sdk/openai-compatible', name: 'Scripted', options: { baseURL: `${serverUrl}/v1`, apiKey: 'sk-scripted' } };
// Images in: OpenCode 1.18.33 left a prompt's image out of the request to a model whose config did not say it takes them.
const FAKE_MODEL = {
  name: 'Scripted model',
  tool_call: true,
  attachment: true,
  modalities: { input: ['text', 'image'], output: ['text'] },
};

function openCodeConfig(serverUrl: string, options: PointOptions = {}): Record<string, unknown> {
  return {
    $schema: 'https://opencode.ai/config.json',
    provider: { fake: { ...FAKE_PROVIDER(serverUrl, options), models: { [SCRIPTED_CHAT_MODEL]: FAKE_MODEL } } },
    model: `fake/${SCRIPTED_CHAT_MODEL}`,
    enabled_providers: ['fake'],
    permission: { bash: 'ask' },
    autoupdate: false,
    share: 'disabled',
  };
}

/*
 * Kilo Code 7.7.7, an OpenCode fork: OpenCode's config schema, read from
 * `$XDG_CONFIG_HOME/kilo/kilo.json`, and OpenCode's XDG dirs under `kilo/`. Its `KILO_*` switches
 * (the registry's `env.set` holds those that keep something from outliving a run) turn off the
 * model list download, auto-update, telemetry, session upload and the daemon client.
 */
function pointKiloAt(home: string, serverUrl: string, options: PointOptions): Record<string, string> {
  const config = join(home, '.config');
  mkdirSync(join(config, 'kilo'), { recursive: true });
  const { $schema: _schema, ...shared } = openCodeConfig(serverUrl, options);
  // The model priced (dollars per million tokens), so that Kilo reports a cost: unpriced, its `cost` is 0.
  const model = { ...FAKE_MODEL, cost: { input: 1, output: 2 } };
  const priced = { ...shared, provider: { fake: { ...FAKE_PROVIDER(serverUrl, options), models: { [SCRIPTED_CHAT_MODEL]: model } } } };
  writeFileSync(join(config, 'kilo', 'kilo.json'), JSON.stringify(priced, null, 2));
  return isolatedEnv(home, {
    XDG_CONFIG_HOME: config,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    ...KILO_SWITCHES,
    TMPDIR: home,
  });
}

const KILO_SWITCHES = {
  KILO_NO_DAEMON: '1',
  KILO_TELEMETRY_LEVEL: 'off',
  KILO_DISABLE_MODELS_FETCH: '1',
  KILO_DISABLE_AUTOUPDATE: '1',
  KILO_DISABLE_LSP_DOWNLOAD: '1',
  KILO_DISABLE_SHARE: '1',
  KILO_DISABLE_SESSION_INGEST: '1',
};

/*
 * Cline 3.0.65 keeps its providers in `$CLINE_DIR/data/settings/providers.json` (`~/.cline`): the
 * file below is what `cline auth -p openai -k sk-scripted -m fake-model -b <serverUrl>/v1` writes
 * there (its `openai` is the `openai-compatible` provider), written directly so that no CLI runs
 * here; a file it cannot read (no `updatedAt`) it silently replaces with its own `cline` provider. `CLINE_PROVIDER` and `CLINE_API_KEY` select it for runs and ACP sessions alike; an ACP
 * session asks for `gpt-4o` whatever model is saved (the scripted endpoint answers any model).
 * `CLINE_SESSION_BACKEND_MODE=local` keeps the first prompt from starting its hub daemon (port 25463,
 * `CLINE_HUB_PORT`), which outlives the run, and `CLINE_NO_AUTO_UPDATE` its update check: neither is
 * in its `--help` (the registry's `env.set` holds them for `startRun` and `startSession`).
 */
function pointClineAt(home: string, serverUrl: string, options: PointOptions): Record<string, string> {
  const switches = { CLINE_DIR: join(home, '.cline'), CLINE_SESSION_BACKEND_MODE: 'local', CLINE_NO_AUTO_UPDATE: '1', TMPDIR: home };
  // Without credentials: no provider saved or selected, no key.
  if (options.withoutCredentials) return isolatedEnv(home, switches);
  const settings = join(home, '.cline', 'data', 'settings');
  mkdirSync(settings, { recursive: true });
  const provider = { provider: 'openai-compatible', apiKey: 'sk-scripted', model: SCRIPTED_CHAT_MODEL, baseUrl: `${serverUrl}/v1` };
  const providers = {
    version: 1,
    lastUsedProvider: 'openai-compatible',
    modes: {},
    providers: { 'openai-compatible': { settings: provider, updatedAt: '2026-01-01T00:00:00.000Z', tokenSource: 'manual' } },
  };
  writeFileSync(join(settings, 'providers.json'), JSON.stringify(providers, null, 2), { mode: 0o600 });
  return isolatedEnv(home, { ...switches, CLINE_PROVIDER: 'openai-compatible', CLINE_API_KEY: 'sk-scripted' });
}

/*
 * Qwen Code 0.15.10: the openai auth type reads `OPENAI_BASE_URL`, `OPENAI_API_KEY` and
 * `OPENAI_MODEL`; `~/.qwen/settings.json` selects that auth (else it asks which one) and turns
 * off the folder-trust question, the update check and usage statistics, so `qwen --acp` needs no
 * flag (`-p` runs add `--auth-type openai -m fake-model`). Its default approval mode asks before the shell; in
 * `-p` it then leaves `run_shell_command` out of the tools altogether (use `--approval-mode yolo`).
 */
function pointQwenAt(home: string, serverUrl: string, options: PointOptions): Record<string, string> {
  mkdirSync(join(home, '.qwen'), { recursive: true });
  writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify(QWEN_SETTINGS, null, 2));
  return isolatedEnv(home, {
    OPENAI_BASE_URL: `${serverUrl}/v1`,
    ...(options.withoutCredentials ? {} : { OPENAI_API_KEY: 'sk-scripted' }),
    OPENAI_MODEL: SCRIPTED_CHAT_MODEL,
    TMPDIR: home,
  });
}

const QWEN_SETTINGS = {
  security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

/*
 * Copilot CLI 1.0.102 without a GitHub account: `COPILOT_OFFLINE` (no GitHub auth, telemetry,
 * web tools or updates) with a bring-your-own-key provider (`COPILOT_PROVIDER_*`, Chat
 * Completions by default). State goes to `COPILOT_HOME`; the binary unpacks its package
 * (about 235 MB, about a second) into `$XDG_CACHE_HOME/copilot` or `~/.cache/copilot`, here the
 * fresh home. No `GITHUB_TOKEN`/`GH_TOKEN` reaches it (isolatedEnv). Flags: `--no-auto-update
 * --disable-client-telemetry`, and `--allow-all-tools` for `-p`.
 */
function pointCopilotAt(home: string, serverUrl: string, options: PointOptions): Record<string, string> {
  // Without credentials: no provider of its own (which needs no GitHub login, and no key) and not offline
  // (which needs one), so it wants its GitHub login; no token reaches it.
  if (options.withoutCredentials)
    return isolatedEnv(home, { COPILOT_HOME: join(home, '.copilot'), COPILOT_AUTO_UPDATE: 'false', TMPDIR: home });
  return isolatedEnv(home, {
    COPILOT_HOME: join(home, '.copilot'),
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_BASE_URL: `${serverUrl}/v1`,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_API_KEY: 'sk-scripted',
    COPILOT_MODEL: SCRIPTED_CHAT_MODEL,
    TMPDIR: home,
  });
}

/*
 * pi 0.73.1 (`@mariozechner/pi-coding-agent`) reads custom providers from `models.json` in its
 * agent dir (`~/.pi/agent`, or `PI_CODING_AGENT_DIR`): the scripted endpoint as an
 * `openai-completions` provider named `scripted`, so every run and session passes
 * `--provider scripted --model fake-model` (its default provider is Google). `PI_OFFLINE` skips its
 * start-up network calls (update and package checks); `settings.json` turns off its start-up banner.
 */
/**
 * Qwen Code's one-shot flags against its scripted endpoint (before `-p <prompt>`): JSON lines, the
 * openai auth of settings.json, the scripted model, and yolo (in `-p` its default mode leaves the
 * shell out of the tools).
 */
export const QWEN_ONE_SHOT_ARGS: readonly string[] = [
  '-o',
  'stream-json',
  '--auth-type',
  'openai',
  '-m',
  SCRIPTED_CHAT_MODEL,
  '--approval-mode',
  'yolo',
];

export const PI_PROVIDER = 'scripted';

function pointPiAt(home: string, serverUrl: string, options: PointOptions): Record<string, string> {
  const agentDir = join(home, '.pi', 'agent');
  mkdirSync(agentDir, { recursive: true });
  const models = {
    providers: {
      [PI_PROVIDER]: {
        baseUrl: `${serverUrl}/v1`,
        api: 'openai-completions',
        // Without credentials: no key, and pi 0.73.1 then knows no `scripted` provider at all (its default model has no key either).
        ...(options.withoutCredentials ? {} : { apiKey: 'sk-scripted' }),
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [
          {
            id: SCRIPTED_CHAT_MODEL,
            name: 'Scripted model',
            reasoning: false,
            input: ['text'],
            contextWindow: 128000,
            maxTokens: 4096,
            cost: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 0 },
          },
        ],
      },
    },
  };
  writeFileSync(join(agentDir, 'models.json'), JSON.stringify(models, null, 2));
  return isolatedEnv(home, { PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: '1', TMPDIR: home });
}

/** API-key auth without a prompt, and no folder-trust question (the cwd is a fresh temp dir). */
const GEMINI_SETTINGS = { security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } } };

function codexConfig(serverUrl: string, mcpEcho: boolean): string {
  return [
    'model_provider = "fake"',
    'model = "gpt-5.5"',
    '',
    '[model_providers.fake]',
    'name = "scripted"',
    `base_url = "${serverUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "OPENAI_API_KEY"',
    'supports_websockets = false',
    'request_max_retries = 0',
    'stream_max_retries = 1',
    '',
    ...(mcpEcho
      ? ['[mcp_servers.echo]', 'command = "node"', `args = [${JSON.stringify(join(__dirname, '..', 'capture', 'mcp-echo-server.js'))}]`, '']
      : []),
  ].join('\n');
}

/** A CLI ready to run against a scripted endpoint: fresh temporary HOME and cwd, and its environment. */
export interface ScriptedCli {
  readonly name: CliName;
  readonly executable: string;
  readonly server: ScriptedServer;
  readonly home: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Closes the endpoint and removes the temporary directories. */
  close(): Promise<void>;
}

/** Starts `name`'s scripted endpoint playing `script` and prepares a fresh HOME and cwd pointed at it. */
export async function startScriptedCli(name: CliName, script: readonly ResponsesTurn[], options: PointOptions = {}): Promise<ScriptedCli> {
  const server = await startEndpoint(name, script);
  const home = mkdtempSync(join(tmpdir(), `${name}-home-`));
  const cwd = mkdtempSync(join(tmpdir(), `${name}-cwd-`));
  const env = pointCliAt(name, home, server.url, options);
  return {
    name,
    executable: cliPath(name),
    server,
    home,
    cwd,
    env,
    close: async () => {
      await server.close();
      rmSync(home, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
