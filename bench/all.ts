/**
 * Every bench, one after the other, each in its own process (so that one's heap and JIT state do not
 * weigh on the next): `npm run bench` (each bench's report) or `npm run bench -- --json` (one JSON
 * object, each bench's own JSON object under its name: `run`, `decode`, `cli_validate`, `scale`,
 * `usage_vs_ccusage`; the last two say `skipped` without redis-server or ccusage).
 *   node -r ts-node/register/transpile-only bench/all.ts [--json]
 * The BENCH_* variables and `--json` reach every bench. Every bench runs even when one fails; the exit
 * code is 1 when one did (scale.ts when it could not measure: a phase timed out, a run did not
 * complete; what must hold under load is asserted by e2e/test/scale-load.spec.ts), and in JSON such a
 * bench's entry has its `exit_code`.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const asJson = process.argv.includes('--json');

/** Each bench's file and whether it needs `global.gc` (the in-process benches force full GCs between blocks). */
const BENCHES = [
  { name: 'run', file: 'run.ts', exposeGc: true },
  { name: 'decode', file: 'decode.ts', exposeGc: true },
  { name: 'cli_validate', file: 'cli-validate.ts', exposeGc: true },
  { name: 'scale', file: 'scale.ts', exposeGc: false },
  { name: 'usage_vs_ccusage', file: 'usage-vs-ccusage.ts', exposeGc: false },
] as const;

const results: Record<string, unknown> = {};
let failed = false;
for (const bench of BENCHES) {
  const args = [
    ...(bench.exposeGc ? ['--expose-gc'] : []),
    '-r',
    'ts-node/register/transpile-only',
    join(__dirname, bench.file),
    ...(asJson ? ['--json'] : []),
  ];
  // Progress and the benches' logs go to stderr; in JSON mode only a bench's stdout (its one JSON line) is read.
  const child = spawnSync(process.execPath, args, {
    cwd: join(__dirname, '..'),
    stdio: ['ignore', asJson ? 'pipe' : 'inherit', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  const exitCode = child.status ?? 1;
  if (exitCode !== 0) {
    failed = true;
    process.stderr.write(`bench/${bench.file} failed (${child.signal ?? `exit code ${exitCode}`})\n`);
  }
  if (asJson) {
    const lastLine = child.stdout.trim().split('\n').pop() ?? '';
    let own: Record<string, unknown> = {};
    try {
      own = JSON.parse(lastLine) as Record<string, unknown>;
    } catch {
      // No JSON from it (it crashed): its entry says how it ended.
    }
    results[bench.name] = exitCode === 0 ? own : { ...own, exit_code: exitCode };
  }
}
if (asJson) process.stdout.write(`${JSON.stringify(results)}\n`);
process.exitCode = failed ? 1 : 0;
