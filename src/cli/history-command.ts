import { resolve } from 'node:path';
import { readCliSession, type CliSessionRef } from '../history';
import { cliSessionKey, parseCliSessionKey } from '../history/session-key';
import type { SessionUsage } from '../spend/session-usage';
import type { LocalCalendar } from '../spend/local-date';
import { usageReport, type UsageFiguresJson } from '../spend/usage-report';
import type { CliIo } from './io';
import { write } from './io';
import { eventWriter } from './output-format';
import { calendarFor, parseReportArgs, type ReportArgs } from './report-args';
import { costText, storedSessions, type UsageDeps } from './usage-command';
import { UsageError, usageFailure } from './usage-error';

export const HISTORY_COMMAND_HELP = `Usage: cli-subprocess-core history [options]
       cli-subprocess-core history show <cli>:<session id> [--json | --format pretty|jsonl] [--verbose] [--no-cache]

The sessions the agent CLIs stored on this machine (started here, in a terminal or an editor),
newest first: the id (<cli>:<session id>, which history show and chat --resume take), when, where,
its title or first prompt, turns, tokens and cost (~: computed from a price table).

Options:
  --provider <id>  only this CLI's sessions
  --cwd <dir>      only the sessions that ran in this folder
  --since <date>, --until <date>
                   only sessions last active on these local days (YYYY-MM-DD or YYYYMMDD, inclusive)
  --timezone <tz>  days in this IANA time zone (default: the local one, TZ)
  --json           {"sessions":[{"id","provider","session_id","cwd","title","started_at","updated_at",
                   "model","origin","turns",…the figures of usage --json,"path"}]}
  --no-cache       read every stored session again, and keep no cache
show prints the session as a transcript on a terminal, else as JSON lines of events (--json,
--format as for show FILE).
`;

/**
 * `history`'s or `history show`'s command line (after `history`): its options, or `'help'`; a
 * UsageError for a line it does not take.
 */
export function historyArgs(argv: readonly string[]): { show: boolean; args: ReportArgs } | 'help' {
  const show = argv[0] === 'show';
  const args = show
    ? parseReportArgs('history show', argv.slice(1), ['--json', '--format', '--verbose', '--no-cache'])
    : parseReportArgs('history', argv, ['--provider', '--cwd', '--since', '--until', '--timezone', '--json', '--no-cache']);
  if (args === 'help') return 'help';
  if (show && args.positionals.length !== 1) throw new UsageError('history show takes one session id, <cli>:<session id>');
  if (!show && args.positionals.length > 0)
    throw new UsageError(`history takes no argument (history show <id> shows one); got ${args.positionals[0]}`);
  if (args.json && args.format === 'pretty') throw new UsageError('--json and --format pretty ask for two formats: give one');
  return { show, args };
}

/** `history [options]` or `history show ID`: the sessions, or one. 0 done, 1 not found, 2 usage error. */
export async function historyCommand(argv: readonly string[], io: CliIo, deps: UsageDeps = {}): Promise<number> {
  let line: ReturnType<typeof historyArgs>;
  try {
    line = historyArgs(argv);
    if (line === 'help') {
      await write(io.stdout, HISTORY_COMMAND_HELP);
      return 0;
    }
    if (line.show) return await showSession(line.args.positionals[0], line.args, io, deps);
  } catch (error) {
    return usageFailure(error, io, HISTORY_COMMAND_HELP);
  }
  return listSessions(line.args, io, deps);
}

/** One session as a transcript, or its events as JSON lines; found as `history` lists it (through the cache). */
async function showSession(id: string, args: ReportArgs, io: CliIo, deps: UsageDeps): Promise<number> {
  const key = parseCliSessionKey(id);
  const { sessions } = await storedSessions({ ...args, provider: key?.provider }, io, deps);
  const ref = sessions.map((session) => session.ref).find((each) => each.id === (key?.id ?? id));
  if (ref === undefined) {
    io.stderr.write(`cli-subprocess-core: no stored session ${id} (history lists them)\n`);
    return 1;
  }
  const writer = await eventWriter({ format: args.json ? 'jsonl' : args.format, verbose: args.verbose }, io);
  for await (const event of readCliSession(ref, { keepRaw: 'all' })) {
    const text = writer.event(event);
    if (text !== '') await write(io.stdout, text);
  }
  const rest = writer.end();
  if (rest !== '') await write(io.stdout, rest);
  return 0;
}

