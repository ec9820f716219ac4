/**
 * `usage daily --json` against `ccusage daily --json --offline` over about 1 GB of Claude Code and
 * Codex history: copies of the sessions the pinned CLIs stored (e2e/test/usage-history.ts: new ids,
 * times spread over BENCH_USAGE_DAYS days) written once into a temp HOME and removed at the end.
 *   node -r ts-node/register/transpile-only bench/usage-vs-ccusage.ts [--json]
 * Each is run as a command in that HOME: `usage` first cold (no cache of parsed files) then warm
 * (its cache filled by the first run), ccusage three times (it keeps no cache; the files are in the
 * page cache for every run, having just been written). Reported per run: wall time and the CPU time
 * of the child (user + system, from /proc/self/stat: comparable on a busy machine), and the ratios
 * usage / ccusage (ccusage's median run). Both must report the same tokens (the comparison's terms,
 * e2e/test/usage-compare.ts), else the figures compare different work: `agree` says so and the exit
 * code is 1. BENCH_USAGE_MB sets the size (default 1024). Skipped (exit 0) when ccusage is not
 * installed (npm install --prefix e2e) or the temp dir has not twice that much room.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { privateBuild } from '../test/build-copy';
import { CCUSAGE, ccusageTokens, reportEnv, usageTokens, type CcusageDay, type Tokens, type UsageRow } from '../e2e/test/usage-compare';
import {
  capturedSession,
  CODEX_THINKING,
  CODEX_TOOL,
  CODEX_TWO_TURNS,
  OPUS,
  SONNET,
  writeSessionCopy,
  type CapturedSession,
} from '../e2e/test/usage-history';

const asJson = process.argv.includes('--json');
const TARGET_BYTES = (Number(process.env.BENCH_USAGE_MB) || 1024) * 2 ** 20;
const DAYS = Number(process.env.BENCH_USAGE_DAYS) || 90;
const log = (text: string) => process.stderr.write(`${text}\n`);
const run = promisify(execFile);

/** CPU time (user + system) of this process's waited-for children so far, in ms (Linux). */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // After "pid (comm) ": state is field 3, cutime field 16 and cstime field 17 (proc(5)), in clock ticks (100 Hz).
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

interface Timed<T> {
  wall_ms: number;
  cpu_ms: number;
  result: T;
}

async function timed<T>(command: () => Promise<T>): Promise<Timed<T>> {
  const cpu = childrenCpuMs();
  const start = process.hrtime.bigint();
  const result = await command();
  return { wall_ms: Math.round(Number(process.hrtime.bigint() - start) / 1e6), cpu_ms: childrenCpuMs() - cpu, result };
}

/** Copies of the captured sessions, round robin, until `TARGET_BYTES` are written. */
function writeLargeHistory(home: string): { files: number; bytes: number } {
  const sources: CapturedSession[] = [
    capturedSession('claude', SONNET),
    capturedSession('claude', OPUS),
    capturedSession('codex', CODEX_TOOL),
    capturedSession('codex', CODEX_THINKING),
    capturedSession('codex', CODEX_TWO_TURNS),
  ];
  const first = Date.UTC(2026, 0, 1, 8);
  let bytes = 0;
  let files = 0;
  while (bytes < TARGET_BYTES) {
    const source = sources[files % sources.length];
    // Spread over the days and the hours of each day.
    const start = new Date(first + (files % DAYS) * 86_400_000 + ((files * 7919) % 43_200) * 1000);
    bytes += statSync(writeSessionCopy(source, home, `b${files}`, start)).size;
    files++;
  }
  return { files, bytes };
}

const sum = (tokens: Tokens[]): Tokens =>
  tokens.reduce(
    (total, each) => ({
      input_tokens: total.input_tokens + each.input_tokens,
      cache_read_input_tokens: total.cache_read_input_tokens + each.cache_read_input_tokens,
      cache_write_input_tokens: total.cache_write_input_tokens + each.cache_write_input_tokens,
      output_tokens: total.output_tokens + each.output_tokens,
      total_tokens: total.total_tokens + each.total_tokens,
    }),
    { input_tokens: 0, cache_read_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 0, total_tokens: 0 },
  );

function skip(why: string): void {
  if (asJson) process.stdout.write(`${JSON.stringify({ skipped: why })}\n`);
  else process.stdout.write(`usage vs ccusage: skipped: ${why}\n`);
}

