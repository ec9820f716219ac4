import { homedir } from 'node:os';
import { extname, join } from 'node:path';
import { piProfile } from '../providers/pi';
import { piRpc } from '../protocols/pi-rpc';
import { piSession } from '../stores/pi-session';
import type { CliDefinition } from './definition';
import { WEB_IMAGE_TYPES } from '../wire/prompt-content';

/** pi's agent dir: `PI_CODING_AGENT_DIR`, else `~/.pi/agent` (0.73.1's config.js). */
const agentDir = (env: NodeJS.ProcessEnv): string => env.PI_CODING_AGENT_DIR || join(env.HOME ?? homedir(), '.pi', 'agent');

/**
 * pi's sessions: `sessions/--<cwd>--/<time>_<id>.jsonl` in its agent dir, `PI_CODING_AGENT_DIR`,
 * else `~/.pi/agent` (0.73.1's config.js). Not read: a session dir chosen by `--session-dir`,
 * `PI_CODING_AGENT_SESSION_DIR` or settings' `sessionDir`, where pi puts the files with no folder per cwd.
 */
const sessions = (env: NodeJS.ProcessEnv): string => join(agentDir(env), 'sessions');

/** The approval extension a session loads, by its absolute path (the .ts in development, the .js in the package). */
const APPROVAL_EXTENSION = join(__dirname, '..', 'protocols', `pi-approval-extension${extname(__filename)}`);

/*
 * pi (`@mariozechner/pi-coding-agent`). Flags as the pinned version's `--help` has them (0.73.1).
 * Its default provider is Google: a model is best named as `provider/id` (`--model` takes both).
 */
/** The keys of pi's providers other than Anthropic's and OpenAI's (its `--help`, "Environment Variables"). */
const OTHER_PROVIDER_KEYS = [
  'GEMINI_API_KEY',
  'DEEPSEEK_API_KEY',
  'GROQ_API_KEY',
  'CEREBRAS_API_KEY',
  'XAI_API_KEY',
  'FIREWORKS_API_KEY',
  'OPENROUTER_API_KEY',
  'AI_GATEWAY_API_KEY',
  'ZAI_API_KEY',
  'MISTRAL_API_KEY',
  'MINIMAX_API_KEY',
];

export const pi = {
  id: 'pi',
  name: 'pi',
  executable: 'pi',
  install: 'install @mariozechner/pi-coding-agent',
  npmPackage: '@mariozechner/pi-coding-agent',
  env: {
    // pi's `--help` ("Environment Variables") and docs: PI_CODING_AGENT_DIR, PI_OFFLINE…, and each
    // provider's key (ANTHROPIC_API_KEY, OPENAI_API_KEY, AZURE_OPENAI_*, GEMINI_API_KEY, GROQ_API_KEY…).
    documented: ['PI_*', 'ANTHROPIC_*', 'OPENAI_*', 'AZURE_OPENAI_*', ...OTHER_PROVIDER_KEYS],
    drop: [],
  },
  // Its `--help` ("Environment Variables": each provider's key) and docs/providers.md: `/login` in its
  // interactive mode (no command of its own to launch) keeps keys and OAuth tokens in `auth.json` in
  // its agent dir (PI_CODING_AGENT_DIR, else `~/.pi/agent`); a key in models.json is not seen.
  auth: {
    keyVariables: ['ANTHROPIC_API_KEY', 'ANTHROPIC_OAUTH_TOKEN', 'OPENAI_API_KEY', 'AZURE_OPENAI_API_KEY', ...OTHER_PROVIDER_KEYS],
    login: null,
    loginFiles: (env) => [join(agentDir(env), 'auth.json')],
  },
  decode: piProfile,
  run: {
    // `--offline`: no update or package checks at start.
    base: ['--offline', '--mode', 'json', '--print'],
    model: (model) => ['--model', model],
    permission: {
      // pi never asks before a tool (only an extension can): its default already applies edits and
      // runs commands unasked, as accept-edits and bypass ask…
      default: [],
      'accept-edits': [],
      bypass: [],
      // …and a read-only tool set stands for plan mode (its `--help` example of a read-only run).
      plan: ['--tools', 'read,grep,find,ls'],
    },
    // `--tools` is an allow-list: the tools it names are the only ones the model gets.
    allowedTools: (tools) => ['--tools', tools.join(',')],
    resume: (id) => ['--session', id],
    // `--mode json` always streams deltas.
    partial: [],
    // pi has no `--`: an argument starting with `-` is read as a flag and one starting with `@` as a
    // file to attach, so such a prompt gets a leading space (nothing else changes it).
    prompt: (prompt) => [/^[-@]/.test(prompt) ? ` ${prompt}` : prompt],
    // With stdin not a terminal, `pi -p` reads it to its end as the prompt.
    promptOnStdin: [],
  },
  session: {
    protocolName: 'pi RPC',
    // The approval extension: without it pi runs every tool unasked.
    args: ['--offline', '--mode', 'rpc', '--extension', APPROVAL_EXTENSION],
    model: (model) => ['--model', model],
    resume: (id) => ['--session', id],
    protocol: piRpc,
    // pi has no MCP client (by design: extensions instead).
    mcpServers: null,
    // The RPC `prompt` command's `images` (docs/rpc.md of 0.73.1).
    imageTypes: WEB_IMAGE_TYPES,
  },
  history: { root: sessions, depth: 1, file: /^[^.].*\.jsonl$/, format: piSession },
  tools: {
    bash: 'execute',
    read: 'read',
    ls: 'read',
    write: 'edit',
    edit: 'edit',
    grep: 'search',
    find: 'search',
  },
  planTools: [],
} satisfies CliDefinition;
