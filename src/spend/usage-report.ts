import { cliSessionKey } from '../history/session-key';
import { addUsage, type UsageFigures } from '../providers/usage';
import type { LocalCalendar } from './local-date';
import type { CostSource, SessionUsage, UsageEntry } from './session-usage';

/** How `usage` groups the entries: by local day or month, session, model or CLI. */
export type UsageGrouping = 'daily' | 'monthly' | 'session' | 'model' | 'cli';

export const USAGE_GROUPINGS: readonly UsageGrouping[] = ['daily', 'monthly', 'session', 'model', 'cli'];

/** The figures of a row or of the totals, as `usage --json` prints them. */
export interface UsageFiguresJson {
  /** All input tokens, cache reads and writes included (the usage rules). */
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_write_input_tokens: number;
  reasoning_output_tokens: number;
  /** `input_tokens + output_tokens`. */
  total_tokens: number;
  /** The price of the entries that have one (null: none has). */
  cost_usd: number | null;
  /** Where those prices come from; `mixed` when from both (null: no price). */
  cost_source: CostSource | 'mixed' | null;
  /** The models and CLIs that spent it, sorted. */
  models: string[];
  providers: string[];
}

/** One row: a day (`YYYY-MM-DD`), month (`YYYY-MM`), session (`<provider>:<id>`), model or CLI. */
export interface UsageRowJson extends UsageFiguresJson {
  key: string;
}

/** What `usage --json` prints. */
export interface UsageReportJson {
  rows: UsageRowJson[];
  totals: UsageFiguresJson;
}

/** A report, and which of its figures leave tokens out of their price. */
export interface UsageReport {
  readonly json: UsageReportJson;
  /** The keys of the rows part of whose tokens have no price (a model the table does not know); `totals` too when they do. */
  readonly partlyPriced: ReadonlySet<string>;
}

/** The key `partlyPriced` names the totals by (no row's key: a day, session, model or CLI is never empty). */
export const TOTALS_KEY = '';

/** Which entries count: local days from `since` to `until` (inclusive, `YYYY-MM-DD`), one CLI. */
export interface UsageFilter {
  readonly since?: string;
  readonly until?: string;
  readonly provider?: string;
}

/** The name a model with no name is grouped under. */
export const UNKNOWN_MODEL = 'unknown';

/**
 * The entries of `sessions` that pass `filter`, added up by `grouping` into rows (days and months in
 * order, the others largest first) and their totals. A price adds up from the entries that have one.
 */
export function usageReport(
  sessions: readonly SessionUsage[],
  grouping: UsageGrouping,
  filter: UsageFilter,
  calendar: LocalCalendar,
): UsageReport {
  const rows = new Map<string, Sum>();
  const totals = new Sum();
  for (const session of sessions) {
    const { provider, id } = session.ref;
    if (filter.provider !== undefined && provider !== filter.provider) continue;
    for (const entry of session.entries) {
      const day = calendar.day(entry.time);
      if ((filter.since !== undefined && day < filter.since) || (filter.until !== undefined && day > filter.until)) continue;
      const key =
        grouping === 'daily'
          ? day
          : grouping === 'monthly'
            ? day.slice(0, 7)
            : grouping === 'session'
              ? cliSessionKey(provider, id)
              : grouping === 'model'
                ? (entry.model ?? UNKNOWN_MODEL)
                : provider;
      let row = rows.get(key);
      if (row === undefined) rows.set(key, (row = new Sum()));
      row.add(entry, provider);
      totals.add(entry, provider);
    }
  }
  const ordered = [...rows].map(([key, sum]) => ({ key, ...sum.json() }));
  if (grouping === 'daily' || grouping === 'monthly') ordered.sort((a, b) => a.key.localeCompare(b.key));
  else ordered.sort((a, b) => b.total_tokens - a.total_tokens || a.key.localeCompare(b.key));
  const partlyPriced = new Set([...rows].filter(([, sum]) => sum.partlyPriced).map(([key]) => key));
  if (totals.partlyPriced) partlyPriced.add(TOTALS_KEY);
  return { json: { rows: ordered, totals: totals.json() }, partlyPriced };
}

/** Entries added up: the usage rules' sum of figures, with where the prices came from. */
class Sum {
  private figures: UsageFigures | null = null;
  private readonly sources = new Set<CostSource>();
  private readonly models = new Set<string>();
  private readonly providers = new Set<string>();
  private unpriced = false;

  /** Some entries have a price and some none: the price covers only part of the tokens. */
  get partlyPriced(): boolean {
    return this.unpriced && this.sources.size > 0;
  }

  add(entry: UsageEntry, provider: string): void {
    if (entry.cost_source === null) this.unpriced = true;
    this.figures = this.figures === null ? entry.figures : addUsage(this.figures, entry.figures);
    if (entry.cost_source !== null) this.sources.add(entry.cost_source);
    if (entry.model !== null) this.models.add(entry.model);
    this.providers.add(provider);
  }

  json(): UsageFiguresJson {
    const f = this.figures;
    const sources = [...this.sources];
    return {
      input_tokens: f?.input_tokens ?? 0,
      output_tokens: f?.output_tokens ?? 0,
      cache_read_input_tokens: f?.cache_read_input_tokens ?? 0,
      cache_write_input_tokens: f?.cache_write_input_tokens ?? 0,
      reasoning_output_tokens: f?.reasoning_output_tokens ?? 0,
      total_tokens: (f?.input_tokens ?? 0) + (f?.output_tokens ?? 0),
      cost_usd: f?.cost_usd ?? null,
      cost_source: sources.length === 0 ? null : sources.length === 1 ? sources[0] : 'mixed',
      models: [...this.models].sort(),
      providers: [...this.providers].sort(),
    };
  }
}
