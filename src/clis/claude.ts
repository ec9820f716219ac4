import { homedir } from 'node:os';
import { join } from 'node:path';
import { claudeProfile } from '../providers/claude';
import { claudeTranscript } from '../stores/claude-transcript';
import { claudeResumeBaseline } from '../providers/session-store';
import { claudeControl } from '../protocols/claude-control';
import type { CliDefinition } from './definition';
import { nameValueRecord } from './mcp-servers';
import { WEB_IMAGE_TYPES } from '../wire/prompt-content';

/** Claude Code's config dir: `CLAUDE_CONFIG_DIR`, else `~/.claude`. */
const configDir = (env: NodeJS.ProcessEnv): string => env.CLAUDE_CONFIG_DIR ?? join(env.HOME ?? homedir(), '.claude');
/** Claude Code's session store: `projects` in its config dir. */
const projects = (env: NodeJS.ProcessEnv): string => join(configDir(env), 'projects');

/*
 * Claude Code (`@anthropic-ai/claude-code`). Flags as the pinned version's `--help` has them
 * (2.1.328): flags drift between versions.
 */
export const claude = {
  id: 'claude',
  name: 'Claude Code',
  executable: 'claude',
  install: 'install @anthropic-ai/claude-code',
  npmPackage: '@anthropic-ai/claude-code',
  env: {
    // Claude Code's settings docs ("Environment variables"): ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
    // ANTHROPIC_MODEL…, CLAUDE_CONFIG_DIR, CLAUDE_CODE_* (CLAUDE_CODE_MAX_RETRIES, CLAUDE_CODE_USE_BEDROCK…), and these.
    documented: [
      'ANTHROPIC_*',
      'CLAUDE_*',
      'DISABLE_AUTOUPDATER',
      'DISABLE_TELEMETRY',
      'DISABLE_ERROR_REPORTING',
      'DISABLE_NON_ESSENTIAL_MODEL_CALLS',
      'MAX_THINKING_TOKENS',
      'API_TIMEOUT_MS',
      'BASH_DEFAULT_TIMEOUT_MS',
      'BASH_MAX_TIMEOUT_MS',
      'MCP_TIMEOUT',
    ],
    // Set in every process Claude Code starts; a Claude Code that inherits it refuses to start
    // ("cannot be launched inside another Claude Code session"), so a host run from one could run none.
    drop: ['CLAUDECODE'],
  },
  // Claude Code's authentication docs: a key or token in these, or `claude auth login` (2.1.328's
  // `--help`), which keeps its OAuth credentials in `<config>/.credentials.json` on Linux (the macOS
  // keychain elsewhere, which is not checked). Without either a turn fails "Not logged in · Please run /login".
  auth: {
    keyVariables: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
    login: ['auth', 'login'],
    loginFiles: (env) => [join(configDir(env), '.credentials.json')],
  },
  decode: claudeProfile,
  run: {
    base: ['--print', '--output-format', 'stream-json', '--verbose'],
    model: (model) => ['--model', model],
    permission: {
      default: [],
      'accept-edits': ['--permission-mode', 'acceptEdits'],
      // Refused by Claude Code when run as root.
      bypass: ['--dangerously-skip-permissions'],
      plan: ['--permission-mode', 'plan'],
    },
    allowedTools: (tools) => ['--allowedTools', ...tools],
    resume: (id) => ['--resume', id],
    partial: ['--include-partial-messages'],
    // `--allowedTools` is variadic: without `--` it would swallow the prompt as one more tool.
    prompt: (prompt) => ['--', prompt],
    // `--print` with no prompt argument reads it from stdin.
    promptOnStdin: [],
    // The first result of `claude --resume` already counts the earlier runs.
    resumeBaseline: (id, env) => claudeResumeBaseline(id, projects(env)),
  },
  session: {
    protocolName: 'stream-json control protocol',
    // Deltas always: a session feeds a live view (the other protocols stream text deltas too).
    args: [
      '--print',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--permission-prompt-tool',
      'stdio',
    ],
    model: (model) => ['--model', model],
    resume: (id) => ['--resume', id],
    protocol: claudeControl,
    // `--mcp-config <configs...>` takes JSON strings as well as files, each `{"mcpServers": {<name>:
    // {type, command, args, env} | {type, url, headers}}}` (2.1.328's `--help` and `claude mcp`), added
    // to the user's own servers (no `--strict-mcp-config`). One element with `=`: the option is
    // variadic, and with a separate value the next argument was read as one more config file
    // (measured: `-p --mcp-config '{…}' hello` → "MCP config file not found: …/hello"). Its MCP tools are deferred:
    // the model loads one with `ToolSearch` (`select:mcp__<server>__<tool>`) before calling it.
    mcpServers: {
      kinds: ['stdio', 'http', 'sse'],
      argv: (servers) => [
        `--mcp-config=${JSON.stringify({
          mcpServers: Object.fromEntries(
            servers.map((server) => [
              server.name,
              'type' in server
                ? { type: server.type, url: server.url, headers: nameValueRecord(server.headers) }
                : { type: 'stdio', command: server.command, args: server.args, env: nameValueRecord(server.env) },
            ]),
          ),
        })}`,
      ],
    },
    // A user message's content blocks (`{type:'image', source:{type:'base64'}}`): the Messages API's types.
    imageTypes: WEB_IMAGE_TYPES,
    // Claude Code's model aliases (`--model`'s help: "an alias for the latest model (e.g. 'sonnet'
    // or 'opus')"); its control protocol has `set_model` (2.1.328), answered once the model is switched.
    models: { offered: ['sonnet', 'opus', 'haiku'], switchesRunning: true },
  },
  // `projects/<cwd with every non-alphanumeric character as "-">/<session id>.jsonl`.
  history: { root: projects, depth: 1, file: /^[^.].*\.jsonl$/, format: claudeTranscript },
  tools: {
    Bash: 'execute',
    Read: 'read',
    LS: 'read',
    Write: 'edit',
    Edit: 'edit',
    MultiEdit: 'edit',
    NotebookEdit: 'edit',
    Glob: 'search',
    Grep: 'search',
    WebSearch: 'search',
    WebFetch: 'fetch',
    Task: 'think',
    ExitPlanMode: 'switch_mode',
  },
  planTools: ['TodoWrite'],
} satisfies CliDefinition;
