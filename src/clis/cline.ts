import { homedir } from 'node:os';
import { join } from 'node:path';
import { clineProfile } from '../providers/cline';
import { str } from '../providers/drafts';
import { acpClient } from '../protocols/acp';
import { clineLines, clineSession } from '../stores/cline-session';
import type { CliDefinition } from './definition';
import { WEB_IMAGE_TYPES } from '../wire/prompt-content';

/** Cline's data dir, as 3.0.65's binary finds it: `CLINE_DATA_DIR`, else `data` in its config dir, `CLINE_DIR`, else `~/.cline`. */
const dataDir = (env: NodeJS.ProcessEnv): string =>
  env.CLINE_DATA_DIR || join(env.CLINE_DIR || join(env.HOME ?? homedir(), '.cline'), 'data');

/** Cline's sessions dir: `CLINE_SESSION_DATA_DIR`, else `sessions` in its data dir. */
const sessions = (env: NodeJS.ProcessEnv): string => env.CLINE_SESSION_DATA_DIR || join(dataDir(env), 'sessions');

/*
 * Cline (`cline`). Flags as the pinned version's `--help` has them (3.0.65).
 */
export const cline = {
  id: 'cline',
  name: 'Cline',
  executable: 'cline',
  install: 'install cline',
  npmPackage: 'cline',
  env: {
    // Its own: CLINE_PROVIDER and CLINE_API_KEY (the provider and key of a run), CLINE_DIR and CLINE_DATA_DIR (its
    // config and state, ~/.cline), CLINE_HUB_PORT…; the providers `cline auth` saves are in its config dir.
    documented: ['CLINE_*'],
    drop: [],
    set: {
      // Without it a run's first prompt starts a hub daemon (`cline --cline-hub-daemon`, port 25463 or
      // CLINE_HUB_PORT) that outlives the run; `local` runs the session in the process itself (not in its --help).
      CLINE_SESSION_BACKEND_MODE: 'local',
      // No background update check or install after the answer.
      CLINE_NO_AUTO_UPDATE: '1',
    },
  },
  // Its README ("Environment variables"): a key for the provider a run picks (CLINE_API_KEY for any,
  // with CLINE_PROVIDER; ANTHROPIC_API_KEY, OPENAI_API_KEY…), or `cline auth` (its interactive sign-in:
  // Cline, ChatGPT subscription, OCA or an API key), which saves the provider in
  // `<data dir>/settings/providers.json` (CLINE_DATA_DIR, else `data` in CLINE_DIR, else `~/.cline`).
  // Without one `cline --acp` answers `session/new` -32000 "Call authenticate before starting a session".
  auth: {
    keyVariables: ['CLINE_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENROUTER_API_KEY', 'AI_GATEWAY_API_KEY', 'V0_API_KEY'],
    login: ['auth'],
    loginFiles: (env) => [join(dataDir(env), 'settings', 'providers.json')],
  },
  decode: clineProfile,
  run: {
    base: ['--json'],
    model: (model) => ['--model', model],
    // Its tools run unasked by default (`--auto-approve true`); `--plan` is its plan mode.
    permission: { default: [], bypass: ['--auto-approve', 'true'], plan: ['--plan'] },
    allowedTools: null,
    // `--id` opens the interactive TUI, which `--json` refuses ("JSON output mode requires a prompt argument").
    resume: null,
    // `--json` prints the text as it streams.
    partial: [],
    // The prompt is a positional; after `--` a prompt starting with "-" stays the prompt.
    prompt: (prompt) => ['--', prompt],
    // `--json` wants the prompt as an argument: with none it fails, and with one it ignores stdin.
    promptOnStdin: null,
  },
  session: {
    protocolName: 'ACP',
    args: ['--acp'],
    model: null,
    // `session/load` (its `loadSession` capability); the history it replays stays raw.
    resume: 'protocol',
    // Its tool calls are titled `<tool>: <what>` (`run_commands: touch made-by-tool.txt`): the name is the tool's.
    protocol: acpClient({ toolName: (call) => /^([a-z_]+):/.exec(str(call.title) ?? '')?.[1] ?? null }),
    // `session/new` and `session/load` carry them as given; its `initialize` answers no `mcpCapabilities`: stdio only.
    mcpServers: { kinds: ['stdio'], argv: 'protocol' },
    // Its `initialize` (3.0.65): promptCapabilities image, not embeddedContext (resources go as text).
    imageTypes: WEB_IMAGE_TYPES,
    // Its session answer's `model` config option, switched by `session/set_config_option`.
    models: { switchesRunning: true },
  },
  // `sessions/<id>/<id>.json` (the session) beside `<id>.messages.json` (its messages).
  history: { root: sessions, depth: 1, file: /^[^.]+\.json$/, lines: clineLines, format: clineSession },
  tools: {
    run_commands: 'execute',
    read_files: 'read',
    editor: 'edit',
    search_codebase: 'search',
    fetch_web_content: 'fetch',
    spawn_agent: 'think',
  },
  planTools: [],
} satisfies CliDefinition;
