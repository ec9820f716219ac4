import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { qwenProfile } from '../providers/qwen';
import { qwenChat } from '../stores/qwen-chat';
import { acpClient } from '../protocols/acp';
import type { CliDefinition } from './definition';
import { gemini } from './gemini';
import { WEB_IMAGE_TYPES } from '../wire/prompt-content';

/** Qwen Code's config dir: QWEN_HOME, else `~/.qwen` (0.15.10's `Storage.getGlobalQwenDir`). */
const qwenHome = (env: NodeJS.ProcessEnv): string => resolve(env.QWEN_HOME || join(env.HOME ?? homedir(), '.qwen'));

/*
 * Qwen Code (`@qwen-code/qwen-code`), a fork of Gemini CLI whose `-o stream-json` output has Claude
 * Code's shape. Flags as the pinned version's `--help` has them (0.15.10).
 */
export const qwen = {
  id: 'qwen',
  name: 'Qwen Code',
  executable: 'qwen',
  install: 'install @qwen-code/qwen-code',
  npmPackage: '@qwen-code/qwen-code',
  env: {
    // Qwen Code's docs: its openai auth reads OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL; QWEN_HOME,
    // QWEN_CODE_*…; DASHSCOPE_API_KEY and DASHSCOPE_BASE_URL for Alibaba's endpoint.
    documented: ['QWEN_*', 'OPENAI_*', 'DASHSCOPE_*'],
    drop: [],
  },
  // 0.15.10's auth types read their key from these (DEFAULT_ENV_KEYS, packages/cli/src/config/auth.ts:
  // openai, anthropic, gemini, vertex-ai), or `qwen auth` (its `--help`: OpenRouter, Coding Plan, API
  // key or Qwen OAuth, chosen interactively). Qwen OAuth keeps `oauth_creds.json` in its config dir
  // (QWEN_HOME, else `~/.qwen`); the other choices write the key into settings.json
  // (`security.auth.apiKey`, or a provider's `apiKey`), seen when there. Without a key `qwen --acp`
  // answers `session/new` -32000 ("Missing API key for openai auth…").
  auth: {
    keyVariables: ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    login: ['auth'],
    loginFiles: (env) => [
      join(qwenHome(env), 'oauth_creds.json'),
      { path: join(qwenHome(env), 'settings.json'), holds: /"apiKey"\s*:\s*"[^"]/ },
    ],
  },
  decode: qwenProfile,
  session: {
    protocolName: 'ACP',
    args: ['--acp'],
    model: (model) => ['--model', model],
    resume: 'protocol',
    // Qwen Code names the tool in `_meta.toolName` (read for every agent).
    protocol: acpClient(),
    // `session/new` and `session/load` carry them as given; its `initialize` answers `mcpCapabilities: {http, sse}`.
    mcpServers: { kinds: ['stdio', 'http', 'sse'], argv: 'protocol' },
    // Its `initialize` (0.15.10): promptCapabilities image, audio and embeddedContext.
    imageTypes: WEB_IMAGE_TYPES,
    // Its session answer's `model` config option, switched by `session/set_config_option`.
    models: { switchesRunning: true },
    // Qwen Code 0.15.10 writes a turn's answer to its session file after answering the prompt, and
    // exits at end of input without waiting for the write: closed at once, the file lacked the
    // answer; 50 ms later it had it.
    savesTurnWithinMs: 500,
  },
  // `<runtime dir>/projects/<cwd slug>/chats/<session id>.jsonl` (0.15.10's `Storage`): the runtime
  // dir is QWEN_RUNTIME_DIR, else QWEN_HOME (the config dir), else `~/.qwen`. The slug is the cwd with
  // every non-alphanumeric character a `-` (lossy: the records hold the cwd). Records: stores/qwen-chat.ts.
  history: {
    root: (env) => join(resolve(env.QWEN_RUNTIME_DIR || qwenHome(env)), 'projects'),
    depth: 2,
    file: /^[0-9a-f-]+\.jsonl$/,
    format: qwenChat,
  },
  // Gemini CLI's tools, kept by the fork.
  tools: gemini.tools,
  planTools: ['todo_write'],
} satisfies CliDefinition;
