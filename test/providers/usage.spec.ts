import 'reflect-metadata';
import { CostUpdatePayload } from '../../src/payloads/cost-update.payload';
import { readUsage, usageDraft, UsageTotals, type UsageAggregation, type UsageFigures } from '../../src/providers/usage';

/* The usage convention (#18 "Usage and cost must mean one thing across providers"): drafts, reading back, adding up. */

function payload(input: Parameters<typeof usageDraft>[0], aggregation: UsageAggregation): CostUpdatePayload {
  const draft = usageDraft(input, aggregation);
  if (draft.kind !== 'cost_update') throw new Error('not a cost_update');
  return CostUpdatePayload.parse(draft.payload);
}

const figures = (input: number, output: number, cost: number | null = null, parts: Partial<UsageFigures> = {}): UsageFigures => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: 0,
  cache_write_input_tokens: 0,
  reasoning_output_tokens: 0,
  cost_usd: cost,
  ...parts,
});

function total(updates: CostUpdatePayload[], baseline: UsageFigures | null = null): UsageFigures | null {
  const totals = new UsageTotals(baseline);
  for (const update of updates) totals.add(update);
  return totals.total;
}

describe('usageDraft', () => {
  it('writes the figures, their sum, the aggregation and whether a price was reported', () => {
    const draft = usageDraft(
      { input_tokens: 1200, output_tokens: 345, cache_read_input_tokens: 200, reasoning_output_tokens: 5, cost_usd: 0.5 },
      'delta',
      { native_usage: { x: 1 } },
    );
    expect(draft).toEqual({
      kind: 'cost_update',
      payload: {
        input_tokens: 1200,
        output_tokens: 345,
        total_tokens: 1545,
        cost_usd: 0.5,
        metadata: {
          native_usage: { x: 1 },
          aggregation: 'delta',
          cost_reported: true,
          cache_read_input_tokens: 200,
          cache_write_input_tokens: 0,
          reasoning_output_tokens: 5,
        },
      },
    });
  });

  // #18 "cost_usd: 0 also means no price reported".
  it('no price is cost_usd 0 with cost_reported false, never read back as $0', () => {
    const unpriced = payload({ input_tokens: 10, output_tokens: 2 }, 'cumulative');
    expect([unpriced.cost_usd, unpriced.metadata.cost_reported]).toEqual([0, false]);
    expect(readUsage(unpriced).figures.cost_usd).toBeNull();
    const free = payload({ input_tokens: 10, output_tokens: 2, cost_usd: 0 }, 'cumulative');
    expect(readUsage(free).figures.cost_usd).toBe(0);
  });

  it('odd native values count as 0 and an invalid price as none', () => {
    const odd = payload({ input_tokens: -5, output_tokens: 'many', cost_usd: Number.NaN }, 'delta');
    expect([odd.input_tokens, odd.output_tokens, odd.cost_usd, odd.metadata.cost_reported]).toEqual([0, 0, 0, false]);
  });

  it('a payload built without the convention reads as cumulative, priced when not 0', () => {
    expect(readUsage(CostUpdatePayload.parse({ input_tokens: 3, output_tokens: 4, cost_usd: 0.1 }))).toEqual({
      aggregation: 'cumulative',
      figures: figures(3, 4, 0.1),
    });
    expect(readUsage(CostUpdatePayload.parse({ input_tokens: 3 })).figures.cost_usd).toBeNull();
  });
});

// #18 "Aggregation is undeclared": RunOutcome.cost adds deltas, takes a cumulative series' last total, and leaves a resumed session's earlier runs out.
describe('UsageTotals', () => {
  it('is null with no update', () => {
    expect(total([])).toBeNull();
  });

  it('sums deltas (OpenCode steps, Amp messages)', () => {
    expect(
      total([
        payload({ input_tokens: 10, output_tokens: 1, cost_usd: 0.1 }, 'delta'),
        payload({ input_tokens: 20, output_tokens: 2, cost_usd: 0.2 }, 'delta'),
      ]),
    ).toEqual(figures(30, 3, 0.1 + 0.2));
  });

  it('takes the last of a cumulative series (Claude results, Codex turns), not their sum', () => {
    const updates = [
      payload({ input_tokens: 100, output_tokens: 10, cost_usd: 0.01 }, 'cumulative'),
      payload({ input_tokens: 250, output_tokens: 30, cost_usd: 0.03 }, 'cumulative'),
    ];
    expect(total(updates)).toEqual(figures(250, 30, 0.03));
  });

  it('a resumed session: the saved total before the run is left out (2,000 reported, 1,000 used)', () => {
    const update = payload({ input_tokens: 2000, output_tokens: 40, cache_read_input_tokens: 800 }, 'cumulative');
    expect(total([update], figures(1000, 20, null))).toEqual(figures(1000, 20, null, { cache_read_input_tokens: 800 }));
    const priced = payload({ input_tokens: 432, output_tokens: 4, cost_usd: 0.0013856 }, 'cumulative');
    expect(total([priced], figures(216, 2, 0.0006928))?.cost_usd).toBeCloseTo(0.0006928, 10);
  });

  it('a total below the previous one starts a new series (a /clear, another thread): both series count', () => {
    const updates = [
      payload({ input_tokens: 500, output_tokens: 50 }, 'cumulative'),
      payload({ input_tokens: 100, output_tokens: 5 }, 'cumulative'),
      payload({ input_tokens: 300, output_tokens: 9 }, 'cumulative'),
    ];
    expect(total(updates, figures(200, 20))).toEqual(figures(300 + 300, 30 + 9, null));
  });

  it('a price adds up from the parts that have one; none at all is null', () => {
    expect(
      total([payload({ input_tokens: 1, output_tokens: 1 }, 'delta'), payload({ input_tokens: 1, output_tokens: 1 }, 'delta')])?.cost_usd,
    ).toBeNull();
    expect(
      total([
        payload({ input_tokens: 1, output_tokens: 1 }, 'delta'),
        payload({ input_tokens: 1, output_tokens: 1, cost_usd: 0.5 }, 'delta'),
      ])?.cost_usd,
    ).toBe(0.5);
  });

  it('taken up from its state kept as JSON after each update (a run record), it adds up as if never put down', () => {
    const updates = [
      payload({ input_tokens: 500, output_tokens: 50, cost_usd: 0.1 }, 'cumulative'),
      payload({ input_tokens: 7, output_tokens: 1 }, 'delta'),
      payload({ input_tokens: 100, output_tokens: 5, cost_usd: 0.02 }, 'cumulative'),
      payload({ input_tokens: 300, output_tokens: 9, cost_usd: 0.05 }, 'cumulative'),
      payload({ input_tokens: 3, output_tokens: 2, cost_usd: 0.5 }, 'delta'),
    ];
    let state = new UsageTotals(figures(200, 20, 0.04)).state;
    for (const update of updates) {
      const totals = UsageTotals.fromState(JSON.parse(JSON.stringify(state)));
      totals.add(update);
      state = totals.state;
    }
    expect(UsageTotals.fromState(state).total).toEqual(total(updates, figures(200, 20, 0.04)));
  });
});
