import {
  addUsage,
  UsageTotals,
  usageDraft,
  usageFigures,
  usageIncrease,
  type UsageAggregation,
  type UsageFigures,
} from '../../src/providers/usage';
import type { CostUpdatePayload } from '../../src/payloads/cost-update.payload';

/*
 * What each update adds (`usageIncrease` of the totals before and after it), the share `usage`
 * counts on the update's day and model: the shares add up to `UsageTotals.total` whatever the series.
 */

const update = (input: number, output: number, aggregation: UsageAggregation, cost: number | null = null) =>
  usageDraft({ input_tokens: input, output_tokens: output, cache_read_input_tokens: Math.floor(input / 2), cost_usd: cost }, aggregation)
    .payload as unknown as CostUpdatePayload;

function shares(updates: CostUpdatePayload[]): { shares: UsageFigures[]; total: UsageFigures | null } {
  const totals = new UsageTotals();
  const out: UsageFigures[] = [];
  for (const payload of updates) {
    const before = totals.total;
    totals.add(payload);
    out.push(usageIncrease(totals.total as UsageFigures, before));
  }
  return { shares: out, total: totals.total };
}

describe('usageIncrease', () => {
  it.each([
    ['a running total', [update(100, 10, 'cumulative'), update(250, 30, 'cumulative'), update(400, 31, 'cumulative')]],
    [
      'a running total reset (/clear) and started again',
      [update(100, 10, 'cumulative'), update(300, 20, 'cumulative'), update(50, 5, 'cumulative'), update(80, 9, 'cumulative')],
    ],
    ['steps, each its own usage', [update(100, 10, 'delta', 0.5), update(30, 3, 'delta', 0.25)]],
    ['steps and a running total in one session', [update(100, 10, 'delta'), update(70, 7, 'cumulative'), update(90, 8, 'cumulative')]],
  ])('%s: the shares add up to the total', (_name, updates) => {
    const { shares: each, total } = shares(updates);
    for (const share of each) for (const value of Object.values(share)) expect(value === null || value >= 0).toBe(true);
    const sum = each.reduce((a, b) => addUsage(a, b));
    expect(sum).toEqual(total);
  });

  it('a running total\u2019s share is its difference from the one before', () => {
    const { shares: each } = shares([update(100, 10, 'cumulative'), update(250, 30, 'cumulative')]);
    expect(each[1]).toMatchObject({ input_tokens: 150, output_tokens: 20, cache_read_input_tokens: 75 });
  });

  it('a price adds up from the shares that have one, and is null only when none has', () => {
    const part = usageFigures({ input_tokens: 10, output_tokens: 1 });
    expect(addUsage({ ...part, cost_usd: null }, { ...part, cost_usd: 0.5 })).toMatchObject({ input_tokens: 20, cost_usd: 0.5 });
    expect(addUsage({ ...part, cost_usd: null }, { ...part, cost_usd: null }).cost_usd).toBeNull();
    // A running total with no price has shares with none.
    expect(usageIncrease({ ...part, input_tokens: 30 }, part)).toMatchObject({ input_tokens: 20, cost_usd: null });
  });
});
