import type { CostUpdatePayload } from '../payloads/cost-update.payload';
import type { JsonObject } from '../schema/json';
import type { EventDraft } from './profile';

/*
 * The usage convention: what a `cost_update` means, for every provider alike. The one home of it:
 * each profile maps its CLI's own figures into `UsageFigures` and calls `usageDraft`; readers
 * (the runner's outcome, projections) read them back with `readUsage` and add them up with
 * `UsageTotals`. The "Usage and cost" paragraph of docs/decoding.md states the same rules.
 *
 * - `input_tokens` counts **all** input, cache reads and cache writes included (Claude's, Amp's and
 *   OpenCode's own `input_tokens` leave the cache out; Codex's and Gemini's include it).
 * - `output_tokens` counts all output, reasoning included; `total_tokens` is their sum.
 * - The parts have the same metadata keys everywhere: `cache_read_input_tokens`,
 *   `cache_write_input_tokens` (parts of the input) and `reasoning_output_tokens` (part of the output).
 * - `cost_usd` is the provider's price. Codex, Gemini, Cursor and Amp report none: their `cost_usd` is
 *   0 with `metadata.cost_reported: false`, so "no price" is never read as "$0".
 * - `metadata.aggregation` says how updates add up: `cumulative` (a running total of the session so
 *   far, which the next one replaces: Claude's results, Codex's turns, Gemini's and Cursor's
 *   results) or `delta` (the usage of one step, to be summed: OpenCode's steps, Amp's messages).
 *   A cumulative total of a resumed session includes the earlier runs (both Claude and Codex carry
 *   the saved total over), so a run's own usage is its last total minus the session's total before it.
 */

/** How `cost_update` figures add up: a running total (`cumulative`) or one step's usage (`delta`). */
export type UsageAggregation = 'cumulative' | 'delta';

/** Token counts and price in the convention above. */
export interface UsageFigures {
  /** All input tokens, cache reads and writes included. */
  input_tokens: number;
  /** All output tokens, reasoning included. */
  output_tokens: number;
  /** Input tokens read from a prompt cache (part of `input_tokens`). */
  cache_read_input_tokens: number;
  /** Input tokens written to a prompt cache (part of `input_tokens`). */
  cache_write_input_tokens: number;
  /** Reasoning (thinking) tokens (part of `output_tokens`). */
  reasoning_output_tokens: number;
  /** The price in USD, or null when the provider reported none. */
  cost_usd: number | null;
}

/** The part of a provider's figures a profile fills in: input as all input, parts as they are known. */
export interface UsageInput {
  input_tokens?: unknown;
  output_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_write_input_tokens?: unknown;
  reasoning_output_tokens?: unknown;
  cost_usd?: unknown;
}

const COUNTS = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_write_input_tokens', 'reasoning_output_tokens'] as const;

/** A non-negative integer token count, or 0 (native lines are untrusted). */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** A price, or null when there is none (a non-finite or negative value is no price either). */
function price(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** `input` as figures: missing counts are 0, a missing or invalid price is null. */
export function usageFigures(input: UsageInput): UsageFigures {
  return {
    input_tokens: count(input.input_tokens),
    output_tokens: count(input.output_tokens),
    cache_read_input_tokens: count(input.cache_read_input_tokens),
    cache_write_input_tokens: count(input.cache_write_input_tokens),
    reasoning_output_tokens: count(input.reasoning_output_tokens),
    cost_usd: price(input.cost_usd),
  };
}

/**
 * The `cost_update` draft of `input`. `metadata` (the provider's own figures) is a fresh object the
 * draft takes over: the convention's keys are set on it rather than spread into a copy (an object
 * spread is a slow path of V8's on Node 20, and this runs for every usage line).
 */
export function usageDraft(input: UsageInput, aggregation: UsageAggregation, metadata: JsonObject = {}): EventDraft {
  const figures = usageFigures(input);
  metadata.aggregation = aggregation;
  metadata.cost_reported = figures.cost_usd !== null;
  metadata.cache_read_input_tokens = figures.cache_read_input_tokens;
  metadata.cache_write_input_tokens = figures.cache_write_input_tokens;
  metadata.reasoning_output_tokens = figures.reasoning_output_tokens;
  return {
    kind: 'cost_update',
    payload: {
      input_tokens: figures.input_tokens,
      output_tokens: figures.output_tokens,
      total_tokens: figures.input_tokens + figures.output_tokens,
      cost_usd: figures.cost_usd ?? 0,
      metadata,
    },
  };
}

/**
 * The figures and aggregation of a `cost_update` payload. A payload built elsewhere (without the
 * convention's metadata) reads as a cumulative total whose price is known when it is not 0.
 */
export function readUsage(payload: CostUpdatePayload): { figures: UsageFigures; aggregation: UsageAggregation } {
  const metadata = payload.metadata;
  const reported = typeof metadata.cost_reported === 'boolean' ? metadata.cost_reported : payload.cost_usd !== 0;
  return {
    aggregation: metadata.aggregation === 'delta' ? 'delta' : 'cumulative',
    figures: usageFigures({
      ...metadata,
      input_tokens: payload.input_tokens,
      output_tokens: payload.output_tokens,
      cost_usd: reported ? payload.cost_usd : null,
    }),
  };
}

/** Zero figures with a price of `cost` (0 for a known $0, null for none). */
function zero(cost: number | null): UsageFigures {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_write_input_tokens: 0,
    reasoning_output_tokens: 0,
    cost_usd: cost,
  };
}

