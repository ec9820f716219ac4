import type { PriceTable } from '../spend/price-table';
import type { SessionUsage } from '../spend/session-usage';
import { collectSessions, type CollectOptions } from '../spend/collect-sessions';
import { defaultCacheFile } from '../spend/usage-cache';
import {
  TOTALS_KEY,
  USAGE_GROUPINGS,
  usageReport,
  type UsageFiguresJson,
  type UsageGrouping,
  type UsageReport,
} from '../spend/usage-report';
import { cost } from '../terminal/usage-text';
import type { CliIo } from './io';
import { write } from './io';
import { calendarFor, parseReportArgs, type ReportArgs } from './report-args';
import { UsageError, usageFailure } from './usage-error';

export const USAGE_COMMAND_HELP = `Usage: cli-subprocess-core usage [daily|monthly|session|model|cli] [options]

What the agent CLIs spent, from the sessions they stored on this machine (every CLI whose history is
read): tokens (input with its cache reads and writes, output with its reasoning) and cost, by local
day (the default), month, session (<cli>:<session id>), model or CLI.

Options:
  --since <date>, --until <date>
                 only these local days (YYYY-MM-DD or YYYYMMDD, inclusive)
  --provider <id>
                 only this CLI's sessions
  --timezone <tz>
                 days in this IANA time zone (default: the local one, TZ)
  --json         {"rows":[{"key",…figures}],"totals":{…figures}}: input_tokens, output_tokens,
                 cache_read_input_tokens, cache_write_input_tokens, reasoning_output_tokens,
                 total_tokens, cost_usd (null: no price), cost_source (reported, computed, mixed or
                 null), models, providers
  --no-cache     read every stored session again, and keep no cache
                 (default: $XDG_CACHE_HOME/cli-subprocess-core/usage.json, or ~/.cache/…)

A CLI that reports no price has its tokens priced by @pydantic/genai-prices' table: such costs are
computed, marked ~ (cost_source "computed"); a model the table does not know has no price.
`;

/** What the command needs besides its streams (tests inject a price table and count reads). */
export type UsageDeps = Partial<Pick<CollectOptions, 'prices' | 'readFile'>>;

/** `usage`'s command line (after `usage`): its options and grouping, or `'help'`; a UsageError for a line it does not take. */
export function usageArgs(argv: readonly string[]): { args: ReportArgs; grouping: UsageGrouping } | 'help' {
  const args = parseReportArgs('usage', argv, ['--since', '--until', '--provider', '--timezone', '--json', '--no-cache']);
  if (args === 'help') return 'help';
  if (args.positionals.length > 1) throw new UsageError('usage takes at most one grouping');
  const asked = args.positionals[0] ?? 'daily';
  if (!(USAGE_GROUPINGS as readonly string[]).includes(asked))
    throw new UsageError(`usage groups by ${USAGE_GROUPINGS.join(', ')}; got ${JSON.stringify(asked)}`);
  return { args, grouping: asked as UsageGrouping };
}

/** `usage [grouping] [options]`: the table, or `--json`. 0 done, 2 usage error. */
export async function usageCommand(argv: readonly string[], io: CliIo, deps: UsageDeps = {}): Promise<number> {
  let line: ReturnType<typeof usageArgs>;
  try {
    line = usageArgs(argv);
    if (line === 'help') {
      await write(io.stdout, USAGE_COMMAND_HELP);
      return 0;
    }
  } catch (error) {
    return usageFailure(error, io, USAGE_COMMAND_HELP);
  }
  const { args, grouping } = line;
  const { sessions, prices } = await storedSessions(args, io, deps);
  const report = usageReport(sessions, grouping, args, calendarFor(args, io.env ?? process.env));
  if (args.json) {
    await write(io.stdout, `${JSON.stringify(report.json)}\n`);
    return 0;
  }
  await write(io.stdout, await usageTable(report, grouping, prices, io));
  return 0;
}

/**
 * Every stored session (of `--provider`) with its usage, read through the cache unless `--no-cache`
 * (`usage` and `history` alike), and the prices it was read with.
 */
