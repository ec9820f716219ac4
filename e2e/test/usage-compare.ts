import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { E2E_BIN } from '../scripted/setup';
import type { UsageCli } from './usage-history';
import type { UsageRowJson } from '../../src/spend/usage-report';

/*
 * `usage daily --json` of this project beside `ccusage daily --json` (npm `ccusage`, pinned in
 * e2e/package.json) over one HOME: each run, each day's figures put in the same terms, and the
 * side-by-side table of docs/usage-vs-ccusage.md. Used by usage-ccusage.spec.ts, the script
 * scripts/usage-vs-ccusage.ts and the bench bench/usage-vs-ccusage.ts.
 *
 * ccusage 20.0.24 (a native binary behind a Node launcher; no install script needed: the launcher
 * makes it executable) reads every agent CLI it knows under HOME in its top-level `daily`, Claude
 * Code's `~/.claude/projects` and `~/.config/claude/projects` (or CLAUDE_CONFIG_DIR) and Codex's
 * `~/.codex/sessions` (or CODEX_HOME) among them; `ccusage claude daily` and `ccusage codex daily`
 * report one each. Its days are those of the local time zone (TZ, or `--timezone`), and `--offline`
 * prices with the LiteLLM table built into it instead of fetching the current one.
 */

const run = promisify(execFile);

/** The pinned ccusage's launcher. */
export const CCUSAGE = join(E2E_BIN, 'ccusage');

/** One model of a ccusage day. */
export interface CcusageModel {
  modelName: string;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  cost: number;
  /** The model is not in its price table: `cost` is 0. */
  missingPricing?: boolean;
}

/**
 * One day of `ccusage daily --json` (its `daily` array), or of `ccusage claude|codex daily --json`
 * put in the same shape. Its input leaves cache reads and writes out.
 */
export interface CcusageDay {
  period: string;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  /** Only `ccusage codex daily` reports them (part of the output). */
  reasoningOutputTokens?: number;
  totalTokens: number;
  totalCost: number;
  modelsUsed: string[];
  modelBreakdowns: CcusageModel[];
}

/** A day as each of ccusage's reports prints it: `daily` (`period`), `claude daily` (`date`), `codex daily` (`date`, `costUSD`, `models`). */
interface PrintedDay extends Partial<CcusageDay> {
  date?: string;
  costUSD?: number;
  models?: Record<string, Omit<CcusageModel, 'modelName' | 'cost'>>;
}

/** One row of `usage daily --json`: its input counts cache reads and writes in (src/providers/usage.ts). */
export type UsageRow = UsageRowJson;

/** The environment both run in: only HOME, the time zone their days are in, and PATH. */
export function reportEnv(home: string, timeZone: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TZ: timeZone, LANG: 'C.UTF-8' };
}

/**
 * `ccusage daily --json --offline` in `env` (every agent it finds), or `ccusage <cli> daily …` (one
 * CLI's): its days.
 */
export async function ccusageDaily(env: NodeJS.ProcessEnv, cli?: UsageCli): Promise<CcusageDay[]> {
  const args = [CCUSAGE, ...(cli ? [cli] : []), 'daily', '--json', '--offline'];
  const { stdout } = await run(process.execPath, args, { env, maxBuffer: 256 * 2 ** 20 });
  return (JSON.parse(stdout) as { daily: PrintedDay[] }).daily.map((day) => ({
    period: day.period ?? day.date ?? '',
    inputTokens: day.inputTokens ?? 0,
    outputTokens: day.outputTokens ?? 0,
    cacheCreationTokens: day.cacheCreationTokens ?? 0,
    cacheReadTokens: day.cacheReadTokens ?? 0,
    reasoningOutputTokens: day.reasoningOutputTokens,
    totalTokens: day.totalTokens ?? 0,
    totalCost: day.totalCost ?? day.costUSD ?? 0,
    modelsUsed: day.modelsUsed ?? Object.keys(day.models ?? {}),
    // `codex daily` prices the day as a whole: its models carry no cost of their own.
    modelBreakdowns:
      day.modelBreakdowns ?? Object.entries(day.models ?? {}).map(([modelName, model]) => ({ ...model, modelName, cost: 0 })),
  }));
}

