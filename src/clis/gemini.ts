import { homedir } from 'node:os';
import { join } from 'node:path';
import { geminiProfile } from '../providers/gemini';
import { geminiChat, geminiChatLines } from '../stores/gemini-chat';
import { str } from '../providers/drafts';
import { acpClient } from '../protocols/acp';
import type { CliDefinition } from './definition';
import { WEB_IMAGE_TYPES } from '../wire/prompt-content';

/** Gemini CLI's `.gemini` dir, in GEMINI_CLI_HOME (which stands for the home), else in HOME (0.61.0's `homedir()`). */
const geminiDir = (env: NodeJS.ProcessEnv): string => join(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini');

/*
 * Gemini CLI (`@google/gemini-cli`). Flags as the pinned version's `--help` has them (0.61.0).
 */
export const gemini = {
  id: 'gemini',
  name: 'Gemini CLI',
  executable: 'gemini',
  install: 'install @google/gemini-cli',
  npmPackage: '@google/gemini-cli',
  env: {
    // Gemini CLI's authentication and configuration docs: GEMINI_API_KEY, GEMINI_MODEL, GOOGLE_API_KEY,
    // GOOGLE_CLOUD_PROJECT, GOOGLE_APPLICATION_CREDENTIALS, GOOGLE_GEMINI_BASE_URL, CODE_ASSIST_ENDPOINT.
    documented: ['GEMINI_*', 'GOOGLE_*', 'CODE_ASSIST_ENDPOINT'],
    drop: [],
  },
  // Gemini CLI's authentication docs: a Gemini API key, or a Vertex AI one; its Google login has no
  // command of its own (the interactive `gemini` asks), and keeps `~/.gemini/oauth_creds.json`.
  auth: {
    keyVariables: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    login: null,
    loginFiles: (env) => [join(geminiDir(env), 'oauth_creds.json')],
  },
  decode: geminiProfile,
  run: {
    base: ['--output-format', 'stream-json'],
    model: (model) => ['--model', model],
    permission: {
      default: [],
      'accept-edits': ['--approval-mode', 'auto_edit'],
      bypass: ['--yolo'],
      plan: ['--approval-mode', 'plan'],
    },
    allowedTools: (tools) => ['--allowed-tools', ...tools],
    resume: (id) => ['--resume', id],
    // Gemini CLI always streams text as deltas.
    partial: [],
    // `-p` takes the prompt as its value; a value starting with "-" would be read as a flag, `=` keeps it one value.
    prompt: (prompt) => [`--prompt=${prompt}`],
    // Without `--prompt`, with stdin not a terminal, Gemini CLI runs headless on what stdin holds.
    promptOnStdin: [],
    // No resumeBaseline: Gemini CLI counts each process's usage afresh.
  },
  session: {
    protocolName: 'ACP',
    args: ['--acp'],
    model: (model) => ['--model', model],
    // Gemini CLI 0.61.0 offers `session/load`, but it starts recording the session it loads before
    // reading it, which overwrites the saved conversation: the load fails ("No previous sessions
    // found") and the session is lost. Not offered until a Gemini CLI that loads what it saved.
    resume: null,
    // Gemini names a tool call after its tool: `run_shell_command__run_shell_command_1796…_0`.
    protocol: acpClient({ toolName: (call) => /^([A-Za-z0-9_.-]+?)__/.exec(str(call.toolCallId) ?? '')?.[1] ?? null }),
    // `session/new` and `session/load` carry them as given; its `initialize` answers `mcpCapabilities: {http, sse}`.
    mcpServers: { kinds: ['stdio', 'http', 'sse'], argv: 'protocol' },
    // Its `initialize` (0.61.0): promptCapabilities image, audio and embeddedContext.
    imageTypes: WEB_IMAGE_TYPES,
    // Its session answer's `models` (ACP's unstable `SessionModelState`), switched by `session/set_model` (0.61.0).
    models: { switchesRunning: true },
  },
  // `<GEMINI_CLI_HOME or HOME>/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` (0.61.0; older
  // versions: `.json` documents, still read by 0.61): GEMINI_CLI_HOME stands for the home, not for
  // `.gemini` (0.61.0's `homedir()`). `<project>` is the cwd's basename, lower-cased (`projects.json`
  // maps it), beside it `.project_root` holds the cwd. Format and record shapes: stores/gemini-chat.ts.
  history: {
    root: (env) => join(geminiDir(env), 'tmp'),
    depth: 2,
    file: /^session-.*\.jsonl?$/,
    format: geminiChat,
    lines: geminiChatLines,
  },
  tools: {
    run_shell_command: 'execute',
    read_file: 'read',
    read_many_files: 'read',
    list_directory: 'read',
    write_file: 'edit',
    replace: 'edit',
    edit: 'edit',
    glob: 'search',
    search_file_content: 'search',
    grep_search: 'search',
    google_web_search: 'search',
    web_fetch: 'fetch',
  },
  planTools: ['write_todos'],
} satisfies CliDefinition;
