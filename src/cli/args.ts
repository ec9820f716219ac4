import { CLIS, DECODE_CLI_IDS, RUN_CLI_IDS, SESSION_CLI_IDS } from '../clis';
import { assertProviderId, type ProviderId } from '../decode/provider-id';
import type { RunOptions } from '../runner/types';
import { keepRawOption, type KeepRaw } from './keep-raw';
import { DEFAULT_MAX_LINE_BYTES } from './line-splitter';
import { maxLineBytesOption } from './max-line-bytes';
import { formatOption, type FormatOptions } from './output-format';
import { runOptions } from './run-args';
import { acpOptions, sessionOptions, type AcpCommandOptions } from './session-command';
import { serveOptions } from './serve-args';
import type { ServeOptions } from './serve-command';
import type { SessionOptions } from '../sessions/types';
import { UsageError } from './usage-error';
import type { ValidateOptions } from './validate-command';

export { UsageError } from './usage-error';

/** What the command line asks for. */
export type Command =
  | ({ readonly name: 'validate' } & ValidateOptions)
  | {
      readonly name: 'decode';
      readonly file: string;
      readonly provider: ProviderId | 'auto';
      readonly keepRaw: KeepRaw;
      readonly output: FormatOptions;
    }
  | { readonly name: 'show'; readonly file: string; readonly output: FormatOptions }
  | { readonly name: 'schema'; readonly kind?: string }
  | { readonly name: 'run'; readonly options: RunOptions; readonly output: FormatOptions }
  | { readonly name: 'session'; readonly options: SessionOptions; readonly output: FormatOptions }
  | { readonly name: 'acp'; readonly options: AcpCommandOptions; readonly historyDir?: string; readonly login?: boolean }
  | { readonly name: 'serve' | 'worker'; readonly options: ServeOptions }
  | { readonly name: 'help' };

/** The run CLIs with a flag for `option` (an empty flag list or null: none). */
const runClisWith = (option: 'allowedTools' | 'partial') =>
  RUN_CLI_IDS.filter((id) => {
    const flag = CLIS[id].run[option];
    return flag !== null && flag.length !== 0;
  }).join(', ');

