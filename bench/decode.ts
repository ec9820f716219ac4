/**
 * Decode throughput per provider: ns per native line of each provider's fixture transcripts
 * (test/fixtures/providers/<provider>/: our captures and the public transcripts), for
 * `JSON.parse` of the same lines and for `createDecoder(provider).push` with keepRaw 'all'
 * (the default) and 'none'.
 *   node --expose-gc -r ts-node/register/transpile-only bench/decode.ts [--json]
 * Each provider's transcripts are repeated to at least BENCH_LINES lines (default 50,000).
 * Contenders run in interleaved rounds, as in bench/run.ts: every chunk of CHUNK lines is fed to
 * every contender in a rotated order, so a drift in machine speed hits them alike; figures are
 * medians over rounds, and each ratio is the median of the ratios paired within one round.
 * Each provider's block of a round starts with a forced full GC (BENCH_GC=0 leaves them out).
 * BENCH_PROVIDERS=<id,…> runs a subset; BENCH_ROUNDS sets the rounds (default 7).
 */
import 'reflect-metadata';
import { createDecoder, type Decoder, type DecoderOptions } from '../src';
import { PROVIDERS, type ProviderId } from '../src/decode/provider-id';
import { fixtures, nativeLines } from '../test/providers/fixtures';
import { cpuNs, gc, median } from './measure';

const asJson = process.argv.includes('--json');
const MIN_LINES = Number(process.env.BENCH_LINES) || 50_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 7;
const FORCED_GC = process.env.BENCH_GC !== '0';
/** Lines per chunk; each chunk is one run for the decoders (a fresh decoder, as for a new process). */
const CHUNK = 10_000;
/** The targets of issue #18: decoding at most this many times JSON.parse of the same lines. */
const TARGET = { all: 2.5, none: 2 } as const;
const log = (text: string) => process.stderr.write(`${text}\n`);

type Mode = keyof typeof TARGET;
const MODES: readonly Mode[] = ['all', 'none'];

/** One provider's fixture transcripts, in order, repeated to at least MIN_LINES non-blank lines. */
function transcript(provider: ProviderId): { lines: string[]; from: string[] } {
  const chosen = fixtures(provider);
  const block = chosen.flatMap((fixture) => nativeLines(fixture)).filter((line) => line.trim() !== '');
  const lines: string[] = [];
  while (block.length > 0 && lines.length < MIN_LINES) lines.push(...block);
  return { lines, from: chosen.map((fixture) => fixture.name) };
}

type Contender = { name: string; mode: Mode | 'json'; start: () => (line: string) => number };

/** JSON.parse of the line; a fixture's non-JSON line (stray stdout text) costs the throw, as it does the decoder. */
function jsonParse(line: string): number {
  try {
    return JSON.parse(line) === undefined ? 0 : 1;
  } catch {
    return 0;
  }
}

const decoding = (provider: ProviderId, options: DecoderOptions) => () => {
  const decoder: Decoder = createDecoder(provider, options);
  return (line: string) => decoder.push(line).length;
};

function contendersFor(provider: ProviderId): Contender[] {
  return [
    { name: 'JSON.parse', mode: 'json', start: () => jsonParse },
    { name: "decoder.push, keepRaw 'all' (default)", mode: 'all', start: decoding(provider, {}) },
    { name: "decoder.push, keepRaw 'none'", mode: 'none', start: decoding(provider, { keepRaw: 'none' }) },
  ];
}

/** Total ns to run one contender over `lines` (a fresh decoder for them). */
function time(contender: Contender, lines: string[]): number {
  const run = contender.start();
  let sink = 0;
  const start = cpuNs();
  for (const line of lines) sink += run(line);
  const ns = cpuNs() - start;
  if (sink < 0) log('unreachable');
  return ns;
}

interface Bench {
  provider: ProviderId;
  lines: string[];
  from: string[];
  contenders: Contender[];
  /** Per contender, ns/line of each round. */
  samples: Map<string, number[]>;
}

