/**
 * Side-by-side benchmark: `node --expose-gc -r ts-node/register/transpile-only bench/run.ts [--json]` (a table, or one JSON object; `npm run bench` runs it with the other benches).
 * All contenders run in one process, in interleaved rounds over the same seeded corpus;
 * the figure for each is the median of its rounds.
 */
import 'reflect-metadata';
import { Event } from '../src';
import { corpus, sizedLine } from './corpus';
import { cpuNs, median } from './measure';
import { ajvValidator } from './peers/ajv-peer';
import { zodParse, zodToJSON } from './peers/zod-peer';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const LINES = Number(process.env.BENCH_LINES) || 100_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 7;
const log = (text: string) => process.stderr.write(`${text}\n`);

type Contender = { name: string; run: (line: string) => number; share?: number };

const validate = ajvValidator();
const contenders: Contender[] = [
  { name: 'JSON.parse', run: (line) => ((JSON.parse(line) as object) ? 1 : 0) },
  { name: 'JSON.parse + JSON.stringify', run: (line) => JSON.stringify(JSON.parse(line)).length },
  { name: 'library fromJSON → JSON.stringify', run: (line) => JSON.stringify(Event.fromJSON(line)).length },
  // The reference path is ~10× slower: it runs on a tenth of the lines each round, reported per event.
  {
    name: 'library reference path (class-transformer + class-validator)',
    run: (line) => JSON.stringify(Event.fromJSON(line, { mode: 'reference' })).length,
    share: 10,
  },
  { name: 'zod 4 peer (same semantics)', run: (line) => JSON.stringify(zodToJSON(zodParse(line))).length },
  { name: 'ajv compiled validate (validate-only floor)', run: (line) => (validate(JSON.parse(line)) ? 1 : 0) },
];

// BENCH_ONLY=<substring,…> runs a subset (for investigating one contender).
const only = process.env.BENCH_ONLY?.split(',');
if (only) contenders.splice(0, contenders.length, ...contenders.filter((c) => only.some((o) => c.name.includes(o))));

function time(contender: Contender, lines: string[]): number {
  const step = contender.share ?? 1;
  let sink = 0;
  let count = 0;
  const start = cpuNs();
  for (let i = 0; i < lines.length; i += step) {
    sink += contender.run(lines[i]);
    count++;
  }
  const ns = cpuNs() - start;
  if (sink < 0) log('unreachable');
  return ns / count;
}

function sanityCheck(lines: string[]): void {
  // The peers must do the same work: same output, byte for byte.
  for (const line of lines.slice(0, 2000)) {
    const ours = JSON.stringify(Event.fromJSON(line));
    if (JSON.stringify(zodToJSON(zodParse(line))) !== ours) throw new Error(`zod peer differs on ${line}`);
    if (JSON.stringify(Event.fromJSON(line, { mode: 'reference' })) !== ours) throw new Error(`reference differs on ${line}`);
    if (!validate(JSON.parse(line))) throw new Error(`ajv rejects ${line}`);
  }
}

/** Per round, the ns/event of every contender; rounds interleave contenders in chunks of CHUNK lines. */
const CHUNK = 10_000;

function speed(lines: string[]): Map<string, number[]> {
  const samples = new Map(contenders.map((c) => [c.name, [] as number[]]));
  for (const c of contenders) time(c, lines.slice(0, 5000)); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const total = new Map(contenders.map((c) => [c.name, 0]));
    // Every contender runs on each chunk in turn (order rotated), so a drift in machine speed
    // (frequency, neighbours on a shared host) hits all of them alike within a round.
    for (let start = 0, n = 0; start < lines.length; start += CHUNK, n++) {
      const chunk = lines.slice(start, start + CHUNK);
      for (let k = 0; k < contenders.length; k++) {
        const c = contenders[(k + n + round) % contenders.length];
        total.set(c.name, total.get(c.name)! + time(c, chunk) * chunk.length);
      }
    }
    for (const c of contenders) samples.get(c.name)!.push(total.get(c.name)! / lines.length);
    log(`round ${round + 1}/${ROUNDS} done`);
  }
  return samples;
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with node --expose-gc (npm run bench does)');
  collect();
  collect();
}

/** Heap held by the parsed events vs the same lines as plain JSON.parse objects: medians of alternating measurements. */
function retainedHeap(lines: string[]): { library: number; plain: number } {
  const measure = (build: () => unknown[]): number => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = build();
    gc();
    const after = process.memoryUsage().heapUsed;
    if (kept.length !== lines.length) throw new Error('lost events');
    return after - before;
  };
  const plain: number[] = [];
  const library: number[] = [];
  for (let i = 0; i < 3; i++) {
    plain.push(measure(() => lines.map((line) => JSON.parse(line))));
    library.push(measure(() => lines.map((line) => Event.fromJSON(line))));
  }
  return { library: median(library), plain: median(plain) };
}

/**
 * The round trip over the 5,000 events right after a forced full GC, against the 5,000 before it,
 * divided by the same ratio of the JSON.parse + JSON.stringify floor (a full GC slows every
 * allocation after it for a while, the floor's included): 1.0 means the library loses nothing
 * more than the floor does. Median of 7 trials.
 */
