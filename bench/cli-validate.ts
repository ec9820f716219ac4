/**
 * `validate --json` against its floor: ns per line of the CLI's validate command, run in process
 * over the same input stream, against a readline + JSON.parse + JSON.stringify + write loop (the
 * least any line-by-line normalizer does), and `validate` without `--json` for comparison.
 *   node --expose-gc -r ts-node/register/transpile-only bench/cli-validate.ts [--json]
 * Input: BENCH_LINES (default 100,000) corpus lines as a byte stream in 64 KB chunks, as a file
 * gives them; output: a writable that drops what it gets. CPU time (user + system), contenders
 * in interleaved rounds with the order rotated; the ratio is the median of per-round ratios.
 */
import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable, Writable } from 'node:stream';
import { DEFAULT_MAX_LINE_BYTES } from '../src/cli/line-splitter';
import { validateCommand } from '../src/cli/validate-command';
import { corpus } from './corpus';
import { cpuNs, gc, median } from './measure';

const asJson = process.argv.includes('--json');
const LINES = Number(process.env.BENCH_LINES) || 100_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 9;
const CHUNK_BYTES = 64 * 1024;
/** The target of issue #12: validate --json at most this many times the floor. */
const TARGET = 1.2;
const log = (text: string) => process.stderr.write(`${text}\n`);

/** The input as fs.createReadStream gives a file: byte chunks of 64 KB. */
function input(bytes: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) chunks.push(bytes.subarray(at, at + CHUNK_BYTES));
  return Readable.from(chunks, { objectMode: false, highWaterMark: CHUNK_BYTES });
}

/**
 * Where the output goes: /dev/null through a file stream, as `validate --json > out.jsonl` writes a
 * file (the kernel's part is the same for both contenders; the stream's is not). Counts the bytes.
 */
function sink(): Writable & { bytes: number } {
  const stream = createWriteStream('/dev/null') as unknown as Writable & { bytes: number };
  stream.bytes = 0;
  const write = stream.write.bind(stream) as (chunk: string | Uint8Array, done?: () => void) => boolean;
  stream.write = ((chunk: string | Uint8Array, done?: () => void) => {
    stream.bytes += chunk.length;
    return write(chunk, done);
  }) as Writable['write'];
  return stream;
}

/** Resolves once everything written to `stream` reached the file. */
const finished = (stream: Writable) => new Promise<void>((resolve, reject) => stream.end(() => resolve()).once('error', reject));

type Contender = { name: string; run: (bytes: Buffer) => Promise<number> };

const validate = (json: boolean) => async (bytes: Buffer) => {
  const stdout = sink();
  const stderr = sink();
  const code = await validateCommand(
    { file: '-', json, maxLineBytes: DEFAULT_MAX_LINE_BYTES, allowInvalidUtf8: false },
    { stdin: input(bytes), stdout, stderr },
    new EventEmitter(),
  );
  if (code !== 0) throw new Error(`validate answered ${code}`);
  await Promise.all([finished(stdout), finished(stderr)]);
  return stdout.bytes + stderr.bytes;
};

const contenders: Contender[] = [
  {
    name: 'floor: readline + JSON.parse + JSON.stringify + write',
    run: async (bytes) => {
      const stdout = sink();
      const lines = createInterface({ input: input(bytes), crlfDelay: Infinity });
      lines.on('line', (line) => stdout.write(`${JSON.stringify(JSON.parse(line))}\n`));
      await new Promise((resolve) => lines.once('close', resolve));
      await finished(stdout);
      return stdout.bytes;
    },
  },
  { name: 'validate --json', run: validate(true) },
  { name: 'validate (report only)', run: validate(false) },
];

/** Total ns of one contender over `bytes`. */
async function time(contender: Contender, bytes: Buffer): Promise<number> {
  const start = cpuNs();
  const written = await contender.run(bytes);
  const ns = cpuNs() - start;
  if (written <= 0) throw new Error(`${contender.name} wrote nothing`);
  return ns;
}

async function main(): Promise<void> {
  const lines = corpus(LINES);
  // Pieces of 20,000 lines: each round runs every contender on each piece, order rotated, so a
  // drift in machine speed hits them alike.
  const PIECE = 20_000;
  const pieces: Buffer[] = [];
  for (let at = 0; at < lines.length; at += PIECE) pieces.push(Buffer.from(`${lines.slice(at, at + PIECE).join('\n')}\n`));
  const totalBytes = pieces.reduce((sum, piece) => sum + piece.length, 0);
  for (const c of contenders) await time(c, pieces[0]); // warm-up
  const samples = new Map(contenders.map((c) => [c.name, [] as number[]]));
  for (let round = 0; round < ROUNDS; round++) {
    gc();
    const total = new Map(contenders.map((c) => [c.name, 0]));
    for (let n = 0; n < pieces.length; n++) {
      for (let k = 0; k < contenders.length; k++) {
        const c = contenders[(k + n + round) % contenders.length];
        total.set(c.name, total.get(c.name)! + (await time(c, pieces[n])));
      }
    }
    for (const c of contenders) samples.get(c.name)!.push(total.get(c.name)! / lines.length);
    log(`round ${round + 1}/${ROUNDS} done`);
  }
  const nsPerLine = new Map([...samples].map(([name, values]) => [name, median(values)]));
  const ratio = (a: string, b: string): number => median(samples.get(a)!.map((v, i) => v / samples.get(b)![i]));
  const [floor, json, reportOnly] = contenders.map((c) => c.name);
  const result = {
    lines: LINES,
    bytes: totalBytes,
    rounds: ROUNDS,
    ns_per_line: Object.fromEntries([...nsPerLine].map(([name, ns]) => [name, Math.round(ns)])),
    ratio_validate_json_vs_floor: ratio(json, floor),
    ratio_validate_json_vs_report_only: ratio(json, reportOnly),
    target: TARGET,
  };
  if (asJson) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  process.stdout.write(
    [
      `${LINES.toLocaleString('en-US')} event lines (${(totalBytes / 1e6).toFixed(1)} MB) through the CLI's validate in process, median of ${ROUNDS} interleaved rounds (node ${process.version})`,
      '',
      '| contender | ns/line | lines/s |',
      '| --- | ---: | ---: |',
      ...[...nsPerLine].map(([name, ns]) => `| ${name} | ${Math.round(ns)} | ${Math.round(1e9 / ns).toLocaleString('en-US')} |`),
      '',
      `validate --json / floor: ${result.ratio_validate_json_vs_floor.toFixed(2)}× (target ≤ ${TARGET})`,
      `validate --json / validate without --json: ${result.ratio_validate_json_vs_report_only.toFixed(2)}×`,
      '',
    ].join('\n'),
  );
}

void main();