/**
 * `a + sign·b`, field by field (never below 0). A price adds up from the parts that have one, and
 * is null only when none has; a difference has a price when `a` has one.
 */
function combine(a: UsageFigures, b: UsageFigures, sign: 1 | -1): UsageFigures {
  const out = zero(null);
  for (const key of COUNTS) out[key] = Math.max(0, a[key] + sign * b[key]);
  if (sign === 1) out.cost_usd = a.cost_usd === null && b.cost_usd === null ? null : (a.cost_usd ?? 0) + (b.cost_usd ?? 0);
  else out.cost_usd = a.cost_usd === null ? null : Math.max(0, a.cost_usd - (b.cost_usd ?? 0));
  return out;
}

/** `a + b`, field by field: the price of the parts that have one (null only when neither has). */
export function addUsage(a: UsageFigures, b: UsageFigures): UsageFigures {
  return combine(a, b, 1);
}

/**
 * What `after` adds to `before` (field by field, never below 0; no price when `after` has none):
 * one update's share of a `UsageTotals` total, read before and after `add`.
 */
export function usageIncrease(after: UsageFigures, before: UsageFigures | null): UsageFigures {
  return before === null ? after : combine(after, before, -1);
}

/** The inside of a `UsageTotals`, as JSON (`UsageTotals.state`, `UsageTotals.fromState`). */
export interface UsageState {
  readonly closed: UsageFigures | null;
  readonly deltas: UsageFigures | null;
  readonly last: UsageFigures | null;
  readonly base: UsageFigures;
}

/**
 * Adds up a run's `cost_update` events into the run's own usage: deltas are summed; of a cumulative
 * series the last total counts, minus the session's total before the run (`baseline`, for a resumed
 * session). A total below the previous one starts a new series (Claude's `/clear` resets its total;
 * another thread's log appended), whose own last total is added.
 */
export class UsageTotals {
  private closed: UsageFigures | null = null;
  private deltas: UsageFigures | null = null;
  private last: UsageFigures | null = null;
  private base: UsageFigures;

  constructor(baseline: UsageFigures | null = null) {
    this.base = baseline ?? zero(0);
  }

  /** Totals taken up where `state` (a `state` kept as JSON: a run's record) left them. */
  static fromState(state: UsageState): UsageTotals {
    const totals = new UsageTotals(state.base);
    totals.closed = state.closed;
    totals.deltas = state.deltas;
    totals.last = state.last;
    return totals;
  }

  /** What the totals hold, as plain JSON: a store keeps it so that usage adds up event by event, never by reading the stream again. */
  get state(): UsageState {
    return { closed: this.closed, deltas: this.deltas, last: this.last, base: this.base };
  }

  /** Notes one `cost_update` payload. */
  add(payload: CostUpdatePayload): void {
    const { figures, aggregation } = readUsage(payload);
    if (aggregation === 'delta') {
      this.deltas = this.deltas ? combine(this.deltas, figures, 1) : figures;
      return;
    }
    const previous = this.last;
    if (previous && COUNTS.some((key) => figures[key] < previous[key])) {
      const series = combine(previous, this.base, -1);
      this.closed = this.closed ? combine(this.closed, series, 1) : series;
      this.base = zero(0);
    }
    this.last = figures;
  }

  /** The run's own usage so far, or null when nothing was reported. */
  get total(): UsageFigures | null {
    const parts = [this.closed, this.last && combine(this.last, this.base, -1), this.deltas].filter(
      (part): part is UsageFigures => part !== null,
    );
    if (parts.length === 0) return null;
    return parts.reduce((sum, part) => combine(sum, part, 1));
  }
}
