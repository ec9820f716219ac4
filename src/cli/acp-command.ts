// The package root first: it loads reflect-metadata before any decorated class.
import { serveAcpAgent } from '../index';
import { spawn } from 'node:child_process';
import { loginCommand, noCliFound } from '../projections/acp/auth';
import { cliEnvironment } from '../runner/environment';
import { installedClis } from '../sessions/installed-clis';
import type { SessionOptions, SessionProvider } from '../sessions/types';
import { ExecutableNotFoundError } from '../runner/errors';
import { resolveExecutable } from '../runner/executable';
import { CLIS } from '../clis';
import type { CliIo } from './io';
import { packageVersion } from './package-version';
import type { AcpCommandOptions } from './session-command';

/** Exit code when the CLI's executable is missing, as for `run`. */
const NOT_FOUND_EXIT_CODE = 127;

/**
 * `acp [--provider <p>] [options]`: an Agent Client Protocol agent on stdin and stdout, for an editor
 * (Zed, JetBrains, Neovim) to launch. Each ACP session is a session of the provider's CLI, its
 * history kept in `historyDir` (the default when absent) for `session/load`. Without a provider,
 * each session offers the registry's CLIs found on PATH as its `cli` option, the first by default.
 * Ends at the end of its input, once every session is closed: exit 0; 127 when the provider's CLI is
 * not installed. Without a provider and with no CLI installed it still serves (its `initialize` says
 * what to install; sessions are refused).
 */
export async function acpCommand(options: AcpCommandOptions, io: CliIo, historyDir?: string, login = false): Promise<number> {
  const { provider, cwd: _cwd, ...session } = options;
  // Checked now: an editor shows a command that exits at once with its stderr, not a session that fails later.
  let first: SessionProvider | undefined = provider;
  if (provider === undefined) {
    first = installedClis()[0];
    // Served all the same: `initialize` says what to install (the ACP registry launches the agent on a bare machine).
    if (first === undefined) io.stderr.write(`cli-subprocess-core: ${noCliFound()}\n`);
  } else {
    try {
      resolveExecutable(options.executable ?? CLIS[provider].executable, provider, process.env.PATH, process.cwd());
    } catch (error) {
      if (!(error instanceof ExecutableNotFoundError)) throw error;
      io.stderr.write(`cli-subprocess-core: ${error.message}\n`);
      return NOT_FOUND_EXIT_CODE;
    }
  }
  // Without a provider, the login is the default CLI's (the one `authMethods` describes).
  if (login) {
    if (first === undefined) return 2;
    return runLogin({ ...options, provider: first }, io);
  }
  // The version an editor shows, and the ACP registry's entry names.
  await serveAcpAgent(
    { provider, session, historyDir, agentInfo: { name: 'cli-subprocess-core', version: packageVersion() } },
    io.stdin,
    io.stdout,
  );
  return 0;
}

/**
 * `acp --login`: the CLI's own login command in this terminal (the agent's `terminal` auth method:
 * the editor runs the agent's command with this flag), with the environment a session would get.
 * Exits with its code; 2 when the CLI has no login command.
 */
function runLogin(options: SessionOptions, io: CliIo): Promise<number> {
  const argv = loginCommand(options.provider);
  if (argv === null) {
    io.stderr.write(`cli-subprocess-core: ${CLIS[options.provider].name} has no login command\n`);
    return Promise.resolve(2);
  }
  const child = spawn(options.executable ?? CLIS[options.provider].executable, [...argv], {
    stdio: 'inherit',
    env: cliEnvironment(options.provider, options),
  });
  return new Promise((resolve) => {
    child.on('error', (error) => {
      io.stderr.write(`cli-subprocess-core: ${error.message}\n`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}