async function main(): Promise<void> {
  if (!existsSync(CCUSAGE)) return skip('ccusage is not installed (npm install --prefix e2e)');
  const temp = tmpdir();
  const free = statfsSync(temp).bavail * statfsSync(temp).bsize;
  if (free < 2 * TARGET_BYTES)
    return skip(`${temp} has ${Math.round(free / 2 ** 20)} MB free, under twice the ${TARGET_BYTES / 2 ** 20} MB needed`);

  log('building src/ privately');
  const build = privateBuild('bench-usage');
  const home = mkdtempSync(join(temp, 'bench-usage-home-'));
  try {
    log(`writing ${TARGET_BYTES / 2 ** 20} MB of history into ${home}`);
    const generating = process.hrtime.bigint();
    const history = writeLargeHistory(home);
    const generation_ms = Math.round(Number(process.hrtime.bigint() - generating) / 1e6);
    const env = reportEnv(home, 'UTC');
    const usage = () =>
      run(process.execPath, [join(build.dir, 'cli/main.js'), 'usage', 'daily', '--json'], { env, maxBuffer: 256 * 2 ** 20 }).then(
        ({ stdout }) => (JSON.parse(stdout) as { rows: UsageRow[] }).rows,
      );
    const ccusage = () =>
      run(process.execPath, [CCUSAGE, 'daily', '--json', '--offline'], { env, maxBuffer: 256 * 2 ** 20 }).then(
        ({ stdout }) => (JSON.parse(stdout) as { daily: CcusageDay[] }).daily,
      );
    log('usage, cold');
    const usageCold = await timed(usage);
    log('usage, warm');
    const usageWarm = await timed(usage);
    log('ccusage, three times');
    const ccusageRuns = [await timed(ccusage), await timed(ccusage), await timed(ccusage)];
    // The median run by wall time: ccusage's own run-to-run noise is a large part of its short runs.
    const ccusageMedian = [...ccusageRuns].sort((a, b) => a.wall_ms - b.wall_ms)[1];

    const ours = sum(usageCold.result.map(usageTokens));
    const theirs = sum(ccusageMedian.result.map(ccusageTokens));
    const agree =
      JSON.stringify(ours) === JSON.stringify(theirs) && JSON.stringify(sum(usageWarm.result.map(usageTokens))) === JSON.stringify(ours);
    const figures = (each: Timed<unknown>) => ({ wall_ms: each.wall_ms, cpu_ms: each.cpu_ms });
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    const result = {
      node: process.version,
      history: { ...history, days: DAYS, generation_ms },
      usage_cold: figures(usageCold),
      usage_warm: figures(usageWarm),
      ccusage: ccusageRuns.map(figures),
      ratios: {
        cold_wall: ratio(usageCold.wall_ms, ccusageMedian.wall_ms),
        cold_cpu: ratio(usageCold.cpu_ms, ccusageMedian.cpu_ms),
        warm_wall: ratio(usageWarm.wall_ms, ccusageMedian.wall_ms),
        warm_cpu: ratio(usageWarm.cpu_ms, ccusageMedian.cpu_ms),
      },
      tokens: { usage: ours, ccusage: theirs },
      agree,
    };
    if (asJson) process.stdout.write(`${JSON.stringify(result)}\n`);
    else {
      const row = (name: string, each: Timed<unknown>) =>
        `| ${name} | ${each.wall_ms.toLocaleString('en-US')} | ${each.cpu_ms.toLocaleString('en-US')} |`;
      process.stdout.write(
        [
          `usage daily --json vs ccusage daily --json --offline over ${(history.bytes / 2 ** 20).toFixed(0)} MB of history (${history.files.toLocaleString('en-US')} session files over ${DAYS} days; node ${process.version})`,
          '',
          '| run | wall ms | CPU ms |',
          '| --- | ---: | ---: |',
          row('usage, cold (no cache)', usageCold),
          row('usage, warm (its cache)', usageWarm),
          ...ccusageRuns.map((each, index) => row(`ccusage, run ${index + 1}`, each)),
          '',
          `usage / ccusage (its median run): cold ${result.ratios.cold_wall}× wall, ${result.ratios.cold_cpu}× CPU; warm ${result.ratios.warm_wall}× wall, ${result.ratios.warm_cpu}× CPU`,
          agree ? 'both report the same tokens' : `the tokens differ: usage ${JSON.stringify(ours)}, ccusage ${JSON.stringify(theirs)}`,
          '',
        ].join('\n'),
      );
    }
    if (!agree) process.exitCode = 1;
  } finally {
    rmSync(home, { recursive: true, force: true });
    build.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
