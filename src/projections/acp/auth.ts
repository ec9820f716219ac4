import { existsSync, readFileSync } from 'node:fs';
import { CLIS, SESSION_CLI_IDS } from '../../clis';
import type { CliAuth, CliDefinition, LoginFile } from '../../clis/definition';
import type { JsonObject } from '../../schema/json';
import type { SessionProvider } from '../../sessions/types';

/*
 * The ACP agent's authentication (ACP's `authMethods` and `authenticate`), from what each CLI's
 * registry file says of its credentials (`CliDefinition.auth`): the agent does not log in itself,
 * it says what the CLI needs and checks it is there. A turn that fails for want of it is answered
 * with ACP's "authentication required" (the projector, from the decoders' `auth` error code).
 */

/** The `agent` method: `authenticate` checks the CLI's credentials where the agent runs. */
export const AGENT_AUTH_METHOD = 'cli-credentials';
/** The `terminal` method: the client runs the agent with `LOGIN_FLAG`, which runs the CLI's login. */
export const TERMINAL_AUTH_METHOD = 'cli-login';
/** The `acp` command's flag that runs the CLI's own login command in the terminal instead of the agent. */
export const LOGIN_FLAG = '--login';

/** The CLI's credentials as its registry file gives them (null: not known here). */
const authOf = (provider: SessionProvider): CliAuth | null => (CLIS[provider] as CliDefinition).auth ?? null;

/** What the CLI needs, for the user: its key's variables, or its login command. */
function needs(provider: SessionProvider): string {
  const cli = CLIS[provider];
  const auth = authOf(provider);
  if (!auth) return `${cli.name} uses the credentials its documentation names (${cli.env.documented.join(', ')}) or its own login`;
  const variables = auth.keyVariables.join(' or ');
  const login = auth.login === null ? '' : `, or log in once with \`${[cli.executable, ...auth.login].join(' ')}\``;
  return `${cli.name} needs ${variables} set in the agent's environment${login}`;
}

/**
 * The `authMethods` of `initialize`: always the `agent` method; the `terminal` one too when the CLI
 * has a login command and the client said it can run one (`clientCapabilities.auth.terminal`).
 */
export function authMethods(provider: SessionProvider, clientCanRunTerminal: boolean): JsonObject[] {
  const methods: JsonObject[] = [{ id: AGENT_AUTH_METHOD, name: `${CLIS[provider].name} credentials`, description: `${needs(provider)}.` }];
  const login = authOf(provider)?.login;
  if (clientCanRunTerminal && login)
    methods.push({
      type: 'terminal',
      id: TERMINAL_AUTH_METHOD,
      name: `Log in to ${CLIS[provider].name}`,
      description: `Runs \`${[CLIS[provider].executable, ...login].join(' ')}\` in a terminal.`,
      args: [LOGIN_FLAG],
    });
  return methods;
}

/**
 * Why the CLI cannot work in `env` (no key variable set and no login file), checked without a
 * network; null when it has its credentials, or when nothing here can tell.
 */
export function missingCredentials(provider: SessionProvider, env: NodeJS.ProcessEnv): string | null {
  const auth = authOf(provider);
  if (!auth) return null;
  if (auth.keyVariables.some((name) => (env[name] ?? '') !== '')) return null;
  if (auth.loginFiles(env).some(holdsLogin)) return null;
  return `${CLIS[provider].name} is not logged in: ${needs(provider)}`;
}

/** Whether a login file is there (and, for one the CLI always keeps, holds the login). */
function holdsLogin(file: string | LoginFile): boolean {
  if (typeof file === 'string') return existsSync(file);
  try {
    return file.holds.test(readFileSync(file.path, 'utf8'));
  } catch {
    // Absent or unreadable: no login seen there.
    return false;
  }
}

/** The CLI's login command (the argv after its executable), or null when it has none. */
export const loginCommand = (provider: SessionProvider): readonly string[] | null => authOf(provider)?.login ?? null;

/**
 * Why a provider-less agent can run nothing: no CLI of the registry is on `PATH`; what to install.
 * Such an agent still answers `initialize` (an editor, or the ACP registry's launch check, then
 * shows this as its auth method) and refuses sessions with it.
 */
export function noCliFound(): string {
  const clis = SESSION_CLI_IDS.map((id) => `${CLIS[id].name} (${CLIS[id].install})`);
  return `No agent CLI found on PATH: install one of ${clis.join(', ')}, then give it its credentials`;
}

/** The `authMethods` of a provider-less agent with no CLI installed: the `agent` method, saying what to install. */
export function noCliAuthMethods(): JsonObject[] {
  return [{ id: AGENT_AUTH_METHOD, name: 'An agent CLI', description: `${noCliFound()}.` }];
}
