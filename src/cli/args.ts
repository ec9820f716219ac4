/** What the command line asks for. */
export type Command =
  | { readonly name: 'validate'; readonly file: string; readonly json: boolean }
  | { readonly name: 'schema'; readonly kind?: string }
  | { readonly name: 'help' };

/** A command line that cannot be understood; the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {}

export const USAGE = `Usage: cli-subprocess-core <command> [options]

Commands:
  validate [--json] <file.jsonl | ->  check each line as an Event; print errors and a summary
  schema [kind]                       print the JSON Schema of the Event, or of one kind's payload

Options:
  --json       validate: write the normalized events as JSONL to stdout (the report goes to stderr)
  -h, --help   show this help

Blank lines are skipped. "-" reads standard input.
Exit codes: 0 every line valid, 1 some line invalid, 2 usage error or unreadable input.
`;

/** Parses `argv` (without node and the script); throws `UsageError`. */
export function parseArgs(argv: readonly string[]): Command {
  const positionals: string[] = [];
  let json = false;
  let optionsDone = false;
  for (const arg of argv) {
    if (optionsDone || arg === '-' || !arg.startsWith('-')) positionals.push(arg);
    else if (arg === '--') optionsDone = true;
    else if (arg === '-h' || arg === '--help') return { name: 'help' };
    else if (arg === '--json') json = true;
    else throw new UsageError(`unknown option: ${arg}`);
  }
  const [name, ...rest] = positionals;
  switch (name) {
    case 'validate':
      if (rest.length !== 1) throw new UsageError('validate takes one file (or - for standard input)');
      return { name, file: rest[0], json };
    case 'schema':
      if (json) throw new UsageError('--json is an option of validate');
      if (rest.length > 1) throw new UsageError('schema takes at most one kind');
      return { name, kind: rest[0] };
    case undefined:
      throw new UsageError('missing command');
    default:
      throw new UsageError(`unknown command: ${name}`);
  }
}
