/*
 * How each real CLI is pointed at a scripted endpoint (measured with Claude Code 2.1.328,
 * Codex 0.169.0, Gemini CLI 0.61.0, as root). One home for it: the capture scripts and the
 * real-CLI test suite both start their CLIs through here.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnthropicEndpoint } from './anthropic';
import { startGeminiEndpoint } from './gemini';
import { startOpenAIResponsesEndpoint, type ResponsesTurn } from './openai-responses';
import type { ScriptedTurn } from './script';
import type { ScriptedServer } from './server';

/** The CLIs this package pins. */
export type CliName = 'claude' | 'codex' | 'gemini';

/** `e2e/node_modules/.bin`, where `npm ci --prefix e2e` puts the pinned CLIs. */
export const E2E_BIN = join(__dirname, '..', 'node_modules', '.bin');

/** The pinned CLI's executable. */
export function cliPath(name: CliName): string {
  return join(E2E_BIN, name);
}

/** Only what a CLI needs: no API keys or settings of the machine leak in. */
export function isolatedEnv(home: string, extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', ...extra };
}

/** Starts the scripted endpoint a CLI speaks to (Codex's also plays the Responses-only turns). */
export function startEndpoint(name: CliName, script: readonly ResponsesTurn[]): Promise<ScriptedServer> {
  if (name === 'codex') return startOpenAIResponsesEndpoint(script);
  const common = script as readonly ScriptedTurn[];
  return name === 'claude' ? startAnthropicEndpoint(common) : startGeminiEndpoint(common);
}

/** Options of `pointCliAt`. */
export interface PointOptions {
  /** Codex: configure the stdio MCP server `echo` (capture/mcp-echo-server.js). */
  mcpEcho?: boolean;
}

/**
 * Writes what the CLI reads from `home` to reach `serverUrl`, and answers the environment it
 * needs (over an isolated one):
 * - Claude Code: `ANTHROPIC_BASE_URL` and any `ANTHROPIC_API_KEY`; it probes `HEAD /api/hello`, then streams `POST /v1/messages?beta=true`.
 * - Codex ignores `OPENAI_BASE_URL`: a custom model provider in `CODEX_HOME/config.toml` redirects it
 *   (model `gpt-5.5`: another name makes it print a model-metadata error item).
 * - Gemini CLI: `GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY`, and a settings.json selecting API-key auth
 *   with no folder-trust question; `TMPDIR` in the home, where it writes its error reports.
 */
export function pointCliAt(name: CliName, home: string, serverUrl: string, options: PointOptions = {}): Record<string, string> {
  switch (name) {
    case 'claude':
      return isolatedEnv(home, { ANTHROPIC_BASE_URL: serverUrl, ANTHROPIC_API_KEY: 'sk-ant-scripted', DISABLE_AUTOUPDATER: '1' });
    case 'codex':
      writeFileSync(join(home, 'config.toml'), codexConfig(serverUrl, options.mcpEcho === true));
      return { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: home, OPENAI_API_KEY: 'sk-scripted', RUST_LOG: 'off', NO_COLOR: '1' };
    case 'gemini':
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(GEMINI_SETTINGS));
      return isolatedEnv(home, { GOOGLE_GEMINI_BASE_URL: serverUrl, GEMINI_API_KEY: 'scripted-gemini-key', TMPDIR: home });
  }
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
    ...(mcpEcho ? ['[mcp_servers.echo]', 'command = "node"', `args = [${JSON.stringify(join(__dirname, '..', 'capture', 'mcp-echo-server.js'))}]`, ''] : []),
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
