import { CLIS, type CliDefinition } from '../clis';
import { refuseNul } from './flags';
import type { AgentCli } from './types';

/*
 * The environment a CLI starts with. By default it inherits the host's, as `child_process` does: a
 * library called by the host's own code runs the CLI on the host's behalf. A server that runs CLIs
 * for requests must not hand them its secrets (cloud keys, database URLs, CI tokens): the agent
 * runs shell commands a prompt asks for, and can print any variable it sees. With
 * `inheritEnv: false` the CLI sees only an allow-list: what any program needs (`BASE_ENV`), what
 * its CLI's documentation names (its registry file's `env.documented`), and what the operator names (`passEnv`).
 *
 * A name ending in `*` stands for every name it starts (`LC_*`).
 */

/** What any CLI needs to run at all: its paths, locale, terminal, temporary and XDG dirs, certificates and proxies. */
export const BASE_ENV: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'TMPDIR',
  'TMP',
  'TEMP',
  'TZ',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  // Proxies are read in either case (curl's convention, followed by Node's and Rust's HTTP clients).
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
];

/** What decides a CLI's environment: the part of `LaunchOptions` (and so of `RunOptions` and `SessionOptions`) read here. */
export interface EnvironmentOptions {
  /** Environment variables set over the inherited ones (a value of `undefined` removes the variable). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether the CLI inherits the host's whole environment, as `child_process` does; default true.
   * False (for a server running CLIs for requests): only `BASE_ENV`, the CLI's own documented variables, and `passEnv`.
   */
  inheritEnv?: boolean;
  /** With `inheritEnv: false`, more host variables to pass, by name; a name ending in `*` is a prefix (`MYCORP_*`). */
  passEnv?: readonly string[];
}

/**
 * The environment `cli` starts with: the host's (`host`), whole or only its allowed variables
 * (`EnvironmentOptions.inheritEnv`), without what the CLI's registry file drops (`env.drop`: what
 * it must not inherit), with what the registry sets for it (`env.set`), then the caller's `env` over
 * it (which may set either again). Throws a TypeError for an invalid option, and for a NUL byte in
 * the caller's variables (no process can be given one).
 */
export function cliEnvironment(cli: AgentCli, options: EnvironmentOptions, host: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = inherited(cli, options, host);
  const { drop, set = {} }: CliDefinition['env'] = CLIS[cli].env;
  for (const key of drop) delete env[key];
  Object.assign(env, set);
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else {
      refuseNul(`env ${key}`, `${key}${String(value)}`);
      env[key] = String(value);
    }
  }
  return env;
}

/** The host's variables the CLI inherits: all of them, or those the allow-list names. */
function inherited(cli: AgentCli, options: EnvironmentOptions, host: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { inheritEnv = true, passEnv = [] } = options;
  if (typeof inheritEnv !== 'boolean') throw new TypeError(`inheritEnv must be a boolean; got ${JSON.stringify(inheritEnv)}`);
  checkPassEnv(passEnv);
  if (inheritEnv) return { ...host };
  const allowed = [...BASE_ENV, ...CLIS[cli].env.documented, ...passEnv];
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(host)) if (value !== undefined && allowed.some((name) => matches(name, key))) env[key] = value;
  return env;
}

/** Whether `key` is `name`, or starts with its prefix when `name` ends in `*`. */
function matches(name: string, key: string): boolean {
  return name.endsWith('*') ? key.startsWith(name.slice(0, -1)) : key === name;
}

/** `passEnv` names variables: a bare `*` would pass the whole environment (that is `inheritEnv: true`), an empty name nothing. */
function checkPassEnv(passEnv: readonly string[]): void {
  if (!Array.isArray(passEnv)) throw new TypeError('passEnv must be an array of variable names');
  for (const name of passEnv) {
    if (typeof name !== 'string' || name === '' || name === '*') {
      throw new TypeError(
        `passEnv entries must be variable names or prefixes ending in "*" (for every variable, inheritEnv: true); got ${JSON.stringify(name)}`,
      );
    }
  }
}
