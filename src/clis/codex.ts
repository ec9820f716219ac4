import { homedir } from 'node:os';
import { join } from 'node:path';
import { codexProfile } from '../providers/codex';
import { codexRollout } from '../stores/codex-rollout';
import { codexResumeBaseline } from '../providers/session-store';
import { codexAppServer } from '../protocols/codex-app-server';
import type { JsonObject } from '../schema/json';
import type { CliDefinition } from './definition';
import { nameValueRecord } from './mcp-servers';
import { WEB_IMAGE_TYPES } from '../wire/prompt-content';

/** Codex's session store: `sessions` in `CODEX_HOME`, else in `~/.codex`. */
/** Codex's home: `CODEX_HOME`, else `~/.codex`. */
const home = (env: NodeJS.ProcessEnv): string => env.CODEX_HOME ?? join(env.HOME ?? homedir(), '.codex');
const sessions = (env: NodeJS.ProcessEnv): string => join(home(env), 'sessions');

/*
 * Codex (`@openai/codex`). Flags as the pinned version's `--help` has them (0.169.0): flags drift
 * between versions (`codex exec --full-auto` is gone in 0.169).
 */
export const codex = {
  id: 'codex',
  name: 'Codex',
  executable: 'codex',
  install: 'install @openai/codex',
  npmPackage: '@openai/codex',
  env: {
    // Codex's config docs: OPENAI_API_KEY (a model provider's `env_key`), OPENAI_BASE_URL, CODEX_HOME;
    // RUST_LOG sets its log level (the e2e setup turns it off).
    documented: ['OPENAI_*', 'CODEX_*', 'RUST_LOG'],
    drop: [],
  },
  // Codex's auth docs: `OPENAI_API_KEY` (the default provider's `env_key`; `CODEX_API_KEY` for
  // `codex exec`), or `codex login`, which writes `<CODEX_HOME>/auth.json`. Without either its model
  // requests fail 401.
  auth: {
    keyVariables: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
    login: ['login'],
    loginFiles: (env) => [join(home(env), 'auth.json')],
  },
  decode: codexProfile,
  run: {
    // Outside a git repository `codex exec` refuses to run without --skip-git-repo-check.
    base: ['exec', '--json', '--skip-git-repo-check'],
    model: (model) => ['--model', model],
    permission: {
      default: [],
      'accept-edits': ['--sandbox', 'workspace-write'],
      bypass: ['--dangerously-bypass-approvals-and-sandbox'],
      plan: ['--sandbox', 'read-only'],
    },
    allowedTools: null,
    // `codex exec resume <id> <prompt>`: a subcommand, so it goes right before the prompt.
    resume: (id) => ['resume', id],
    // `--json` has no text deltas.
    partial: [],
    prompt: (prompt) => ['--', prompt],
    // `codex exec -` reads the prompt from stdin.
    promptOnStdin: ['-'],
    // The first `turn.completed` of `codex exec resume` already counts the earlier runs.
    resumeBaseline: (id, env) => codexResumeBaseline(id, sessions(env)),
  },
  session: {
    protocolName: 'app-server (JSON-RPC)',
    args: ['app-server'],
    model: 'protocol',
    // `thread/resume` instead of `thread/start` (codex-app-server.ts).
    resume: 'protocol',
    // `thread/start`'s (and `thread/resume`'s) `config`: overrides of config.toml by dotted key, one
    // `mcp_servers.<name>` each (the user's own servers stay); in the protocol rather than `-c` on
    // argv, where a server's env and headers (tokens) would be visible to every process. Codex
    // 0.169 speaks stdio and streamable HTTP, not SSE. It declares MCP tools in a namespace
    // `mcp__<server>` the model finds with `tool_search` first.
    protocol: codexAppServer({
      mcpConfig: (servers) =>
        Object.fromEntries(
          servers.map((server): [string, JsonObject] => [
            `mcp_servers.${server.name}`,
            'type' in server
              ? { url: server.url, http_headers: nameValueRecord(server.headers) }
              : { command: server.command, args: [...server.args], env: nameValueRecord(server.env) },
          ]),
        ),
    }),
    mcpServers: { kinds: ['stdio', 'http'], argv: 'protocol' },
    // `turn/start` input `{type:'image', url:'data:…'}` (0.169's generated schema: `UserInput`); the Responses API's types.
    imageTypes: WEB_IMAGE_TYPES,
    // Its models from `model/list`; `turn/start` takes a model "for this turn and subsequent turns" (0.169's schema).
    models: { switchesRunning: true },
  },
  // `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, `codex exec` sessions among them.
  history: { root: sessions, depth: 3, file: /^rollout-.*\.jsonl$/, format: codexRollout },
  // `exec --json` names its items in snake_case, the app-server in camelCase.
  tools: {
    command_execution: 'execute',
    commandExecution: 'execute',
    file_change: 'edit',
    fileChange: 'edit',
    web_search: 'search',
    webSearch: 'search',
  },
  planTools: ['todo_list'],
} satisfies CliDefinition;
