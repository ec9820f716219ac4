import { join } from 'node:path';
import type { ProviderProfile } from '../providers/profile';
import { opencodeProfile, type OpencodeState } from '../providers/opencode';
import type { CliDefinition } from './definition';
import { opencode, opencodeHistory, xdgDataHome } from './opencode';

/*
 * Kilo Code (`@kilocode/cli`), a fork of OpenCode. Flags as the pinned version's `--help` has them
 * (7.7.7); 7.8.1 does not install (its postinstall wants a platform package the registry lacks).
 */

/**
 * `kilo run --format json` prints OpenCode's lines unchanged (`step_start`, `text`, `reasoning`,
 * `tool_use`, `step_finish`, `error`; 7.7.7 prints no `done`). Nothing on a first line tells the
 * two apart (only a later `step_finish` adds `metrics`), so detection leaves every such line to
 * OpenCode: a caller who knows the output is Kilo's says `kilo`.
 */
const kiloProfile: ProviderProfile<OpencodeState> = { ...opencodeProfile, id: 'kilo', detect: () => false };

export const kilo = {
  id: 'kilo',
  name: 'Kilo Code',
  executable: 'kilo',
  install: 'install @kilocode/cli',
  npmPackage: '@kilocode/cli',
  env: {
    // Kilo's docs: KILO_CONFIG, KILO_CONFIG_CONTENT, KILO_DISABLE_*…; its providers (the AI SDK's) read their keys and base URLs.
    documented: ['KILO_*', 'ANTHROPIC_*', 'OPENAI_*', 'OPENROUTER_*'],
    drop: [],
    set: {
      // Without it `kilo` talks to (and may start) the local kilo daemon, which outlives the run.
      KILO_NO_DAEMON: '1',
      // No telemetry, update check or session upload to Kilo's servers after the answer.
      KILO_TELEMETRY_LEVEL: 'off',
      KILO_DISABLE_AUTOUPDATE: '1',
      KILO_DISABLE_SESSION_INGEST: '1',
    },
  },
  // OpenCode's: its providers' keys (7.7.7's models list: `kilo`, the Kilo Gateway, KILO_API_KEY;
  // ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY…), or `kilo auth login`, which keeps them in
  // `$XDG_DATA_HOME/kilo/auth.json` (what `kilo auth list` prints). Its ACP agent answers a prompt
  // without them -32000, as OpenCode's does.
  auth: {
    keyVariables: ['KILO_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENROUTER_API_KEY'],
    login: ['auth', 'login'],
    loginFiles: (env) => [join(xdgDataHome(env), 'kilo', 'auth.json')],
  },
  decode: kiloProfile,
  run: {
    // `--thinking`: without it `--format json` prints no `reasoning` parts.
    base: ['run', '--format', 'json', '--thinking'],
    model: (model) => ['--model', model],
    permission: {
      // 7.7.7's built-in defaults allow every tool (`"*": "allow"`) but a few (reading `.env`, other
      // directories): its default already applies edits unasked, as accept-edits asks.
      default: [],
      'accept-edits': [],
      // `--auto` approves every permission its config does not deny; without it `run` rejects what would be asked.
      bypass: ['--auto'],
      // Its built-in `plan` agent may edit nothing but its plan files.
      plan: ['--agent', 'plan'],
    },
    allowedTools: null,
    resume: (id) => ['--session', id],
    // `--format json` prints whole parts: no text deltas.
    partial: [],
    // The message is a positional; after `--` a prompt starting with "-" stays the message.
    prompt: (prompt) => ['--', prompt],
    // With no message and stdin not a terminal, `kilo run` reads the message from stdin.
    promptOnStdin: [],
    // No resumeBaseline: `step_finish` counts each step's tokens, not the session's.
  },
  session: {
    ...opencode.session,
    args: ['acp'],
  },
  // OpenCode's database, as `$XDG_DATA_HOME/kilo/kilo.db` (`KILO_DB`), with the same tables.
  history: opencodeHistory('kilo', 'KILO_DB'),
  tools: opencode.tools,
  planTools: opencode.planTools,
} satisfies CliDefinition;
