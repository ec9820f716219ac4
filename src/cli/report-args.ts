import { HISTORY_CLI_IDS, isCliId, type HistoryCli } from '../clis';
import { dayOption, LocalCalendar } from '../spend/local-date';
import { UsageError } from './usage-error';

/** The options `history` and `usage` take (each takes the ones its usage text names). */
export interface ReportArgs {
  readonly positionals: readonly string[];
  readonly provider?: HistoryCli;
  readonly cwd?: string;
  /** Local days, `YYYY-MM-DD`, inclusive. */
  readonly since?: string;
  readonly until?: string;
  readonly timeZone?: string;
  readonly json: boolean;
  readonly format?: 'pretty' | 'jsonl';
  readonly verbose: boolean;
  /** Read every store file again and write no cache. */
  readonly noCache: boolean;
}

const VALUED = ['--provider', '--cwd', '--since', '--until', '--timezone', '--format'] as const;
const FLAGS = ['--json', '--verbose', '--no-cache', '-h', '--help'] as const;

/** Parses `argv` (after the command's name), allowing `allowed` options only; throws `UsageError`. */
export function parseReportArgs(command: string, argv: readonly string[], allowed: readonly string[]): ReportArgs | 'help' {
  const given = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = equals > 0 ? arg.slice(0, equals) : arg;
    if (name === '-h' || name === '--help') return 'help';
    const valued = (VALUED as readonly string[]).includes(name);
    if (!allowed.includes(name) || (!valued && !(FLAGS as readonly string[]).includes(name)))
      throw new UsageError(`${command} has no option ${name}`);
    if (!valued) {
      if (equals > 0) throw new UsageError(`${name} takes no value`);
      given.set(name, '');
    } else if (equals > 0) given.set(name, arg.slice(equals + 1));
    else {
      if (i + 1 >= argv.length) throw new UsageError(`${name} needs a value`);
      given.set(name, argv[++i]);
    }
  }
  const provider = given.get('--provider');
  if (provider !== undefined && !isCliId<HistoryCli>(provider, HISTORY_CLI_IDS))
    throw new UsageError(
      `--provider must be one of ${HISTORY_CLI_IDS.join(', ')} (the CLIs whose history is read); got ${JSON.stringify(provider)}`,
    );
  const format = given.get('--format');
  if (format !== undefined && format !== 'pretty' && format !== 'jsonl')
    throw new UsageError(`--format must be pretty or jsonl; got ${JSON.stringify(format)}`);
  const timeZone = given.get('--timezone');
  if (timeZone !== undefined) {
    try {
      new Intl.DateTimeFormat('en-CA', { timeZone });
    } catch {
      throw new UsageError(`--timezone: unknown time zone ${JSON.stringify(timeZone)} (an IANA name, such as Europe/Paris or UTC)`);
    }
  }
  return {
    positionals,
    provider: provider as HistoryCli | undefined,
    cwd: given.get('--cwd'),
    since: day(given, '--since'),
    until: day(given, '--until'),
    timeZone,
    json: given.has('--json'),
    format,
    verbose: given.has('--verbose'),
    noCache: given.has('--no-cache'),
  };
}

function day(given: Map<string, string>, name: string): string | undefined {
  const value = given.get(name);
  if (value === undefined) return undefined;
  const parsed = dayOption(value);
  if (parsed === null) throw new UsageError(`${name} takes a date, YYYY-MM-DD or YYYYMMDD; got ${JSON.stringify(value)}`);
  return parsed;
}

/**
 * The calendar days are counted in: `--timezone`, else the environment's `TZ` (the one given to the
 * command, as a test or a host passes it), else the process's local zone.
 */
export function calendarFor(args: Pick<ReportArgs, 'timeZone'>, env: NodeJS.ProcessEnv): LocalCalendar {
  if (args.timeZone !== undefined) return new LocalCalendar(args.timeZone);
  try {
    return new LocalCalendar(env.TZ || undefined);
  } catch {
    // a TZ that is no IANA name (POSIX rules such as "EST5EDT,…"): the process's own reading of it
    return new LocalCalendar();
  }
}