export const USAGE = `Usage: cli-subprocess-core <command> [options]

Commands:
  validate [--json] [--max-line-bytes N] [--allow-invalid-utf8] <file.jsonl | ->
                                               check each line as an Event; print errors and a summary
  decode --provider <id|auto> <file.jsonl | -> decode an agent CLI's stdout into events (a transcript on a terminal, else
                                               JSONL on stdout and a summary on stderr)
  show <file.jsonl | ->                        print a stored run as a transcript: a file of events, or of a CLI's own
                                               output (which one is told by its first line)
  schema [kind]                                print the JSON Schema of the Event, or of one kind's payload
  run --provider <${RUN_CLI_IDS.join('|')}> [options] [--] <prompt>
                                               run the agent CLI on a prompt; its events as a transcript on a
                                               terminal, else as JSONL on stdout
  session --provider <${SESSION_CLI_IDS.join('|')}> [options]
                                               hold a session: commands as JSON lines on stdin
                                               ({"type":"prompt","text":…}, {"type":"approve","approval_id":…,
                                               "decision":"allow"|"deny"}, {"type":"interrupt"}; end of input
                                               closes it once the prompts sent are answered), events as for run
  acp [--provider <${SESSION_CLI_IDS.join('|')}>] [options]
                                               an Agent Client Protocol agent on stdio (for Zed, JetBrains, Neovim)
                                               fronting the CLI: each ACP session is a session of it,
                                               kept for session/load in --history-dir. Its config options:
                                               model (switched in the running session where the CLI can,
                                               else from the next turn by a resume) and mode (ask, allow,
                                               deny); without --provider also cli: the CLIs found on PATH,
                                               the first by default (a switch starts a new conversation)
  serve [--redis URL] [--host H] [--port P] [--token T | --tokens FILE | --no-auth] [options]
                                               the runs API over HTTP (queue, SSE that resumes, cancel,
                                               approvals, the record of your runs) and a page at /; without
                                               Redis, runs in this process and keeps them in --data-dir.
                                               Needs a bearer token: without one, makes one and prints the
                                               page's address with it on stderr
  worker --redis URL [--concurrency N] [--lock S] [--ttl S] [options]
                                               take queued runs from Redis and run them here
  history [--provider P] [--cwd DIR] [--since D] [--until D] [--json]
                                               every CLI's stored sessions on this machine, newest first;
                                               history show <cli>:<session id> prints one (history --help)
  usage [daily|monthly|session|model|cli] [--since D] [--until D] [--provider P] [--json]
                                               tokens and cost across every CLI's stored sessions (usage --help)
  chat [--provider P] [--model M] [--resume <cli>:<session id>] [--cwd DIR]
                                               an interactive chat with a CLI in this terminal: approvals asked
                                               inline, Ctrl-C interrupts, /model /cli /cost /new (chat --help)

Options:
  --json             validate: write the normalized events as JSONL to stdout (the report goes to stderr);
                     decode, show: the same as --format jsonl
  --max-line-bytes <n>
                     validate: longest line read (default ${DEFAULT_MAX_LINE_BYTES}, 64 MB); a longer one is
                     reported (line_too_long) and skipped without being held in memory
  --allow-invalid-utf8
                     validate: read invalid UTF-8 with U+FFFD replacements instead of reporting the line (invalid_utf8)
  --format <f>       decode, show, run, session: pretty (a transcript for a person) or jsonl (one event per line);
                     default: pretty when stdout is a terminal, else jsonl. A transcript follows the terminal's
                     width (80 columns elsewhere) and NO_COLOR / FORCE_COLOR
  --verbose          decode, show, run, session: a transcript with all of the thinking and of each tool's
                     output, and the CLI's stderr and unmapped lines
  --provider <id>    decode: the CLI that printed the input: ${DECODE_CLI_IDS.join(', ')},
                     or auto (named by the first line a provider recognises); run, session: the CLI to run
  --keep-raw <which> decode, run, session: which events carry the native line in "raw": all, unmapped, none (default: all for decode, none for run and session)
  --model <name>     run, session: the model, passed to the CLI
  --cwd <dir>        run, session: the CLI's working directory (default: the current one); serve, worker: the
                     directory runs work in (each in its own workspace of it)
  --permission <p>   run: default (the CLI's own), accept-edits, bypass, or plan (read-only)
  --allowed-tools <list>
                     run: comma-separated tools the CLI may use without asking (${runClisWith('allowedTools')})
  --partial          run: partial messages, so text arrives as assistant_delta events (${runClisWith('partial')})
  --timeout <s>      run: stop the run after this many seconds (it ends timed_out)
  --idle-timeout <s> run: stop the run when the CLI prints nothing for this many seconds (it ends timed_out)
  --bin <path>       run, session: the CLI's executable (default: its usual name on PATH)
  --approvals <who>  session: ask (default: each request is an approval_requested event, answered on stdin),
                     allow or deny (every request answered at once); serve: the policies a request may ask
                     for, comma-separated (default ask,deny: allow only when listed)
  --approval-timeout <s>
                     session: a request not answered within this many seconds is denied (default 300)
  --history-dir <dir>
                     acp: where each session's history is kept, for session/load
                     (default: $XDG_STATE_HOME/cli-subprocess-core/acp-sessions, or ~/.local/state/…)
  --login            acp: run the CLI's own login command in this terminal instead (the agent's
                     terminal auth method; exits with its code, 2 when the CLI has none)
  --redis <url>      serve, worker: the Redis that holds the queue and the runs' streams (default: $REDIS_URL;
                     serve without it runs the runs in its own process)
  --host <h>, --port <p>
                     serve: where to listen (default 127.0.0.1:8787)
  --concurrency <n>  serve, worker: runs at once in this process (default 2)
  --lock <s>         worker, serve with Redis: a worker's hold on a run, renewed while it lives; a dead worker's
                     runs are noticed about this long after (default 15)
  --ttl <s>          serve, worker: how long a finished run's events, diff and workspace stay (default 86400, a
                     day); without Redis its record goes with them, on Redis it stays until DELETE /runs/:id; a
                     session left this long with no message is closed
  --idle-seconds <s> serve without Redis, worker: how long a session's CLI is kept with no turn (default 300); the
                     next message starts it again on the same conversation (its resume), on any worker
  --data-dir <dir>   serve without Redis: where runs and their events are kept, so that a restart loses none
                     (default: $XDG_DATA_HOME/cli-subprocess-core, or ~/.local/share/…; made 0700)
  --token <t>        serve: the bearer token every API call must carry (default: $CLI_SUBPROCESS_CORE_TOKEN,
                     else one made at start); at least 16 characters
  --tokens <file>    serve: several principals, one "TOKEN NAME" per line (# comments); a run is its principal's
  --no-auth          serve: no token (a warning; refused with a --host that is not loopback)
  --allowed-host <names>
                     serve: host names the server answers to besides loopback and --host (comma-separated)
  --models <list>    serve: the models a request may name (default: any, unless the server sets one)
  --max-prompt-bytes <n>
                     serve: the longest prompt (default 1048576); longer is 413
  --max-queued <n>   serve: runs waiting to start past which POST /runs is 429 (default 100)
  --max-runs-per-principal <n>
                     serve: runs one principal may have waiting or running (default 20)
  --max-run-seconds <s>
                     serve, worker: a run's longest life (default 3600; 0 none); it then ends timed_out
  --max-run-bytes <n>
                     serve, worker: a run's stored events (default 67108864); past it the run fails output_limit
  --max-cost-usd <x>, --max-tokens <n>
                     serve, worker: a run's budget, added up from its usage; past it the run fails
                     budget_exceeded (a CLI that reports no price is limited by tokens only)
  --pass-env <names> serve, worker: more variables for the CLI beyond the allow-list (comma-separated, NAME_* a
                     prefix): the basics and its own credentials and endpoints pass, nothing else
  --workspace <w>    serve, worker: worktree (a git worktree and branch per run; default in a git repository),
                     temp (an empty directory per run; the default elsewhere) or shared (--cwd itself)
  --keep-worktrees   serve, worker: keep each run's worktree (or directory) after its stream expires
  -h, --help         show this help

Blank lines are skipped. "-" reads standard input. validate reports at most 10 issues per line (then
"… and K more issues"), with paths and messages cut to 200 characters. The run command passes its environment (API keys,
base URLs) to the CLI; Ctrl-C stops the CLI and every process it started.
Exit codes:
  validate  0 every line valid, 1 some line invalid (also when stdout's reader leaves early: the lines read
            so far), 130 interrupted (SIGINT; the summary so far goes to stderr)
  decode    0 the input was read (a line no provider understands becomes a raw event)
  show      0 the input was read (a line that is not an event is reported on stderr and skipped)
  run       0 completed, 1 failed or timed out, 127 executable not found, 130 interrupted (SIGINT),
            143 terminated (SIGTERM), 141 stdout closed by its reader
  session   as run: 0 closed after its turns, 1 the CLI failed or died
  acp       0 its input ended, 127 executable not found
  chat      0 left (Ctrl-D, /exit, Ctrl-C twice), 127 no CLI could start, 2 not a terminal
  serve, worker  0 stopped by SIGINT or SIGTERM; serve 1 its --data-dir could not be opened (or another serve has it)
  all       2 usage error or unreadable input
`;

