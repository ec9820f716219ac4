import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { usePrivateBuild } from '../../test/build-copy';
import {
  ccusageDaily,
  ccusageTokens,
  compareDays,
  comparisonTable,
  reportEnv,
  usageDaily,
  usageTokens,
  type CcusageDay,
  type UsageRow,
} from './usage-compare';
import { COMPARISON_SESSIONS, dayIn, writeHistory } from './usage-history';

/*
 * `usage daily --json` against ccusage (the pinned npm `ccusage`, e2e/package.json) over the same
 * history in a throwaway HOME: copies of sessions the pinned Claude Code (claude-sonnet-4-5, which
 * ccusage prices, and its default claude-opus-5-5, which it does not) and Codex (gpt-5.5) stored
 * themselves, on five days. Tokens must agree exactly once put in the same terms (ccusage's input
 * leaves the cache out, ours counts it in), and cost within 1% wherever both price every model of
 * the day; the same for each CLI alone (`--provider`, `ccusage claude|codex daily`), Codex's reasoning
 * tokens too. Both run in a time zone east of UTC, where one session of the UTC evening is the next day.
 * USAGE_VS_CCUSAGE_TABLE=1 prints the side-by-side table (scripts/usage-vs-ccusage.ts prints it too).
 */

const TIME_ZONE = 'Asia/Tokyo';
const build = usePrivateBuild('e2e-usage-ccusage');

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'usage-ccusage-home-'));
  writeHistory(home);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('usage daily --json agrees with ccusage over the same Claude Code and Codex history', () => {
  let ours: UsageRow[];
  let theirs: CcusageDay[];
  beforeAll(async () => {
    const env = reportEnv(home, TIME_ZONE);
    [ours, theirs] = await Promise.all([usageDaily(join(build.dir, 'cli/main.js'), env), ccusageDaily(env)]);
    if (process.env.USAGE_VS_CCUSAGE_TABLE) process.stdout.write(`${comparisonTable(compareDays(ours, theirs))}\n`);
  }, 120_000);

  it('both report the days of the sessions in the local time zone', () => {
    const days = [...new Set(COMPARISON_SESSIONS.map((session) => dayIn(new Date(session.start), TIME_ZONE)))].sort();
    // The UTC-evening session makes a day of its own there.
    expect(days).toHaveLength(5);
    expect(theirs.map((day) => day.period)).toEqual(days);
    expect(ours.map((row) => row.key)).toEqual(days);
  });

  it('counts the same tokens each day, input with the cache in it on both sides, and the same models', () => {
    for (const { day, usage, ccusage } of compareDays(ours, theirs)) {
      expect({ day, tokens: usageTokens(usage!) }).toEqual({ day, tokens: ccusageTokens(ccusage!) });
      expect({ day, models: [...usage!.models].sort() }).toEqual({ day, models: [...ccusage!.modelsUsed].sort() });
    }
    // Cache reads and writes are both there to compare (Claude Code writes the cache, Codex reads it).
    expect(theirs.every((day) => day.cacheReadTokens > 0)).toBe(true);
    expect(theirs.some((day) => day.cacheCreationTokens > 0)).toBe(true);
  });

  it('prices each day within 1% of ccusage wherever both price its models', () => {
    const days = compareDays(ours, theirs);
    for (const { day, usage, ccusage, unpricedByCcusage, costDifference } of days) {
      if (unpricedByCcusage.length > 0) continue;
      expect({ day, cost: usage!.cost_usd }).toEqual({ day, cost: expect.any(Number) });
      expect(ccusage!.totalCost).toBeGreaterThan(0);
      expect({ day, within1Percent: Math.abs(costDifference!) < 0.01 }).toEqual({ day, within1Percent: true });
    }
    // The sonnet-only day, the Codex-only day, the mixed one and the evening one: four compared.
    expect(days.filter((day) => day.bothPrice)).toHaveLength(4);
  });

  it('prices claude-opus-5-5, for which ccusage has no price', () => {
    const opusDay = compareDays(ours, theirs).find((day) => day.unpricedByCcusage.length > 0);
    expect(opusDay?.unpricedByCcusage).toEqual(['claude-opus-5-5']);
    expect(opusDay?.usage?.cost_usd).toBeGreaterThan(opusDay!.ccusage!.totalCost);
  });

  it('answers the same from its cache on a second run', async () => {
    const again = await usageDaily(join(build.dir, 'cli/main.js'), reportEnv(home, TIME_ZONE));
    expect(again).toEqual(ours);
  });
});

describe.each(['claude', 'codex'] as const)('usage daily --json --provider %s agrees with ccusage’s report of that CLI alone', (cli) => {
  it("counts the same tokens each day and the same cost (and Codex's reasoning tokens)", async () => {
    const env = reportEnv(home, TIME_ZONE);
    const [ours, theirs] = await Promise.all([usageDaily(join(build.dir, 'cli/main.js'), env, cli), ccusageDaily(env, cli)]);
    const days = [
      ...new Set(COMPARISON_SESSIONS.filter((session) => session.cli === cli).map((session) => dayIn(new Date(session.start), TIME_ZONE))),
    ];
    expect(ours.map((row) => row.key)).toEqual(days.sort());
    expect(theirs.map((day) => day.period)).toEqual(days);
    for (const { day, usage, ccusage, unpricedByCcusage, costDifference } of compareDays(ours, theirs)) {
      expect({ day, providers: usage!.providers }).toEqual({ day, providers: [cli] });
      expect({ day, tokens: usageTokens(usage!) }).toEqual({ day, tokens: ccusageTokens(ccusage!) });
      // Only `ccusage codex daily` reports reasoning tokens.
      if (cli === 'codex')
        expect({ day, reasoning: usage!.reasoning_output_tokens }).toEqual({ day, reasoning: ccusage!.reasoningOutputTokens });
      if (unpricedByCcusage.length === 0)
        expect({ day, within1Percent: Math.abs(costDifference!) < 0.01 }).toEqual({ day, within1Percent: true });
    }
    if (cli === 'codex') expect(ours.some((row) => row.reasoning_output_tokens > 0)).toBe(true);
  });
});
