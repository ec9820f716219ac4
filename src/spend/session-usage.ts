import type { AnyEvent } from '../events/event';
import type { CliSessionRef } from '../history';
import { obj, str } from '../providers/drafts';
import { UsageTotals, usageIncrease, type UsageFigures } from '../providers/usage';
import type { PriceTable } from './price-table';

/** Where a price comes from: the CLI's own report, or the price table (`computed`). */
export type CostSource = 'reported' | 'computed';

/** One usage update of a session: what it added, when, and by which model. */
export interface UsageEntry {
  /** ISO 8601 time of the update. */
  readonly time: string;
  /** The model that spent it, where the session says (null: it does not). */
  readonly model: string | null;
  /** What it added (the usage rules' figures); `cost_usd` reported, else computed, else null ("no price"). */
  readonly figures: UsageFigures;
  /** Where `figures.cost_usd` comes from (null: no price). */
  readonly cost_source: CostSource | null;
}

/** A stored session as `usage` and `history` read it: its ref, its turns and its usage, update by update. */
export interface SessionUsage {
  readonly ref: CliSessionRef;
  /** The prompts the user typed (not the context a CLI sends as a prompt, nor a subagent's). */
  readonly turns: number;
  readonly entries: readonly UsageEntry[];
}

/** What a session's events say of its usage, before its ref is known (its lines are read once for both). */
export interface SessionTally {
  readonly turns: number;
  /** Unpriced when the CLI gave no price; `model` null where the events named none. */
  readonly entries: readonly UsageEntry[];
}

/**
 * Reads one session's events into its usage: each `cost_update` added to the session's
 * `UsageTotals` (the usage rules: deltas summed, a cumulative series' last total), and what each
 * added kept as an entry, so entries add up to the session's total and can be grouped by day or
 * model. An entry's model is the update's own, else the last one the session named.
 */
export async function tallySession(events: AsyncIterable<AnyEvent>): Promise<SessionTally> {
  const totals = new UsageTotals();
  const entries: UsageEntry[] = [];
  let turns = 0;
  let model: string | null = null;
  for await (const event of events) {
    switch (event.kind) {
      case 'run_started':
        model ??= str(event.payload.metadata.model);
        break;
      case 'assistant_message':
        model = event.payload.model ?? model;
        break;
      case 'user_message':
        if (isTypedPrompt(event.payload.metadata)) turns++;
        break;
      case 'cost_update': {
        const before = totals.total;
        totals.add(event.payload);
        const after = totals.total;
        if (after === null) break;
        const added = usageIncrease(after, before);
        if (added.input_tokens === 0 && added.output_tokens === 0 && !added.cost_usd) break;
        const metadata = event.payload.metadata;
        const spentBy = str(metadata.model) ?? str(obj(metadata.native_usage)?.model) ?? model;
        entries.push({ time: event.timestamp.toISOString(), model: spentBy, figures: added, cost_source: null });
        break;
      }
    }
  }
  return { turns, entries };
}

/**
 * The session's usage: its tally with the ref's model for an update that named none, each entry
 * priced (the reported price, else the table's, marked `computed`, else none).
 */
export function sessionUsage(ref: CliSessionRef, tally: SessionTally, prices: PriceTable): SessionUsage {
  const entries = tally.entries.map((entry) => priced(entry.model === null ? { ...entry, model: ref.model } : entry, prices));
  return { ref, turns: tally.turns, entries };
}

/** A user message the user wrote: not context a CLI sends as a prompt, nor its own notes, nor a subagent's. */
function isTypedPrompt(metadata: Record<string, unknown>): boolean {
  return metadata.context !== true && metadata.meta !== true && metadata.sidechain !== true && metadata.compact_summary !== true;
}

/** The entry with its price: the reported one, else the table's, else none. */
function priced(entry: UsageEntry, prices: PriceTable): UsageEntry {
  if (entry.figures.cost_usd !== null) return { ...entry, cost_source: 'reported' };
  const cost = entry.model === null ? null : prices.price(entry.model, entry.figures, new Date(entry.time));
  return cost === null ? entry : { ...entry, figures: { ...entry.figures, cost_usd: cost }, cost_source: 'computed' };
}
