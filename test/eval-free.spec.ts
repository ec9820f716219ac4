import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Event } from '../src';
import { usePrivateBuild } from './build-copy';

/*
 * Where code generation from strings is banned (`--disallow-code-generation-from-strings`,
 * a strict CSP, Cloudflare Workers), the codec runs on composed closures. They must give
 * exactly what the generated accelerator gives: the same events, JSON and issues.
 */

const root = join(__dirname, '..');
const BANNED = '--disallow-code-generation-from-strings';

// A private build: the package's own build (dist/) belongs to `npm run build`.
const build = usePrivateBuild('eval-free');

/** Every line of the bundled samples: valid and invalid, every kind. */
const LINES = ['examples/valid.jsonl', 'examples/sample.jsonl', 'examples/invalid.jsonl']
  .flatMap((file) => readFileSync(join(root, file), 'utf8').split('\n'))
  .filter((line) => line.trim() !== '');

/** What parsing each line gives: the JSON without the process-local id, or the issues. */
const OUTCOMES = `
  const { Event } = require(${JSON.stringify(join('DIR', 'index.js'))});
  const lines = JSON.parse(process.argv[1]);
  const out = lines.map((line) => {
    const r = Event.safeFromJSON(line);
    if (!r.success) return { issues: r.error.issues };
    // The id is process-local, and a line without a time gets "now": both differ between processes.
    const { id, ...json } = JSON.parse(JSON.stringify(r.data));
    if (!line.includes('"timestamp"')) delete json.timestamp;
    return { json, map: Object.keys(r.data.toMap()) };
  });
  process.stdout.write(JSON.stringify({ out }));
`;

function outcomes(flags: string[]): { out: unknown[] } {
  const script = OUTCOMES.replace('DIR', build.dir);
  const result = spawnSync(process.execPath, [...flags, '-e', script, JSON.stringify(LINES)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as { out: unknown[] };
}

it('with code generation banned, every sample line parses to the same events and issues as with the accelerator', () => {
  const banned = outcomes([BANNED]);
  const allowed = outcomes([]);
  expect(banned.out).toEqual(allowed.out);
  expect(banned.out.filter((o) => 'json' in (o as object)).length).toBeGreaterThan(10);
  expect(banned.out.filter((o) => 'issues' in (o as object)).length).toBeGreaterThan(1);
});

it('the flag really bans code generation in that process', () => {
  const result = spawnSync(process.execPath, [BANNED, '-e', 'new Function("return 1")'], { encoding: 'utf8' });
  expect(result.status).not.toBe(0);
  expect(result.stderr).toMatch(/EvalError/);
});

it('the CLI validates examples/valid.jsonl with code generation banned', () => {
  const result = spawnSync(process.execPath, [BANNED, join(build.dir, 'cli/main.js'), 'validate', 'examples/valid.jsonl'], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(result.stderr).not.toMatch(/unreadable|EvalError/);
  expect(result.status).toBe(0);
});

it('a parse in this process (accelerated) round-trips the same sample', () => {
  for (const line of LINES) {
    const r = Event.safeFromJSON(line);
    if (r.success) expect(JSON.stringify(Event.fromJSON(JSON.stringify(r.data)))).toBe(JSON.stringify(r.data));
  }
});