/** The sessions, newest first: a table, or `--json`. */
async function listSessions(args: ReportArgs, io: CliIo, deps: UsageDeps): Promise<number> {
  const env = io.env ?? process.env;
  const calendar = calendarFor(args, env);
  const cwd = args.cwd === undefined ? null : resolve(args.cwd);
  const { sessions: all } = await storedSessions(args, io, deps);
  const sessions = all
    .filter(({ ref }) => cwd === null || (ref.cwd !== null && resolve(ref.cwd) === cwd))
    .filter(({ ref }) => inDays(ref, args, calendar))
    .sort((a, b) => (b.ref.updated_at ?? '').localeCompare(a.ref.updated_at ?? ''));
  const figures = new Map(usageReport(sessions, 'session', {}, calendar).json.rows.map(({ key, ...row }) => [key, row]));
  const listed = sessions.map((session) => sessionJson(session, figures.get(cliSessionKey(session.ref.provider, session.ref.id))));
  if (args.json) {
    await write(io.stdout, `${JSON.stringify({ sessions: listed })}\n`);
    return 0;
  }
  await write(io.stdout, await historyTable(listed, calendar, env, io));
  return 0;
}

/** Whether the session was last active within `--since`/`--until` (local days). */
function inDays(ref: CliSessionRef, args: ReportArgs, calendar: LocalCalendar): boolean {
  if (args.since === undefined && args.until === undefined) return true;
  if (ref.updated_at === null) return false;
  const day = calendar.day(ref.updated_at);
  return (args.since === undefined || day >= args.since) && (args.until === undefined || day <= args.until);
}

/** A session as `history --json` prints it. */
type SessionJson = { id: string; provider: string; session_id: string } & Omit<CliSessionRef, 'id' | 'provider' | 'path'> & {
    turns: number;
  } & UsageFiguresJson & { path: string };

function sessionJson(session: SessionUsage, figures: UsageFiguresJson | undefined): SessionJson {
  const { ref } = session;
  return {
    id: cliSessionKey(ref.provider, ref.id),
    provider: ref.provider,
    session_id: ref.id,
    cwd: ref.cwd,
    title: ref.title,
    started_at: ref.started_at,
    updated_at: ref.updated_at,
    model: ref.model,
    origin: ref.origin,
    turns: session.turns,
    input_tokens: figures?.input_tokens ?? 0,
    output_tokens: figures?.output_tokens ?? 0,
    cache_read_input_tokens: figures?.cache_read_input_tokens ?? 0,
    cache_write_input_tokens: figures?.cache_write_input_tokens ?? 0,
    reasoning_output_tokens: figures?.reasoning_output_tokens ?? 0,
    total_tokens: figures?.total_tokens ?? 0,
    cost_usd: figures?.cost_usd ?? null,
    cost_source: figures?.cost_source ?? null,
    models: figures?.models ?? (ref.model === null ? [] : [ref.model]),
    providers: [ref.provider],
    path: ref.path,
  };
}

/** The sessions as a table for a person. */
async function historyTable(sessions: readonly SessionJson[], calendar: LocalCalendar, env: NodeJS.ProcessEnv, io: CliIo): Promise<string> {
  const { plain, renderTable, widthOf } = await import('../terminal/table');
  const { colorEnabled, palette } = await import('../terminal/style');
  const stdout = io.stdout as CliIo['stdout'] & { isTTY?: boolean; columns?: number };
  const colors = palette(colorEnabled(stdout, env));
  if (sessions.length === 0) return 'No stored sessions found.\n';
  const home = env.HOME;
  const where = (cwd: string | null) => (cwd === null ? '' : home && cwd.startsWith(`${home}/`) ? `~${cwd.slice(home.length)}` : cwd);
  const columns = [
    { heading: 'ID', align: 'left' as const, drop: 0, whole: true },
    { heading: 'When', align: 'left' as const, drop: 3, whole: true },
    { heading: 'Turns', align: 'right' as const, drop: 4 },
    { heading: 'Tokens', align: 'right' as const, drop: 2 },
    { heading: 'Cost', align: 'right' as const, drop: 1 },
  ];
  const rows = sessions.map((session) => [
    plain(session.id),
    session.updated_at === null ? '' : when(session.updated_at, calendar),
    String(session.turns),
    session.total_tokens.toLocaleString('en-US'),
    session.total_tokens === 0 && session.cost_usd === null ? '' : costText(session, colors.dim),
  ]);
  // The title and folder on a line of their own: a table of both beside a session id leaves them no room.
  const details = sessions.map((session) => plain([session.title ?? '', where(session.cwd)].filter((part) => part !== '').join(' · ')));
  return renderTable(columns, rows, [], widthOf(stdout), colors, details);
}

/** `2026-12-07 17:54` in the calendar's time zone. */
function when(time: string, calendar: LocalCalendar): string {
  const date = new Date(time);
  const clock = new Intl.DateTimeFormat('en-GB', { timeZone: calendar.timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return `${calendar.day(date)} ${clock.format(date)}`;
}