type CommandName = Exclude<Command['name'], 'help'>;
const COMMANDS: readonly CommandName[] = ['validate', 'decode', 'show', 'schema', 'run', 'session', 'acp', 'serve', 'worker'];
const isCommandName = (name: string): name is CommandName => (COMMANDS as readonly string[]).includes(name);

/** Every option: whether it takes a value (`--name value` or `--name=value`), and the commands that accept it. */
const OPTIONS: Readonly<Record<string, { readonly takesValue: boolean; readonly commands: readonly CommandName[] }>> = {
  '--json': { takesValue: false, commands: ['validate', 'decode', 'show'] },
  '--max-line-bytes': { takesValue: true, commands: ['validate'] },
  '--allow-invalid-utf8': { takesValue: false, commands: ['validate'] },
  '--format': { takesValue: true, commands: ['decode', 'show', 'run', 'session'] },
  '--verbose': { takesValue: false, commands: ['decode', 'show', 'run', 'session'] },
  '--provider': { takesValue: true, commands: ['decode', 'run', 'session', 'acp'] },
  '--keep-raw': { takesValue: true, commands: ['decode', 'run', 'session', 'acp'] },
  '--model': { takesValue: true, commands: ['run', 'session', 'acp'] },
  '--cwd': { takesValue: true, commands: ['run', 'session', 'serve', 'worker'] },
  '--permission': { takesValue: true, commands: ['run'] },
  '--allowed-tools': { takesValue: true, commands: ['run'] },
  '--partial': { takesValue: false, commands: ['run'] },
  '--timeout': { takesValue: true, commands: ['run'] },
  '--idle-timeout': { takesValue: true, commands: ['run'] },
  '--bin': { takesValue: true, commands: ['run', 'session', 'acp'] },
  '--approvals': { takesValue: true, commands: ['session', 'serve'] },
  '--redis': { takesValue: true, commands: ['serve', 'worker'] },
  '--host': { takesValue: true, commands: ['serve'] },
  '--port': { takesValue: true, commands: ['serve'] },
  '--concurrency': { takesValue: true, commands: ['serve', 'worker'] },
  '--lock': { takesValue: true, commands: ['serve', 'worker'] },
  '--ttl': { takesValue: true, commands: ['serve', 'worker'] },
  '--data-dir': { takesValue: true, commands: ['serve'] },
  '--idle-seconds': { takesValue: true, commands: ['serve', 'worker'] },
  '--token': { takesValue: true, commands: ['serve'] },
  '--tokens': { takesValue: true, commands: ['serve'] },
  '--no-auth': { takesValue: false, commands: ['serve'] },
  '--allowed-host': { takesValue: true, commands: ['serve'] },
  '--models': { takesValue: true, commands: ['serve'] },
  '--max-prompt-bytes': { takesValue: true, commands: ['serve'] },
  '--max-queued': { takesValue: true, commands: ['serve'] },
  '--max-runs-per-principal': { takesValue: true, commands: ['serve'] },
  '--max-run-seconds': { takesValue: true, commands: ['serve', 'worker'] },
  '--max-run-bytes': { takesValue: true, commands: ['serve', 'worker'] },
  '--max-cost-usd': { takesValue: true, commands: ['serve', 'worker'] },
  '--max-tokens': { takesValue: true, commands: ['serve', 'worker'] },
  '--pass-env': { takesValue: true, commands: ['serve', 'worker'] },
  '--workspace': { takesValue: true, commands: ['serve', 'worker'] },
  '--keep-worktrees': { takesValue: false, commands: ['serve', 'worker'] },
  '--approval-timeout': { takesValue: true, commands: ['session', 'acp'] },
  '--history-dir': { takesValue: true, commands: ['acp'] },
  '--login': { takesValue: false, commands: ['acp'] },
};

