import 'reflect-metadata';
import Ajv2020 from 'ajv/dist/2020';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Event, KINDS, ToolUsePayload } from '../src';
import { canGenerateCode } from '../src/schema/accelerate';
import { usePrivateBuild } from './build-copy';

const root = join(__dirname, '..');

/** Runs the built CLI from the repository root, as a user would. */
function cli(args: string[], options: { input?: string; node?: string[] } = {}) {
  const result = spawnSync(process.execPath, [...(options.node ?? []), mainJs(), ...args], {
    cwd: root,
    input: options.input,
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `[line, path]` of every per-line error in a report. */
function errorPlaces(report: string, source: string): Array<[number, string]> {
  const escaped = source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [...report.matchAll(new RegExp(`^${escaped}:(\\d+): (\\S+): `, 'gm'))].map((m) => [Number(m[1]), m[2]]);
}

/** The numbers of a summary's kind table: `{ kind: [valid, invalid] }`. */
function kindTable(report: string): Record<string, [number, number]> {
  return Object.fromEntries(
    [...report.matchAll(/^(\(no kind\)|[a-z_]+) +(\d+) +(\d+)$/gm)].map((m) => [m[1], [Number(m[2]), Number(m[3])]]),
  );
}

// A private build: the package's own build (dist/) belongs to `npm run build`.
/** The built CLI's entry point. */
const mainJs = (): string => join(build.dir, 'cli/main.js');
const build = usePrivateBuild('cli-test');

describe('cli-subprocess-core validate', () => {
  it('accepts a valid file: exit 0, a summary with one event of every kind, nothing on stderr', () => {
    const { status, stdout, stderr } = cli(['validate', 'examples/valid.jsonl']);
    expect(status).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^examples\/valid\.jsonl: 14 lines checked, 14 valid, 0 invalid; 0 blank lines skipped$/m);
    expect(kindTable(stdout)).toEqual(Object.fromEntries(KINDS.map((kind) => [kind, [1, 0]])));
    expect(errorPlaces(stdout, 'examples/valid.jsonl')).toEqual([]);
  });

  it('reports each invalid line with its number and issue paths, exit 1 (mixed sample)', () => {
    const { status, stdout, stderr } = cli(['validate', 'examples/sample.jsonl']);
    expect(status).toBe(1);
    expect(stderr).toBe('');
    expect(stdout).toContain('examples/sample.jsonl:6: payload.index: too small: must be at least 0 (too_small)\n');
    expect(stdout).toMatch(/^examples\/sample\.jsonl:8: \(root\): invalid JSON: .* \(json\)$/m);
    expect(errorPlaces(stdout, 'examples/sample.jsonl')).toEqual([
      [6, 'payload.index'],
      [8, '(root)'],
    ]);
    expect(stdout).toContain('examples/sample.jsonl: 8 lines checked, 6 valid, 2 invalid; 0 blank lines skipped\n');
    expect(kindTable(stdout)).toEqual({
      run_started: [1, 0],
      assistant_delta: [1, 1],
      tool_use: [1, 0],
      tool_result: [1, 0],
      cost_update: [1, 0],
      result: [1, 0],
      '(no kind)': [0, 1],
    });
    // Errors come before the summary.
    expect(stdout.indexOf(':8: (root)')).toBeLessThan(stdout.indexOf('8 lines checked'));
  });

  it('reports every issue of every line of an all-invalid file, exit 1', () => {
    const { status, stdout } = cli(['validate', 'examples/invalid.jsonl']);
    expect(status).toBe(1);
    expect(errorPlaces(stdout, 'examples/invalid.jsonl')).toEqual([
      [1, 'kind'],
      [2, 'kind'],
      [3, 'payload.input_tokens'],
      [3, 'payload.output_tokens'],
      [3, 'payload.cost_usd'],
      [4, 'payload.severity'],
      [5, 'payload.input'],
      [6, 'id'],
      [6, 'sequence'],
      [6, 'timestamp'],
      [7, 'payload.args[1]'],
      [8, '(root)'],
      [9, '(root)'],
    ]);
    expect(stdout).toContain(
      'examples/invalid.jsonl:4: payload.severity: expected one of "info", "warning", "error", "fatal"; got "panic" (invalid_enum)\n',
    );
    expect(stdout).toContain('examples/invalid.jsonl: 9 lines checked, 0 valid, 9 invalid; 0 blank lines skipped\n');
    // Line 6 has envelope errors only: its kind is readable, so it counts under it.
    expect(kindTable(stdout)).toEqual({
      run_started: [0, 1],
      tool_use: [0, 1],
      cost_update: [0, 1],
      error: [0, 1],
      stderr: [0, 1],
      '(no kind)': [0, 4],
    });
  });

  it('accepts an empty file: exit 0, zero counts', () => {
    const { status, stdout, stderr } = cli(['validate', 'examples/empty.jsonl']);
    expect([status, stdout, stderr]).toEqual([0, 'examples/empty.jsonl: 0 lines checked, 0 valid, 0 invalid; 0 blank lines skipped\n', '']);
  });

  it('reads standard input with "-": skips blank lines, counts them, handles CRLF and a byte order mark', () => {
    const [first, second] = readFileSync(join(root, 'examples/valid.jsonl'), 'utf8').split('\n');
    const input = `\uFEFF${first}\r\n\r\n   \n${second}\r\n{"kind":"raw","payload":{"stream":5,"content":null,"metadata":7}}\n\n`;
    const { status, stdout } = cli(['validate', '-'], { input });
    expect(status).toBe(1);
    expect(errorPlaces(stdout, '<stdin>')).toEqual([[5, 'payload.metadata']]);
    expect(stdout).toContain('<stdin>: 3 lines checked, 2 valid, 1 invalid; 3 blank lines skipped\n');
  });

  it('--json writes the normalized events as JSONL on stdout and the report on stderr', () => {
    const { status, stdout, stderr } = cli(['validate', '--json', 'examples/sample.jsonl']);
    expect(status).toBe(1);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(JSON.stringify(Event.fromJSON(line))).toBe(line); // round-trips byte for byte
    const toolUse = Event.fromJSON(lines[2]);
    expect(toolUse.payload).toBeInstanceOf(ToolUsePayload);
    expect(JSON.parse(lines[2])).toMatchObject({
      kind: 'tool_use',
      payload: { tool_name: 'shell', server: 'builtin' },
      trace_id: 'abc-123',
    });
    expect(errorPlaces(stderr, 'examples/sample.jsonl')).toEqual([
      [6, 'payload.index'],
      [8, '(root)'],
    ]);
    expect(stderr).toContain('8 lines checked, 6 valid, 2 invalid');
  });

  it('--json output is what the library makes of the same lines (timestamps keep their digits)', () => {
    const source = readFileSync(join(root, 'examples/valid.jsonl'), 'utf8').trimEnd().split('\n');
    const { status, stdout } = cli(['validate', '-', '--json'], { input: source.join('\n') });
    expect(status).toBe(0);
    const expected = source.map((line) => JSON.stringify(Event.fromJSON(line)));
    expect(stdout.trimEnd().split('\n')).toEqual(expected);
    expect(JSON.parse(stdout.split('\n')[0]).timestamp).toBe('2026-03-19T00:00:00.000001Z');
  });

  it('fails with exit 2 when the file cannot be read', () => {
    const { status, stdout, stderr } = cli(['validate', 'examples/no-such-file.jsonl']);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^cli-subprocess-core: cannot read examples\/no-such-file\.jsonl: ENOENT/);
  });

  it('draws no progress line when stderr is not a terminal', () => {
    const line = readFileSync(join(root, 'examples/valid.jsonl'), 'utf8').split('\n')[0];
    const { status, stderr } = cli(['validate', '-'], { input: `${line}\n`.repeat(5000) });
    expect([status, stderr]).toEqual([0, '']);
  });
});

describe('cli-subprocess-core schema', () => {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  // ajv compiles its validators with `new Function`: `npm run test:eval-free` skips the tests that use it.
  const itWithAjv = canGenerateCode() ? it : it.skip;

  itWithAjv('prints the Event schema, which validates the --json output and rejects invalid events', () => {
    const { status, stdout } = cli(['schema']);
    expect(status).toBe(0);
    const schema = JSON.parse(stdout);
    expect(schema).toEqual(Event.schema());
    const validate = ajv.compile(schema);
    const events = cli(['validate', '--json', 'examples/valid.jsonl']).stdout.trimEnd().split('\n');
    for (const line of events) expect([line, validate(JSON.parse(line))]).toEqual([line, true]);
    expect(validate({ kind: 'assistant_delta', payload: { index: -1 } })).toBe(false);
    expect(validate({ kind: 'tool_call' })).toBe(false);
  });

  itWithAjv("prints one kind's payload schema", () => {
    const { status, stdout } = cli(['schema', 'tool_use']);
    expect(status).toBe(0);
    const schema = JSON.parse(stdout);
    expect(schema).toEqual(ToolUsePayload.schema());
    expect(ajv.compile(schema)({ tool_name: 'shell', input: {} })).toBe(true);
  });

  it('refuses an unknown kind with exit 2, naming the kinds', () => {
    const { status, stdout, stderr } = cli(['schema', 'tool_call']);
    expect([status, stdout]).toEqual([2, '']);
    expect(stderr).toContain('unknown kind: tool_call');
    expect(stderr).toContain(KINDS.join(', '));
  });
});

describe('cli-subprocess-core usage', () => {
  it('--help prints the usage on stdout, exit 0', () => {
    const { status, stdout } = cli(['--help']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^Usage: cli-subprocess-core <command>/);
    expect(stdout).toContain('validate [--json] [--max-line-bytes N] [--allow-invalid-utf8] <file.jsonl | ->');
  });

  it.each([
    [[], 'missing command'],
    [['frobnicate'], 'unknown command: frobnicate'],
    [['validate'], 'validate takes one file (or - for standard input)'],
    [['validate', 'a.jsonl', 'b.jsonl'], 'validate takes one file (or - for standard input)'],
    [['validate', '--strict', 'a.jsonl'], 'unknown option: --strict'],
    [['schema', 'raw', 'error'], 'schema takes at most one kind'],
    [['schema', '--json'], '--json is an option of validate, decode and show'],
    [['decode', 'a.jsonl'], 'decode needs --provider <id|auto>'],
    [['decode', '--provider', 'claude', '--keep-raw', 'some', 'a.jsonl'], '--keep-raw must be one of all, unmapped, none; got "some"'],
    [['validate', '--keep-raw', 'none', 'a.jsonl'], '--keep-raw is an option of decode, run, session and acp'],
    [['decode', '--provider'], '--provider needs a value'],
    [['decode', '--provider', 'claude'], 'decode takes one file (or - for standard input)'],
    [['decode', '--provider', 'claude', 'a.jsonl', 'b.jsonl'], 'decode takes one file (or - for standard input)'],
    [
      ['decode', '--provider', 'claude-code', 'a.jsonl'],
      'unknown provider "claude-code": expected one of claude, codex, gemini, cursor, opencode, amp, qwen, pi, kilo, cline, auto',
    ],
    [
      ['decode', '--provider=', 'a.jsonl'],
      'unknown provider "": expected one of claude, codex, gemini, cursor, opencode, amp, qwen, pi, kilo, cline, auto',
    ],
    [
      ['decode', '--json', '--format', 'pretty', '--provider', 'claude', 'a.jsonl'],
      '--json and --format pretty ask for two formats: give one',
    ],
    [['show', 'a.jsonl', 'b.jsonl'], 'show takes one file (or - for standard input)'],
    [['validate', '--verbose', 'a.jsonl'], '--verbose is an option of decode, show, run and session'],
    [['validate', '--provider', 'claude', 'a.jsonl'], '--provider is an option of decode, run, session and acp'],
    [['schema', '--provider', 'claude'], '--provider is an option of decode, run, session and acp'],
  ])('usage error %j → exit 2 with the usage on stderr', (args, message) => {
    const { status, stdout, stderr } = cli(args as string[]);
    expect([status, stdout]).toEqual([2, '']);
    expect(stderr).toContain(`cli-subprocess-core: ${message}\n`);
    expect(stderr).toContain('Usage: cli-subprocess-core');
  });

  it('"--" ends the options, so a file may start with a dash', () => {
    for (const args of [
      ['validate', '--', '--no-such.jsonl'],
      ['decode', '--provider', 'gemini', '--', '--no-such.jsonl'],
    ]) {
      const { status, stderr } = cli(args);
      expect(status).toBe(2);
      expect(stderr).toContain('cannot read --no-such.jsonl');
    }
  });
});

describe('cli-subprocess-core packaging and docs', () => {
  it('the bin entry points at the build of src/cli/main.ts, which starts with a node shebang', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const outDir = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')).compilerOptions.outDir;
    expect(pkg.bin).toEqual({ 'cli-subprocess-core': `${outDir}/cli/main.js` });
    expect(readFileSync(mainJs(), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it('docs/cli.md shows the real output and exit code of the validate example', () => {
    const { status, stdout } = cli(['validate', 'examples/sample.jsonl']);
    const page = readFileSync(join(root, 'docs/cli.md'), 'utf8');
    expect(page).toContain(`$ node dist/cjs/cli/main.js validate examples/sample.jsonl\n${stdout}$ echo $?\n${status}\n`);
  });
});

describe('cli-subprocess-core memory', () => {
  it('streams: with the heap capped below the file size, a ~50 MB file validates and RSS grows by far less than the file', () => {
    const lines = readFileSync(join(root, 'examples/valid.jsonl'), 'utf8').trimEnd().split('\n');
    const big = join(build.dir, 'big.jsonl');
    const fd = openSync(big, 'w');
    const block = `${lines.join('\n')}\n`.repeat(500); // ~1.3 MB
    let size = 0;
    for (; size < 50e6; size += Buffer.byteLength(block)) writeSync(fd, block);
    closeSync(fd);
    const hook = join(build.dir, 'rss.js');
    writeFileSync(hook, 'process.on("exit", () => process.stderr.write(`maxrss_kb=${process.resourceUsage().maxRSS}\\n`));\n');
    // Without caps V8 grows its heap lazily and RSS says little about streaming; with them, a program
    // that held the file in memory would run out of heap.
    const node = ['--max-old-space-size=32', '--max-semi-space-size=2', '-r', hook];
    const rssKb = (stderr: string) => Number(/maxrss_kb=(\d+)/.exec(stderr)?.[1]);
    const small = cli(['validate', 'examples/valid.jsonl'], { node });
    const large = cli(['validate', big], { node });
    expect(large.status).toBe(0);
    const count = (size / Buffer.byteLength(block)) * 500 * lines.length;
    expect(large.stdout).toContain(`${count} lines checked, ${count} valid, 0 invalid`);
    expect(rssKb(large.stderr) - rssKb(small.stderr)).toBeLessThan(size / 1024 / 2);
  }, 60_000);
});
