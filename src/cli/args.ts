import type { DecoderOptions } from '../providers/decoder';
import { assertProviderId, type ProviderId } from '../providers/provider-id';

type KeepRaw = NonNullable<DecoderOptions['keepRaw']>;
const KEEP_RAW: readonly KeepRaw[] = ['all', 'unmapped', 'none'];

/** What the command line asks for. */
export type Command =
  | { readonly name: 'validate'; readonly file: string; readonly json: boolean }
  | { readonly name: 'decode'; readonly file: string; readonly provider: ProviderId | 'auto'; readonly keepRaw: KeepRaw }
  | { readonly name: 'schema'; readonly kind?: string }
  | { readonly name: 'help' };

/** A command line that cannot be understood; the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {}

export const USAGE = `Usage: cli-subprocess-core <command> [options]

Commands:
  validate [--json] <file.jsonl | ->           check each line as an Event; print errors and a summary
  decode --provider <id|auto> <file.jsonl | -> decode an agent CLI's stdout into events (JSONL on stdout, summary on stderr)
  schema [kind]                                print the JSON Schema of the Event, or of one kind's payload

Options:
  --json             validate: write the normalized events as JSONL to stdout (the report goes to stderr)
  --provider <id>    decode: the CLI that printed the input: claude, codex, gemini, cursor, opencode, amp,
                     or auto (named by the first line a provider recognises)
  --keep-raw <which> decode: which events carry the native line in "raw": all (default), unmapped, none
  -h, --help         show this help

Blank lines are skipped. "-" reads standard input.
Exit codes: validate: 0 every line valid, 1 some line invalid; decode: 0 the input was read (a line no
provider understands becomes a raw event); both: 2 usage error or unreadable input.
`;

/** Parses `argv` (without node and the script); throws `UsageError`. */
export function parseArgs(argv: readonly string[]): Command {
  const positionals: string[] = [];
  let json = false;
  let provider: string | undefined;
  let keepRaw: string | undefined;
  let optionsDone = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (optionsDone || arg === '-' || !arg.startsWith('-')) positionals.push(arg);
    else if (arg === '--') optionsDone = true;
    else if (arg === '-h' || arg === '--help') return { name: 'help' };
    else if (arg === '--json') json = true;
    else if (arg === '--provider') {
      if (i + 1 >= argv.length) throw new UsageError('--provider needs a value');
      provider = argv[++i];
    } else if (arg.startsWith('--provider=')) provider = arg.slice('--provider='.length);
    else if (arg === '--keep-raw') {
      if (i + 1 >= argv.length) throw new UsageError('--keep-raw needs a value');
      keepRaw = argv[++i];
    } else if (arg.startsWith('--keep-raw=')) keepRaw = arg.slice('--keep-raw='.length);
    else throw new UsageError(`unknown option: ${arg}`);
  }
  const [name, ...rest] = positionals;
  const only = (option: string, command: string, given: boolean) => {
    if (given && name !== command) throw new UsageError(`${option} is an option of ${command}`);
  };
  switch (name) {
    case 'validate':
      only('--provider', 'decode', provider !== undefined);
      only('--keep-raw', 'decode', keepRaw !== undefined);
      if (rest.length !== 1) throw new UsageError('validate takes one file (or - for standard input)');
      return { name, file: rest[0], json };
    case 'decode':
      only('--json', 'validate', json);
      if (provider === undefined) throw new UsageError('decode needs --provider <id|auto>');
      if (rest.length !== 1) throw new UsageError('decode takes one file (or - for standard input)');
      if (keepRaw !== undefined && !(KEEP_RAW as readonly string[]).includes(keepRaw)) {
        throw new UsageError(`--keep-raw must be one of ${KEEP_RAW.join(', ')}; got ${JSON.stringify(keepRaw)}`);
      }
      return { name, file: rest[0], provider: providerId(provider), keepRaw: (keepRaw ?? 'all') as KeepRaw };
    case 'schema':
      only('--json', 'validate', json);
      only('--provider', 'decode', provider !== undefined);
      only('--keep-raw', 'decode', keepRaw !== undefined);
      if (rest.length > 1) throw new UsageError('schema takes at most one kind');
      return { name, kind: rest[0] };
    case undefined:
      throw new UsageError('missing command');
    default:
      throw new UsageError(`unknown command: ${name}`);
  }
}

/** A provider id from the command line; an unknown one is a usage error that lists the known ids. */
function providerId(value: string): ProviderId | 'auto' {
  try {
    return assertProviderId(value, true);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
