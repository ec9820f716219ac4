import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { opencodeProfile } from '../providers/opencode';
import { str } from '../providers/drafts';
import { acpClient } from '../protocols/acp';
import { opencodeLines, opencodeSessions, opencodeStore } from '../stores/opencode-db';
import type { CliDefinition, HistorySetup } from './definition';
import { WEB_IMAGE_TYPES } from '../wire/prompt-content';

/** `$XDG_DATA_HOME`, else `~/.local/share`: where OpenCode and Kilo keep their data (auth.json, sessions). */
export const xdgDataHome = (env: NodeJS.ProcessEnv): string => env.XDG_DATA_HOME || join(env.HOME ?? homedir(), '.local', 'share');

/**
 * Where OpenCode (and Kilo, its fork, with its own names) keeps its sessions: one SQLite database
 * (src/stores/opencode-db.ts), `<data>/<app>.db`, the data dir being `$XDG_DATA_HOME/<app>`, else
 * `~/.local/share/<app>` (its `Global.Path.data`). A release names its database `<app>.db`, another
 * channel `<app>-<channel>.db`; `<app>_DB` (`OPENCODE_DB`, `KILO_DB`) names it instead, an absolute
 * path or one in the data dir (all read from the pinned binaries: 1.18.33, Kilo 7.7.7). Every `.db`
 * file of its folder is asked for sessions: one that is not the CLI's has none.
 */
export function opencodeHistory(app: string, dbVariable: string): HistorySetup {
  const data = (env: NodeJS.ProcessEnv) => join(xdgDataHome(env), app);
  return {
    root: (env) => dirname(resolve(data(env), env[dbVariable] || `${app}.db`)),
    depth: 0,
    file: /\.db$/,
    sessions: opencodeSessions,
    lines: opencodeLines,
    format: opencodeStore(app),
  };
}

/*
 * OpenCode (`opencode-ai`). Flags as the pinned version's `--help` has them (1.18.33).
 */
export const opencode = {
  id: 'opencode',
  name: 'OpenCode',
  executable: 'opencode',
  install: 'install opencode-ai',
  npmPackage: 'opencode-ai',
  env: {
    // OpenCode's docs: OPENCODE_CONFIG, OPENCODE_DISABLE_*…; its providers (the AI SDK's) read their keys and base URLs.
    documented: ['OPENCODE_*', 'ANTHROPIC_*', 'OPENAI_*'],
    drop: [],
  },
  // Its providers' keys, as its bundled models.dev list names them (1.18.33's binary: `opencode`
  // OPENCODE_API_KEY, `anthropic` ANTHROPIC_API_KEY, `openai` OPENAI_API_KEY; any other provider's
  // variable there works too), or `opencode auth login`, which keeps them in
  // `$XDG_DATA_HOME/opencode/auth.json` (the path `opencode auth list` prints). A key in opencode.json's
  // provider options is not seen. Without one its ACP agent answers the prompt -32000 (it maps the AI
  // SDK's LoadAPIKeyError and ProviderAuthError to authRequired).
  auth: {
    keyVariables: ['OPENCODE_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY'],
    login: ['auth', 'login'],
    loginFiles: (env) => [join(xdgDataHome(env), 'opencode', 'auth.json')],
  },
  decode: opencodeProfile,
  session: {
    protocolName: 'ACP',
    args: ['acp'],
    // `opencode acp` has no model flag: the model is opencode.json's `model`.
    model: null,
    resume: 'protocol',
    // OpenCode's first `tool_call` (pending) is titled with the tool's name (`bash`); later titles are the command.
    protocol: acpClient({ toolName: (call) => (call.sessionUpdate === 'tool_call' ? str(call.title) : null) }),
    // `session/new` and `session/load` carry them as given; its `initialize` answers `mcpCapabilities: {http, sse}`.
    mcpServers: { kinds: ['stdio', 'http', 'sse'], argv: 'protocol' },
    // Its `initialize` (1.18.33): promptCapabilities image and embeddedContext.
    imageTypes: WEB_IMAGE_TYPES,
    // Its session answer's `model` config option, switched by `session/set_config_option` (1.18.33).
    models: { switchesRunning: true },
  },
  history: opencodeHistory('opencode', 'OPENCODE_DB'),
  tools: {
    bash: 'execute',
    read: 'read',
    list: 'read',
    write: 'edit',
    edit: 'edit',
    glob: 'search',
    grep: 'search',
    webfetch: 'fetch',
    task: 'think',
  },
  planTools: ['todowrite'],
} satisfies CliDefinition;
