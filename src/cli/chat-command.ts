import { isCliId, SESSION_CLI_IDS } from '../clis';
import type { SessionProvider } from '../sessions/types';
import type { CliIo } from './io';
import { launchOptions } from './run-args';
import { UsageError, usageFailure } from './usage-error';

export const CHAT_USAGE = `Usage: cli-subprocess-core chat [--provider <${SESSION_CLI_IDS.join('|')}>] [--model M] [--resume ID] [--cwd DIR]

An interactive chat with an agent CLI, in this terminal: type a prompt, read the answer as it
streams, answer each approval with y (allow), n (deny) or a (always). Ctrl-C interrupts the turn
(twice: leave), Ctrl-D leaves; /help lists the slash commands (/model, /cli, /cost, /new, /exit).

  --provider <id>  the CLI (default: those found on PATH are offered)
  --model <name>   the model, passed to the CLI
  --resume <id>    continue a CLI's session: <cli>:<session id> (as \`history\` and the ACP agent's
                   session/list give it), or a bare session id with --provider
  --cwd <dir>      the CLI's working directory (default: the resumed session's, else the current one)
`;

/** The options `chat` takes, each with a value. */
const CHAT_OPTIONS = ['--provider', '--model', '--resume', '--cwd'] as const;

/** What `chat`'s command line asks for, checked (the resume id is read by the chat's own rules). */
export interface ChatArgs {
  readonly provider?: SessionProvider;
  readonly model?: string;
  readonly resume?: string;
  readonly cwd?: string;
}

/** Parses `chat`'s arguments (after `chat`); 'help' for `-h`/`--help`. Throws `UsageError`. */
export function chatArgs(argv: readonly string[]): ChatArgs | 'help' {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') return 'help';
    const equals = arg.indexOf('=');
    const name = equals > 0 ? arg.slice(0, equals) : arg;
    if (!(CHAT_OPTIONS as readonly string[]).includes(name)) {
      if (!arg.startsWith('-')) throw new UsageError('chat takes no prompt: type it at the prompt');
      throw new UsageError(`unknown option of chat: ${arg}`);
    }
    if (equals > 0) given.set(name, arg.slice(equals + 1));
    else if (i + 1 < argv.length) given.set(name, argv[++i]);
    else throw new UsageError(`${arg} needs a value`);
  }
  const provider = given.get('--provider');
  if (provider !== undefined && !isCliId<SessionProvider>(provider, SESSION_CLI_IDS))
    throw new UsageError(`unknown provider ${JSON.stringify(provider)}: chat takes one of ${SESSION_CLI_IDS.join(', ')}`);
  const options: { provider?: SessionProvider; model?: string; resume?: string; cwd?: string } = { provider };
  // The same checks as run and session: a model that would read as a flag, a missing directory.
  launchOptions(given, options);
  const resume = given.get('--resume');
  if (resume !== undefined) options.resume = resume;
  return options;
}

/**
 * `chat [--provider P] [--model M] [--resume ID] [--cwd DIR]`: the interactive chat of
 * src/terminal/chat.ts, in the terminal of stdin and stdout (it needs one: a pipe is the `session`
 * command's). Answers the exit code: 0 when left, 2 for a usage error, 127 when no CLI can start.
 */
export async function chatCommand(argv: readonly string[], io: CliIo): Promise<number> {
  let args: ChatArgs | 'help';
  try {
    args = chatArgs(argv);
  } catch (error) {
    return usageFailure(error, io, CHAT_USAGE);
  }
  if (args === 'help') {
    io.stdout.write(CHAT_USAGE);
    return 0;
  }
  // The terminal code loads only here: the package root and the other commands never pay for it.
  const [{ runChat }, { parseResumeId }] = await Promise.all([import('../terminal/chat'), import('../terminal/resume-id')]);
  let resume;
  try {
    resume = args.resume === undefined ? undefined : parseResumeId(args.resume, args.provider);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    io.stderr.write(`cli-subprocess-core: ${error.message}\n`);
    return 2;
  }
  const input = io.stdin as CliIo['stdin'] & { isTTY?: boolean };
  const output = io.stdout as CliIo['stdout'] & { isTTY?: boolean };
  if (input.isTTY !== true || output.isTTY !== true) {
    io.stderr.write('cli-subprocess-core: chat needs a terminal (stdin and stdout); in a pipe, use the session command\n');
    return 2;
  }
  return runChat(
    { provider: args.provider, model: args.model, resume, cwd: args.cwd },
    { input, output, env: io.env ?? process.env, signals: process },
  );
}
