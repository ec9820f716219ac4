/**
 * Decode throughput: ns per native line of a large Claude Code transcript, for `JSON.parse`
 * alone and for `createDecoder('claude').push` (keepRaw 'all', the default, and 'none').
 *   node --expose-gc -r ts-node/register/transpile-only bench/decode.ts [--json]
 * The transcript repeats the Claude fixtures (the captured ones when there are any) to at
 * least BENCH_LINES lines (default 50,000). Contenders run in interleaved rounds, as in
 * bench/run.ts; figures are medians over rounds, ratios are paired within each round.
 */
import 'reflect-metadata';
import { createDecoder, type Decoder, type DecoderOptions } from '../src';
import { fixtures, nativeLines } from '../test/providers/fixtures';
import { cpuNs, gc, median } from './measure';

const asJson = process.argv.includes('--json');
const MIN_LINES = Number(process.env.BENCH_LINES) || 50_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 7;
/** Lines per chunk; each chunk is one run for the decoders (a fresh decoder, as for a new process). */
const CHUNK = 10_000;
const log = (text: string) => process.stderr.write(`${text}\n`);

function transcript(): { lines: string[]; from: string[] } {
  const claude = fixtures('claude');
  const captured = claude.filter((fixture) => fixture.name.startsWith('captured-'));
  const chosen = captured.length > 0 ? captured : claude;
  if (chosen.length === 0) throw new Error('no Claude fixtures under test/fixtures/providers/claude');
  const block = chosen.flatMap((fixture) => nativeLines(fixture)).filter((line) => line.trim() !== '');
  const lines: string[] = [];
  while (lines.length < MIN_LINES) lines.push(...block);
  return { lines, from: chosen.map((fixture) => fixture.name) };
}

type Contender = { name: string; start: () => (line: string) => number };

const decoding = (options: DecoderOptions) => () => {
  const decoder: Decoder = createDecoder('claude', options);
  return (line: string) => decoder.push(line).length;
};

const contenders: Contender[] = [
  { name: 'JSON.parse', start: () => (line) => (JSON.parse(line) as object ? 1 : 0) },
  { name: "decoder.push, keepRaw 'all' (default)", start: decoding({}) },
  { name: "decoder.push, keepRaw 'none'", start: decoding({ keepRaw: 'none' }) },
];

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

const { lines, from } = transcript();
log(`${lines.length.toLocaleString('en-US')} native lines, repeating ${from.join(', ')}`);
for (const contender of contenders) time(contender, lines.slice(0, 5000)); // warm-up

const samples = new Map(contenders.map((c) => [c.name, [] as number[]]));
for (let round = 0; round < ROUNDS; round++) {
  gc();
  const total = new Map(contenders.map((c) => [c.name, 0]));
  for (let start = 0, n = 0; start < lines.length; start += CHUNK, n++) {
    const chunk = lines.slice(start, start + CHUNK);
    // Each chunk runs every contender in a rotated order, so machine drift hits them alike.
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(k + n + round) % contenders.length];
      total.set(c.name, total.get(c.name)! + time(c, chunk));
    }
  }
  for (const c of contenders) samples.get(c.name)!.push(total.get(c.name)! / lines.length);
  log(`round ${round + 1}/${ROUNDS} done`);
}

const nsPerLine = new Map([...samples].map(([name, values]) => [name, median(values)]));
/** Median over rounds of a/b, each ratio within one round. */
const ratio = (a: string, b: string): number => median(samples.get(a)!.map((v, i) => v / samples.get(b)![i]));
const result = {
  lines: lines.length,
  rounds: ROUNDS,
  fixtures: from,
  ns_per_line: Object.fromEntries([...nsPerLine].map(([name, ns]) => [name, Math.round(ns)])),
  ratio_decode_vs_json_parse: ratio(contenders[1].name, 'JSON.parse'),
  ratio_decode_keep_none_vs_json_parse: ratio(contenders[2].name, 'JSON.parse'),
};

if (asJson) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  process.stdout.write(
    [
      `${lines.length.toLocaleString('en-US')} Claude Code stdout lines, median of ${ROUNDS} interleaved rounds (node ${process.version})`,
      '',
      '| contender | ns/line | lines/s |',
      '| --- | ---: | ---: |',
      ...[...nsPerLine].map(([name, ns]) => `| ${name} | ${Math.round(ns)} | ${Math.round(1e9 / ns).toLocaleString('en-US')} |`),
      '',
      `decode (keepRaw 'all') / JSON.parse: ${result.ratio_decode_vs_json_parse.toFixed(2)}×`,
      `decode (keepRaw 'none') / JSON.parse: ${result.ratio_decode_keep_none_vs_json_parse.toFixed(2)}×`,
      '',
    ].join('\n'),
  );
}
