import type { SessionSetup } from '../clis';
import { refuseFlagLike } from '../runner/argument-value';
import type { McpServer, SessionProvider } from './types';

/**
 * The argv of `cli` (a CLI's registry `session` setup) for a session with `model`, `resume` and
 * `mcpServers` (checked ones: `checkMcpServers`): a TypeError when the CLI cannot take one, or when
 * a model or session id would be read as a flag (`refuseFlagLike`).
 */
export function sessionArgv(
  provider: SessionProvider,
  cli: SessionSetup,
  model: string | undefined,
  resume: string | undefined,
  mcpServers: readonly McpServer[] = [],
): string[] {
  // Checked whichever way the CLI takes them, the protocol's included: one rule on every path.
  if (model) refuseFlagLike('model', model);
  if (resume) refuseFlagLike('resume', resume);
  const argv = [...cli.args];
  if (model && cli.model !== 'protocol') {
    if (!cli.model) throw new TypeError(`${provider} takes no model option in a session: set it in the CLI's own configuration`);
    argv.push(...cli.model(model));
  }
  if (resume && cli.resume !== 'protocol') {
    if (!cli.resume) throw new TypeError(`${provider} sessions cannot be resumed`);
    argv.push(...cli.resume(resume));
  }
  if (mcpServers.length > 0 && cli.mcpServers && cli.mcpServers.argv !== 'protocol') argv.push(...cli.mcpServers.argv(mcpServers));
  return argv;
}
