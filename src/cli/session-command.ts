// The package root first: it loads reflect-metadata before any decorated class.
import { startSession, type Session, type SessionOptions } from '../index';
import { splitLines } from '../providers/lines';
import { isCliId, SESSION_CLI_IDS } from '../clis';
import { APPROVAL_POLICIES } from '../sessions/types';
import type { GivenOptions } from './args';
import type { CliIo } from './io';
import { keepRawOption } from './keep-raw';
import type { FormatOptions } from './output-format';
import { streamCommand } from './run-command';
import { launchOptions, milliseconds } from './run-args';
import { UsageError } from './usage-error';

/**
 * The `startSession` options of `session --provider <p> [options]` (and of `acp`), checked: every mistake is a
 * `UsageError` (exit 2) before any process starts. The CLI inherits this process's environment.
 */
export function sessionOptions(
  given: GivenOptions,
  positionals: readonly string[],
  command: 'session' | 'acp' = 'session',
): SessionOptions {
  const provider = given.get('--provider');
  if (provider === undefined) throw new UsageError(`${command} needs --provider <${SESSION_CLI_IDS.join('|')}>`);
  if (!isCliId(provider, SESSION_CLI_IDS)) {
    throw new UsageError(`unknown provider ${JSON.stringify(provider)}: ${command} takes one of ${SESSION_CLI_IDS.join(', ')}`);
  }
  if (positionals.length > 0)
    throw new UsageError(
      command === 'acp'
        ? 'acp takes no prompt: the ACP client sends them'
        : 'session takes no prompt: send {"type":"prompt","text":…} lines on stdin',
    );
  const options: SessionOptions = { provider };
  launchOptions(given, options);
  const approvals = given.get('--approvals');
  if (approvals !== undefined) {
    if (!(APPROVAL_POLICIES as readonly string[]).includes(approvals))
      throw new UsageError(`--approvals must be one of ${APPROVAL_POLICIES.join(', ')}; got ${JSON.stringify(approvals)}`);
    options.approvals = approvals as SessionOptions['approvals'];
  }
  const approvalTimeoutMs = milliseconds(given, '--approval-timeout');
  if (approvalTimeoutMs !== undefined) options.approvalTimeoutMs = approvalTimeoutMs;
  if (given.has('--keep-raw')) options.keepRaw = keepRawOption(given.get('--keep-raw'));
  return options;
}

/** `acp`'s options: `startSession`'s, the CLI among them only when `--provider` pins one. */
export type AcpCommandOptions = Omit<SessionOptions, 'provider'> & { provider?: SessionOptions['provider'] };

/**
 * `acp [--provider <p>] [options]`'s options, checked as `session`'s. Without `--provider` the
 * agent offers every installed CLI, so `--bin` and `--model` (one CLI's) are refused.
 */
export function acpOptions(given: GivenOptions, positionals: readonly string[]): AcpCommandOptions {
  if (given.has('--provider')) return sessionOptions(given, positionals, 'acp');
  for (const flag of ['--bin', '--model']) if (given.has(flag)) throw new UsageError(`acp: ${flag} is one CLI's: give --provider with it`);
  // The common options checked as for any CLI, then the CLI left open.
  const { provider: _provider, ...common } = sessionOptions(new Map([...given, ['--provider', SESSION_CLI_IDS[0]]]), positionals, 'acp');
  return common;
}

/**
 * `session --provider <p> [options]`: holds a session with the agent CLI. Commands come as JSON
 * lines on stdin (`{"type":"prompt","text":…}`, `{"type":"approve","approval_id":…,"decision":"allow"|"deny"}`,
 * `{"type":"interrupt"}`); the events go to stdout as `run` writes them (JSON lines or a transcript). At the end
 * of input, the prompts sent are played to their end, then the session is closed. A command line
 * that cannot be understood is reported on stderr and skipped. Exit codes as for `run`.
 */
export function sessionCommand(
  options: SessionOptions,
  io: CliIo,
  signals: NodeJS.EventEmitter = process,
  output?: FormatOptions,
): Promise<number> {
  return streamCommand(
    () => {
      const session = startSession(options);
      void readCommands(session, io);
      return { events: session, stop: () => void session.close(), done: session.done };
    },
    io,
    signals,
    output,
  );
}

/** Plays stdin's commands to the session; at the end of input, waits for the turns sent, then closes it. */
async function readCommands(session: Session, io: CliIo): Promise<void> {
  const turns: Promise<unknown>[] = [];
  const complain = (message: string) => io.stderr.write(`cli-subprocess-core: ${message}\n`);
  try {
    for await (const line of splitLines(io.stdin)) {
      if (line.trim() === '') continue;
      const problem = playCommand(session, line, turns, complain);
      if (problem) complain(problem);
    }
  } catch (error) {
    complain(`reading stdin failed: ${(error as Error).message}`);
  }
  await Promise.allSettled(turns);
  await session.close();
}

/** Plays one command line; answers what is wrong with it, or null. */
function playCommand(session: Session, line: string, turns: Promise<unknown>[], complain: (message: string) => void): string | null {
  let command: unknown;
  try {
    command = JSON.parse(line);
  } catch {
    return `not a JSON command: ${line.slice(0, 200)}`;
  }
  const {
    type,
    text,
    approval_id: id,
    decision,
    reason,
    remember,
  } = (typeof command === 'object' && command !== null ? command : {}) as Record<string, unknown>;
  switch (type) {
    case 'prompt':
      if (typeof text !== 'string') return 'a prompt command needs "text" (a string)';
      // The turn's outcome is in the events; a prompt the session could not take is said here.
      turns.push(session.send(text).catch((error: Error) => complain(`prompt not played: ${error.message}`)));
      return null;
    case 'approve':
      if (typeof id !== 'string' || (decision !== 'allow' && decision !== 'deny'))
        return 'an approve command needs "approval_id" (a string) and "decision" ("allow" or "deny")';
      if (reason !== undefined && typeof reason !== 'string') return 'an approve command\'s "reason" must be a string';
      return session.approve(id, { decision, reason, remember: remember === true }) ? null : `no pending approval ${JSON.stringify(id)}`;
    case 'interrupt':
      void session.interrupt();
      return null;
    default:
      return `unknown command type ${JSON.stringify(type)}: expected prompt, approve or interrupt`;
  }
}