const only = process.env.BENCH_PROVIDERS?.split(',').map((id) => id.trim());
const benches: Bench[] = PROVIDERS.filter((provider) => !only || only.includes(provider)).flatMap((provider) => {
  const { lines, from } = transcript(provider);
  if (lines.length === 0) return [];
  const contenders = contendersFor(provider);
  return [{ provider, lines, from, contenders, samples: new Map(contenders.map((c) => [c.name, [] as number[]])) }];
});
if (benches.length === 0) throw new Error('no provider fixtures under test/fixtures/providers');

for (const bench of benches) {
  log(`${bench.provider}: ${bench.lines.length.toLocaleString('en-US')} native lines, repeating ${bench.from.length} fixtures`);
  for (const contender of bench.contenders) time(contender, bench.lines.slice(0, 5000)); // warm-up
}

for (let round = 0; round < ROUNDS; round++) {
  for (const bench of benches) {
    if (FORCED_GC) gc();
    const { lines, contenders } = bench;
    const total = new Map(contenders.map((c) => [c.name, 0]));
    for (let start = 0, n = 0; start < lines.length; start += CHUNK, n++) {
      const chunk = lines.slice(start, start + CHUNK);
      // Each chunk runs every contender in a rotated order, so machine drift hits them alike.
      for (let k = 0; k < contenders.length; k++) {
        const c = contenders[(k + n + round) % contenders.length];
        total.set(c.name, total.get(c.name)! + time(c, chunk));
      }
    }
    for (const c of contenders) bench.samples.get(c.name)!.push(total.get(c.name)! / lines.length);
  }
  log(`round ${round + 1}/${ROUNDS} done`);
}

/** Median over rounds of a/b, each ratio within one round. */
const ratio = (bench: Bench, a: string, b: string): number => median(bench.samples.get(a)!.map((v, i) => v / bench.samples.get(b)![i]));
const nameOf = (bench: Bench, mode: Mode | 'json'): string => bench.contenders.find((c) => c.mode === mode)!.name;

const perProvider = benches.map((bench) => ({
  provider: bench.provider,
  lines: bench.lines.length,
  fixtures: bench.from,
  ns_per_line: Object.fromEntries(
    bench.contenders.map((c) => [c.mode === 'json' ? 'json_parse' : c.mode, Math.round(median(bench.samples.get(c.name)!))]),
  ),
  ratio_vs_json_parse: Object.fromEntries(MODES.map((mode) => [mode, ratio(bench, nameOf(bench, mode), nameOf(bench, 'json'))])) as Record<
    Mode,
    number
  >,
}));

const result = {
  rounds: ROUNDS,
  forced_gc: FORCED_GC,
  node: process.version,
  targets: TARGET,
  /** One ratio per provider and keepRaw mode: decoding / JSON.parse of the same lines. */
  ratios: Object.fromEntries(perProvider.flatMap((p) => MODES.map((mode) => [`${p.provider}/${mode}`, p.ratio_vs_json_parse[mode]]))),
  providers: perProvider,
};

if (asJson) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const mark = (value: number, target: number) => `${value.toFixed(2)}× (target ≤ ${target}${value <= target ? '' : ', not met'})`;
  process.stdout.write(
    [
      `decoding per provider: each provider's fixtures repeated to ${MIN_LINES.toLocaleString('en-US')}+ lines, median of ${ROUNDS} interleaved rounds${FORCED_GC ? '' : ', no forced GC'} (node ${process.version})`,
      '',
      "| provider | lines | avg bytes | JSON.parse ns/line | keepRaw 'all' ns/line | 'all' / JSON.parse | keepRaw 'none' ns/line | 'none' / JSON.parse |",
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...perProvider.map((p, i) => {
        const bytes = Math.round(benches[i].lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0) / benches[i].lines.length);
        const r = p.ratio_vs_json_parse;
        return `| ${p.provider} | ${p.lines.toLocaleString('en-US')} | ${bytes} | ${p.ns_per_line.json_parse} | ${p.ns_per_line.all} | ${mark(r.all, TARGET.all)} | ${p.ns_per_line.none} | ${mark(r.none, TARGET.none)} |`;
      }),
      '',
    ].join('\n'),
  );
}