export async function storedSessions(
  args: Pick<ReportArgs, 'provider' | 'noCache'>,
  io: CliIo,
  deps: UsageDeps,
): Promise<{ sessions: SessionUsage[]; prices: PriceTable }> {
  const env = io.env ?? process.env;
  const prices = deps.prices ?? (await import('../spend/price-table')).genaiPriceTable();
  const sessions = await collectSessions({
    env,
    provider: args.provider,
    prices,
    cacheFile: args.noCache ? null : defaultCacheFile(env),
    readFile: deps.readFile,
  });
  return { sessions, prices };
}

const TOTAL_LABEL = 'Total';

const HEADINGS: Record<UsageGrouping, string> = { daily: 'Date', monthly: 'Month', session: 'Session', model: 'Model', cli: 'CLI' };

/** The report as a table for a person, with a line on where computed prices come from. */
async function usageTable(
  { json: report, partlyPriced }: UsageReport,
  grouping: UsageGrouping,
  prices: PriceTable,
  io: CliIo,
): Promise<string> {
  const { plain, renderTable, widthOf, wrapLines } = await import('../terminal/table');
  const { colorEnabled, palette } = await import('../terminal/style');
  const stdout = io.stdout as CliIo['stdout'] & { isTTY?: boolean; columns?: number };
  const colors = palette(colorEnabled(stdout, io.env ?? process.env));
  if (report.rows.length === 0) return 'No usage found in the CLIs\u2019 stored sessions.\n';
  const columns = [
    { heading: HEADINGS[grouping], align: 'left' as const, drop: 0, whole: grouping === 'session' },
    { heading: 'Input', align: 'right' as const, drop: 0 },
    { heading: 'Output', align: 'right' as const, drop: 0 },
    { heading: 'Cache read', align: 'right' as const, drop: 3 },
    { heading: 'Cache write', align: 'right' as const, drop: 4 },
    { heading: 'Reasoning', align: 'right' as const, drop: 5 },
    { heading: 'Total', align: 'right' as const, drop: 2 },
    { heading: 'Cost', align: 'right' as const, drop: 0 },
    { heading: grouping === 'model' ? 'CLIs' : 'Models', align: 'left' as const, drop: 6 },
  ];
  const cells = (key: string, row: UsageFiguresJson, partly: boolean) => [
    plain(key),
    count(row.input_tokens),
    count(row.output_tokens),
    count(row.cache_read_input_tokens),
    count(row.cache_write_input_tokens),
    count(row.reasoning_output_tokens),
    count(row.total_tokens),
    costText(row, colors.dim) + (partly ? '+' : ''),
    // The totals' list would be every model: the rows name them.
    key === TOTAL_LABEL ? '' : plain((grouping === 'model' ? row.providers : row.models).join(', ')),
  ];
  const width = widthOf(stdout);
  const table = renderTable(
    columns,
    report.rows.map((row) => cells(row.key, row, partlyPriced.has(row.key))),
    [cells(TOTAL_LABEL, report.totals, partlyPriced.has(TOTALS_KEY))],
    width,
    colors,
  );
  const computed = report.rows.some((row) => row.cost_source === 'computed' || row.cost_source === 'mixed');
  const notes = [
    computed ? `~ computed from ${prices.version}'s prices: the CLI reported none` : '',
    partlyPriced.size > 0 ? '+ and tokens of a model with no price (not in the price table)' : '',
  ].filter((note) => note !== '');
  return table + notes.map((note) => colors.dim(wrapLines(note, width))).join('');
}

const count = (n: number) => n.toLocaleString('en-US');

/** `$1.23` as reported, `~$1.23` computed (in part or whole), `no price`. */
export function costText(row: Pick<UsageFiguresJson, 'cost_usd' | 'cost_source'>, dim: (text: string) => string): string {
  if (row.cost_usd === null) return dim('no price');
  const text = cost(row.cost_usd);
  return row.cost_source === 'reported' ? text : `~${text}`;
}