function afterFullGc(lines: string[]): number {
  const libRun = (line: string) => JSON.stringify(Event.fromJSON(line)).length;
  const floorRun = (line: string) => JSON.stringify(JSON.parse(line)).length;
  const timeSlice = (run: (line: string) => number, from: number): number => {
    let sink = 0;
    const start = cpuNs();
    for (let i = from; i < from + 5000; i++) sink += run(lines[i % lines.length]);
    return (cpuNs() - start) / 5000 + (sink < 0 ? 1 : 0);
  };
  const trials: number[] = [];
  for (let trial = 0; trial < 7; trial++) {
    const at = trial * 20_000;
    const libBefore = timeSlice(libRun, at);
    gc();
    const libAfter = timeSlice(libRun, at + 5000);
    const floorBefore = timeSlice(floorRun, at + 10_000);
    gc();
    const floorAfter = timeSlice(floorRun, at + 15_000);
    trials.push(libAfter / libBefore / (floorAfter / floorBefore));
  }
  return median(trials);
}

/** ns per MB of the library round trip for one event with content of each size. */
function growth(): { bytes: number; nsPerMB: number }[] {
  return [1_000, 100_000, 1_000_000].map((bytes) => {
    const line = sizedLine(bytes);
    const repeat = Math.max(20, Math.round(20_000_000 / bytes));
    const run = () => JSON.stringify(Event.fromJSON(line)).length;
    for (let i = 0; i < repeat; i++) run();
    const rounds: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const start = cpuNs();
      for (let i = 0; i < repeat; i++) run();
      rounds.push((cpuNs() - start) / repeat);
    }
    return { bytes, nsPerMB: median(rounds) / (line.length / 1e6) };
  });
}

const lines = corpus(LINES);
sanityCheck(lines);
const rounds = speed(lines);
const times = new Map([...rounds].map(([name, values]) => [name, median(values)]));
const heap = retainedHeap(lines);
const gcRatio = afterFullGc(lines);
const sizes = growth();

const perRound = (prefix: string): number[] => [...rounds].find(([name]) => name.startsWith(prefix))?.[1] ?? [];
/** Median over rounds of a/b, each ratio taken within one round (paired, so drift between rounds cancels). */
const ratio = (a: string, b: string): number => {
  const x = perRound(a);
  const y = perRound(b);
  return x.length && y.length ? median(x.map((v, i) => v / y[i])) : NaN;
};
const result = {
  lines: LINES,
  rounds: ROUNDS,
  ns_per_event: Object.fromEntries([...times].map(([name, ns]) => [name, Math.round(ns)])),
  ratio_vs_json_roundtrip: ratio('library fromJSON', 'JSON.parse + JSON.stringify'),
  ratio_vs_json_parse: ratio('library fromJSON', 'JSON.parse'),
  ratio_vs_zod: ratio('zod', 'library fromJSON'),
  ratio_vs_reference: ratio('library reference', 'library fromJSON'),
  ratio_vs_ajv_validate: ratio('ajv', 'library fromJSON'),
  retained_heap_ratio: heap.library / heap.plain,
  after_full_gc_ratio: gcRatio,
  retained_heap_bytes: heap,
  ns_per_mb: Object.fromEntries(sizes.map((s) => [`${s.bytes / 1000}KB`, Math.round(s.nsPerMB)])),
  per_mb_ratio_1mb_vs_1kb: sizes[2].nsPerMB / sizes[0].nsPerMB,
};

if (asJson) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const rows = [...times].map(([name, ns]) => `| ${name} | ${Math.round(ns)} | ${Math.round(1e9 / ns).toLocaleString('en-US')} |`);
  const fmt = (x: number) => x.toFixed(2);
  process.stdout.write(
    [
      `${LINES.toLocaleString('en-US')} events, median of ${ROUNDS} interleaved rounds (node ${process.version})`,
      '',
      '| contender | ns/event | events/s |',
      '| --- | ---: | ---: |',
      ...rows,
      '',
      `library round trip / (JSON.parse + JSON.stringify): ${fmt(result.ratio_vs_json_roundtrip)}× (target ≤ 1.45, the decision on #9)`,
      `zod 4 peer / library: ${fmt(result.ratio_vs_zod)}× (target ≥ 2)`,
      `reference path / library: ${fmt(result.ratio_vs_reference)}× (target ≥ 8)`,
      `retained heap, library / plain objects: ${fmt(result.retained_heap_ratio)}× (target ≤ 1.5)`,
      `after a forced full GC, the next 5,000 events, library slowdown / floor slowdown: ${fmt(result.after_full_gc_ratio)}× (target ≤ 1.0)`,
      `ns per MB: ${sizes.map((s) => `${s.bytes / 1000} KB: ${Math.round(s.nsPerMB).toLocaleString('en-US')}`).join(', ')}; 1 MB / 1 KB: ${fmt(result.per_mb_ratio_1mb_vs_1kb)}× (target ≤ 1.5)`,
      '',
    ].join('\n'),
  );
}
