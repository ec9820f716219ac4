import { homedir } from 'node:os';
import { join } from 'node:path';
import { acpClient } from '../protocols/acp';
import { copilotEvents } from '../stores/copilot-events';
import type { CliDefinition } from './definition';
import { WEB_IMAGE_TYPES } from '../wire/prompt-content';

/** Copilot CLI's config dir: COPILOT_HOME, else `~/.copilot` (`XDG_CONFIG_HOME` does not move it). */
const copilotHome = (env: NodeJS.ProcessEnv): string => env.COPILOT_HOME || join(env.HOME ?? homedir(), '.copilot');

/*
 * GitHub Copilot CLI (`@github/copilot`). Flags as the pinned version's `--help` has them (1.0.102).
 */
export const copilot = {
  id: 'copilot',
  name: 'Copilot CLI',
  executable: 'copilot',
  install: 'install @github/copilot',
  npmPackage: '@github/copilot',
  env: {
    // Copilot CLI's help ("Environment variables"): COPILOT_* (COPILOT_HOME, COPILOT_PROVIDER_*…), GH_TOKEN, GH_HOST.
    // Not GITHUB_TOKEN, which Copilot also reads: in CI it is commonly a token with write access to
    // the repository; an operator who means Copilot to use it names it in `passEnv`.
    documented: ['COPILOT_*', 'GH_TOKEN', 'GH_HOST'],
    drop: [],
  },
  // Its `help environment` (1.0.102): COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN, in that order, or
  // `copilot login` (GitHub's "Authenticating GitHub Copilot CLI"), which keeps the token in the system
  // keychain (service `copilot-cli`) or, with no keychain, in `$COPILOT_HOME/config.json` (`~/.copilot`),
  // a file it writes anyway. The keys 1.0.102's runtime keeps there: `loggedInUsers` (the accounts,
  // wherever their tokens are), `copilotTokens` and `authTokens` (plaintext tokens); one not empty is a
  // login. Without any `copilot --acp` answers `session/new` -32000 "Authentication required". Its BYOK
  // provider (COPILOT_PROVIDER_*) needs no GitHub login, and the key it takes is optional.
  auth: {
    keyVariables: ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'],
    login: ['login'],
    loginFiles: (env) => [
      {
        path: join(copilotHome(env), 'config.json'),
        holds: /"(?:loggedInUsers|copilotTokens|authTokens)"\s*:\s*[[{]\s*["{]/,
      },
    ],
  },
  session: {
    protocolName: 'ACP',
    args: ['--acp'],
    model: (model) => ['--model', model],
    resume: 'protocol',
    // Copilot's prompt answers carry the session's running total of usage. An embedded resource it
    // writes to a file of its home (`acp-resource-<id>.txt`) and only names it to the model, in
    // `<tagged_files>` (1.0.102, seen against the scripted endpoint): resources go as text instead.
    protocol: acpClient({ promptUsage: 'cumulative', resourcesAsText: true }),
    // Its `initialize` (1.0.102): promptCapabilities image and embeddedContext.
    imageTypes: WEB_IMAGE_TYPES,
    // `session/new` and `session/load` carry them as given; its `initialize` answers `mcpCapabilities: {http, sse}`.
    mcpServers: { kinds: ['stdio', 'http', 'sse'], argv: 'protocol' },
  },
  // `<COPILOT_HOME or ~/.copilot>/session-state/<session id>/events.jsonl` (1.0.102: its config dir is
  // `--config-dir`, else COPILOT_HOME, else `~/.copilot`; XDG_CONFIG_HOME does not move it). Beside the
  // events: workspace.yaml, checkpoints, locks. Records: stores/copilot-events.ts.
  history: {
    root: (env) => join(copilotHome(env), 'session-state'),
    depth: 1,
    file: /^events\.jsonl$/,
    format: copilotEvents,
  },
  tools: {
    bash: 'execute',
    view: 'read',
    create: 'edit',
    edit: 'edit',
    str_replace_editor: 'edit',
  },
  planTools: [],
} satisfies CliDefinition;