/** The options given, by name (a flag without a value maps to ''), in the order given. */
export type GivenOptions = ReadonlyMap<string, string>;

/** Parses `argv` (without node and the script); throws `UsageError`. */
export function parseArgs(argv: readonly string[]): Command {
  const positionals: string[] = [];
  const given = new Map<string, string>();
  let optionsDone = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (optionsDone || arg === '-' || !arg.startsWith('-')) positionals.push(arg);
    else if (arg === '--') optionsDone = true;
    else if (arg === '-h' || arg === '--help') return { name: 'help' };
    else if (OPTIONS[arg]?.takesValue) {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
      given.set(arg, argv[++i]);
    } else if (OPTIONS[arg]) given.set(arg, '');
    else {
      const equals = arg.indexOf('=');
      const name = arg.slice(0, equals);
      if (equals < 0 || !OPTIONS[name]?.takesValue) throw new UsageError(`unknown option: ${arg}`);
      given.set(name, arg.slice(equals + 1));
    }
  }
  const [name, ...rest] = positionals;
  if (name === undefined) throw new UsageError('missing command');
  if (!isCommandName(name)) throw new UsageError(`unknown command: ${name}`);
  for (const option of given.keys()) {
    const { commands } = OPTIONS[option];
    if (!commands.includes(name)) throw new UsageError(`${option} is an option of ${inWords(commands)}`);
  }
  switch (name) {
    case 'validate':
      if (rest.length !== 1) throw new UsageError('validate takes one file (or - for standard input)');
      return {
        name,
        file: rest[0],
        json: given.has('--json'),
        maxLineBytes: maxLineBytesOption(given.get('--max-line-bytes')),
        allowInvalidUtf8: given.has('--allow-invalid-utf8'),
      };
    case 'decode': {
      const provider = given.get('--provider');
      if (provider === undefined) throw new UsageError('decode needs --provider <id|auto>');
      if (rest.length !== 1) throw new UsageError('decode takes one file (or - for standard input)');
      return {
        name,
        file: rest[0],
        provider: providerId(provider),
        keepRaw: keepRawOption(given.get('--keep-raw')),
        output: outputOptions(given),
      };
    }
    case 'show':
      if (rest.length !== 1) throw new UsageError('show takes one file (or - for standard input)');
      return { name, file: rest[0], output: outputOptions(given) };
    case 'schema':
      if (rest.length > 1) throw new UsageError('schema takes at most one kind');
      return { name, kind: rest[0] };
    case 'run':
      return { name, options: runOptions(given, rest), output: outputOptions(given) };
    case 'session':
      return { name, options: sessionOptions(given, rest), output: outputOptions(given) };
    case 'acp':
      return {
        name,
        options: acpOptions(given, rest),
        historyDir: given.get('--history-dir') || undefined,
        login: given.has('--login'),
      };
    case 'serve':
    case 'worker':
      return { name, options: serveOptions(name, given, rest) };
  }
}

/** `--format` and `--verbose` (and, for decode and show, `--json`: the same as `--format jsonl`). */
function outputOptions(given: GivenOptions): FormatOptions {
  const format = formatOption(given.get('--format'));
  if (given.has('--json') && format === 'pretty') throw new UsageError('--json and --format pretty ask for two formats: give one');
  return { format: given.has('--json') ? 'jsonl' : format, verbose: given.has('--verbose') };
}

/** A provider id from the command line; an unknown one is a usage error that lists the known ids. */
function providerId(value: string): ProviderId | 'auto' {
  try {
    return assertProviderId(value, true);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** "a", "a and b", "a, b and c". */
function inWords(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