/** `usage daily --json [--provider <cli>]` of the command-line program `mainJs` (a build's cli/main.js) in `env`: its rows. */
export async function usageDaily(mainJs: string, env: NodeJS.ProcessEnv, cli?: UsageCli): Promise<UsageRow[]> {
  const args = [mainJs, 'usage', 'daily', '--json', ...(cli ? ['--provider', cli] : [])];
  const { stdout } = await run(process.execPath, args, { env, maxBuffer: 256 * 2 ** 20 });
  return (JSON.parse(stdout) as { rows: UsageRow[] }).rows;
}

/** Token counts in this project's terms (input with the cache in it). */
export interface Tokens {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

/** A ccusage day in this project's terms: its input plus the cache reads and writes it leaves out. */
export function ccusageTokens(day: CcusageDay): Tokens {
  return {
    input_tokens: day.inputTokens + day.cacheReadTokens + day.cacheCreationTokens,
    cache_read_input_tokens: day.cacheReadTokens,
    cache_write_input_tokens: day.cacheCreationTokens,
    output_tokens: day.outputTokens,
    total_tokens: day.totalTokens,
  };
}

/** A usage row's token counts. */
export function usageTokens(row: UsageRow): Tokens {
  const { input_tokens, cache_read_input_tokens, cache_write_input_tokens, output_tokens, total_tokens } = row;
  return { input_tokens, cache_read_input_tokens, cache_write_input_tokens, output_tokens, total_tokens };
}

/** One day of both. */
export interface DayComparison {
  day: string;
  usage: UsageRow | undefined;
  ccusage: CcusageDay | undefined;
  /** The models of the day ccusage has no price for. */
  unpricedByCcusage: string[];
  /** Both priced every model of the day: their costs are comparable. */
  bothPrice: boolean;
  /** (usage − ccusage) / ccusage, where both price the day. */
  costDifference: number | null;
}

/** Both reports' days, side by side, in day order. */
export function compareDays(usage: readonly UsageRow[], ccusage: readonly CcusageDay[]): DayComparison[] {
  const days = [...new Set([...usage.map((row) => row.key), ...ccusage.map((day) => day.period)])].sort();
  return days.map((day) => {
    const ours = usage.find((row) => row.key === day);
    const theirs = ccusage.find((entry) => entry.period === day);
    const unpricedByCcusage = (theirs?.modelBreakdowns ?? []).filter((model) => model.missingPricing).map((model) => model.modelName);
    const bothPrice = ours?.cost_usd != null && theirs !== undefined && unpricedByCcusage.length === 0;
    const costDifference = bothPrice ? (ours.cost_usd! - theirs.totalCost) / theirs.totalCost : null;
    return { day, usage: ours, ccusage: theirs, unpricedByCcusage, bothPrice, costDifference };
  });
}

const usd = (value: number | null | undefined): string => (value == null ? 'no price' : `$${value.toFixed(6)}`);
const count = (value: number | undefined): string => (value === undefined ? '–' : value.toLocaleString('en-US'));

/**
 * The side-by-side table (Markdown), a row per day: each side's tokens (ccusage's input written as
 * its own input + cache reads + cache writes, the sum ours counts as input), cost, and the cost's
 * difference where both price every model of the day.
 */
export function comparisonTable(days: readonly DayComparison[]): string {
  const lines = [
    '| day | models | input: usage | input: ccusage (its input + cache read + cache write) | output: usage / ccusage | total: usage / ccusage | cost: usage | cost: ccusage | difference |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const { day, usage, ccusage, unpricedByCcusage, costDifference } of days) {
    const models = [...new Set([...(usage?.models ?? []), ...(ccusage?.modelsUsed ?? [])])].sort().join(', ');
    const theirInput = ccusage
      ? `${count(ccusageTokens(ccusage).input_tokens)} (${[ccusage.inputTokens, ccusage.cacheReadTokens, ccusage.cacheCreationTokens].map(count).join(' + ')})`
      : '–';
    const cells = [
      day,
      models,
      count(usage?.input_tokens),
      theirInput,
      `${count(usage?.output_tokens)} / ${count(ccusage?.outputTokens)}`,
      `${count(usage?.total_tokens)} / ${count(ccusage?.totalTokens)}`,
      `${usd(usage?.cost_usd)}${usage?.cost_source ? ` (${usage.cost_source})` : ''}`,
      ccusage ? usd(ccusage.totalCost) + (unpricedByCcusage.length ? ` (no price for ${unpricedByCcusage.join(', ')})` : '') : '–',
      costDifference === null ? '–' : `${(costDifference * 100).toFixed(3)} %`,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
