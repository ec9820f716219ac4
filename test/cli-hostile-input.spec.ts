import 'reflect-metadata';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpus } from '../bench/corpus';
import { Event } from '../src';
import { usePrivateBuild } from './build-copy';

// Regression tests for the CLI items of issue #12 ("the CLI as a Unix tool", and its bounds),
// each named after its reproducer. They run the built CLI as a child, as a user would.
const root = join(__dirname, '..');
const build = usePrivateBuild('cli-hostile');
const mainJs = (): string => join(build.dir, 'cli/main.js');
const validLine = readFileSync(join(root, 'examples/valid.jsonl'), 'utf8').split('\n')[0];

function cli(args: string[], options: { input?: string | Buffer; node?: string[] } = {}) {
  const result = spawnSync(process.execPath, [...(options.node ?? []), mainJs(), ...args], {
    cwd: root,
    input: options.input,
    maxBuffer: 1 << 30,
  });
  return { status: result.status, signal: result.signal, stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8') };
}

/** Runs the CLI through `sh -c`, its stdin from `producer` (e.g. `head -c N /dev/zero`). */
function piped(producer: string, args: string[], node: string[] = []) {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = `${producer} | ${[process.execPath, ...node, mainJs(), ...args].map(quote).join(' ')}`;
  const result = spawnSync('sh', ['-c', command], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The numbers of a summary's kind table: `{ kind: [valid, invalid] }`. */
function kindTable(report: string): Record<string, [number, number]> {
  return Object.fromEntries(
    [...report.matchAll(/^(\(no kind\)|[a-z_]+) +(\d+) +(\d+)$/gm)].map((m) => [m[1], [Number(m[2]), Number(m[3])]]),
  );
}

/** The report lines about line `n` of standard input. */
const reportOf = (report: string, n: number): string[] => report.split('\n').filter((line) => line.startsWith(`<stdin>:${n}: `));

describe('a line longer than the limit (validate /dev/zero crashed with RangeError: Invalid string length)', () => {
  it('head -c 70000000 /dev/zero | validate - : one line_too_long line at the default 64 MB limit, no RangeError, exit 1', () => {
    const { status, stdout, stderr } = piped('head -c 70000000 /dev/zero', ['validate', '-']);
    expect(stderr).toBe('');
    expect(stdout).toContain(
      '<stdin>:1: (root): line of 70000000 bytes, longer than the limit of 67108864 (--max-line-bytes); skipped unread (line_too_long)\n',
    );
    expect(stdout).toContain('<stdin>: 1 line checked, 0 valid, 1 invalid; 0 blank lines skipped\n');
    expect(status).toBe(1);
  }, 60_000);

  it('the over-long line is skipped without being held: 100 MB of /dev/zero under a 32 MB heap, and the run goes on after it', () => {
    const producer = `{ printf '%s\\n' '${validLine}'; head -c 100000000 /dev/zero; printf '\\n%s\\n' '${validLine}'; }`;
    const { status, stdout, stderr } = piped(producer, ['validate', '--max-line-bytes', '1000000', '-'], ['--max-old-space-size=32']);
    expect(stderr).toBe('');
    expect(reportOf(stdout, 2)).toEqual([
      '<stdin>:2: (root): line of 100000000 bytes, longer than the limit of 1000000 (--max-line-bytes); skipped unread (line_too_long)',
    ]);
    expect(stdout).toContain('<stdin>: 3 lines checked, 2 valid, 1 invalid; 0 blank lines skipped\n');
    expect(status).toBe(1);
  }, 60_000);

  it('--max-line-bytes counts bytes, not characters, and a line at the limit is read', () => {
    const line = '{"kind":"raw","payload":{"content":"λλ"}}'; // 43 bytes, 41 characters
    expect(Buffer.byteLength(line)).toBe(43);
    expect(cli(['validate', '--max-line-bytes', '43', '-'], { input: `${line}\n` }).status).toBe(0);
    const over = cli(['validate', '--max-line-bytes', '42', '-'], { input: `${line}\n` });
    expect([over.status, reportOf(over.stdout, 1)]).toEqual([
      1,
      ['<stdin>:1: (root): line of 43 bytes, longer than the limit of 42 (--max-line-bytes); skipped unread (line_too_long)'],
    ]);
  });

  it.each([['0'], ['-1'], ['1e3'], ['x'], ['536870889']])('--max-line-bytes %s is a usage error (exit 2)', (value) => {
    const { status, stderr } = cli(['validate', '--max-line-bytes', value, '-'], { input: '' });
    expect(status).toBe(2);
    expect(stderr).toContain(`cli-subprocess-core: --max-line-bytes must be a whole number of bytes from 1 to 536870888; got "${value}"\n`);
  });

  it('a read error (validate on a directory) is exit 2 with one message and no stack', () => {
    const { status, stdout, stderr } = cli(['validate', 'examples']);
    expect([status, stdout]).toEqual([2, '']);
    expect(stderr).toBe('cli-subprocess-core: cannot read examples: EISDIR: illegal operation on a directory, read\n');
  });
});

describe('report output is bounded (1,000,000 issues printed 102 MB; a 10 MB key a 10 MB report line)', () => {
  it('a line with 100,000 non-finite numbers prints at most 10 issues, then "… and K more issues" counting every other one', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":1e400`).join(',');
    const { status, stdout } = cli(['validate', '-'], { input: `{"kind":"raw",${keys}}\n` });
    expect(status).toBe(1);
    const lines = reportOf(stdout, 1);
    expect(lines).toHaveLength(11);
    expect(lines[10]).toBe('<stdin>:1: … and 99990 more issues');
    expect(Buffer.byteLength(stdout)).toBeLessThan(5_000);
  });

  it('a 10 MB key is cut in the report line', () => {
    const { status, stdout } = cli(['validate', '-'], {
      input: `{"kind":"raw","payload":{"stream":"stdout","content":"x","metadata":7},"${'k'.repeat(10_000_000)}":1e400}\n`,
    });
    expect(status).toBe(1);
    const lines = reportOf(stdout, 1);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.length).toBeLessThan(600);
  });

  it('a path of 100 keys of 10,000 characters (escaped to six times that) prints at most 200 characters of path', () => {
    const key = '\\u0001'.repeat(10_000); // JSON text for 10,000 U+0001 characters
    const nested = `${`{"${key}":`.repeat(100)}1e400${'}'.repeat(100)}`;
    const { status, stdout } = cli(['validate', '-'], {
      input: `{"kind":"raw","payload":{"stream":"stdout","content":"x","metadata":${nested}}}\n`,
    });
    expect(status).toBe(1);
    const [line] = reportOf(stdout, 1);
    const path = line.slice('<stdin>:1: '.length, line.indexOf(': ', '<stdin>:1: '.length));
    expect(path.length).toBeLessThanOrEqual(201);
    expect(path.endsWith('…')).toBe(true);
  });
});

describe('validate … | head -5 exited 0 after printing invalid lines', () => {
  it('stdout closed early (EPIPE): the run stops reading and exits 1, the status of the lines read so far', async () => {
    // An invalid first line (reported on stderr with --json), then far more events than a pipe holds.
    const input = `{"kind":"nope"}\n${`${validLine}\n`.repeat(100_000)}`;
    const child = spawn(process.execPath, [mainJs(), 'validate', '--json', '-'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdin.on('error', () => undefined); // the CLI stops reading: the rest of the input may never be taken
    child.stdin.end(input);
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.stdout.destroy(); // the reader goes away, as `head` does
    const status = await new Promise((resolve) => child.on('close', resolve));
    expect(status).toBe(1);
    expect(stderr).toMatch(/^<stdin>:1: kind: /);
    const checked = Number(/<stdin>: (\d+) lines checked/.exec(stderr)?.[1]);
    expect(checked).toBeGreaterThan(1);
    expect(checked).toBeLessThan(100_001); // it stopped reading
  }, 60_000);
});

describe('SIGINT left no summary', () => {
  it('prints the summary of the lines checked so far on stderr, then exits 130', async () => {
    const child = spawn(process.execPath, [mainJs(), 'validate', '-'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const reported = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        if (stdout.includes('<stdin>:2: ')) resolve();
      }),
    );
    child.stdin.write(`${validLine}\n{"kind":"nope"}\n`); // stdin stays open: the CLI waits for more
    await reported;
    child.kill('SIGINT');
    const status = await new Promise((resolve) => child.on('close', resolve));
    expect(status).toBe(130);
    expect(stderr).toMatch(/^<stdin>: 2 lines checked, 1 valid, 1 invalid; 0 blank lines skipped\n/);
    expect(kindTable(stderr)).toEqual({ run_started: [1, 0], '(no kind)': [0, 1] });
  }, 60_000);
});

describe('invalid UTF-8 was silently replaced with U+FFFD and counted valid', () => {
  const bad = Buffer.concat([
    Buffer.from('{"kind":"raw","payload":{"stream":"stdout","content":"a'),
    Buffer.from([0xc3, 0x28]),
    Buffer.from('"}}\n'),
  ]);

  it('is an invalid line with code invalid_utf8, and --json writes nothing for it', () => {
    const { status, stdout, stderr } = cli(['validate', '--json', '-'], {
      input: Buffer.concat([Buffer.from(`${validLine}\n`), bad, Buffer.from(`${validLine}\n`)]),
    });
    expect(status).toBe(1);
    expect(reportOf(stderr, 2)).toEqual([
      '<stdin>:2: (root): not UTF-8: bad byte at offset 55 (--allow-invalid-utf8 reads it with U+FFFD in its place) (invalid_utf8)',
    ]);
    expect(stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(stderr).toContain('<stdin>: 3 lines checked, 2 valid, 1 invalid');
  });

  it.each([
    ['an overlong form', [0xc0, 0xaf]],
    ['a UTF-8 encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a character cut at the end of the line', [0xe2, 0x82]],
  ])('%s is invalid_utf8', (_, bytes) => {
    const line = Buffer.concat([
      Buffer.from('{"kind":"raw","payload":{"stream":"stdout","content":"'),
      Buffer.from(bytes),
      Buffer.from('"}}\n'),
    ]);
    expect(cli(['validate', '-'], { input: line }).stdout).toContain('(invalid_utf8)\n');
  });

  it('--allow-invalid-utf8 keeps the old reading: U+FFFD in place of the bad byte, the line valid', () => {
    const { status, stdout } = cli(['validate', '--json', '--allow-invalid-utf8', '-'], { input: bad });
    expect(status).toBe(0);
    expect(JSON.parse(stdout).payload.content).toBe('a\ufffd(');
  });
});

describe('JSON error messages were cut at 40 characters and lost the position ("Unterminated string in JSON at position ")', () => {
  it('keeps the position and an excerpt around it', () => {
    const line = `{"kind":"assistant_delta","payload":{"content":"abc`;
    const { stdout } = cli(['validate', '-'], { input: `${line}\n` });
    expect(reportOf(stdout, 1)).toEqual([
      `<stdin>:1: (root): invalid JSON: Unterminated string at position 51, near …"oad\\":{\\"content\\":\\"abc" (json)`,
    ]);
  });

  it('gives a position for the messages V8 writes without one (an unexpected token, the end of the input)', () => {
    const { stdout } = cli(['validate', '-'], { input: `{"kind":"raw","payload":{"content":"${'a'.repeat(100)}", "x": tru}\n{"kind":\n` });
    expect(reportOf(stdout, 1)).toEqual([
      `<stdin>:1: (root): invalid JSON: Unexpected token '}' at position 147, near …"aaaaaaaaa\\", \\"x\\": tru}" (json)`,
    ]);
    expect(reportOf(stdout, 2)).toEqual([
      '<stdin>:2: (root): invalid JSON: unexpected end of input at position 8, near "{\\"kind\\":" (json)',
    ]);
  });
});

describe('the summary counted a valid kind with a bad envelope field under (no kind); 6-digit counts overflowed the valid column', () => {
  it('counts an envelope error under the kind the line names', () => {
    const { stdout } = cli(['validate', '-'], { input: '{"kind":"raw","sequence":-1}\n{"kind":"nope"}\n{"kind":\n' });
    expect(kindTable(stdout)).toEqual({ raw: [0, 1], '(no kind)': [0, 2] });
  });

  it('sizes the columns to the widest count (1,000,000 valid lines)', () => {
    const { status, stdout } = piped(`yes '${validLine}' | head -n 1000000`, ['validate', '-']);
    expect(status).toBe(0);
    const table = stdout.split('\n').slice(1, -1);
    expect(table).toEqual(['kind           valid  invalid', 'run_started  1000000        0']);
    // Every number ends where its column name ends.
    const ends = (line: string) => [...line.matchAll(/\S+/g)].slice(1).map((m) => m.index! + m[0].length);
    expect(ends(table[1])).toEqual(ends(table[0]));
  }, 120_000);
});

describe('validate --json was 1.36× its floor: the buffered writer changes no byte of the output', () => {
  it('many chunks of mixed events, a 600 KB event and non-ASCII text come out as JSON.stringify(event), in order', () => {
    const big = JSON.stringify({
      id: 1,
      kind: 'raw',
      timestamp: '2026-03-19T00:00:00.000001Z',
      payload: { stream: 'stdout', content: 'λ🙂x'.repeat(150_000) },
    });
    const lines = [...corpus(3000), big, ...corpus(3000, 7)];
    const { status, stdout } = cli(['validate', '--json', '-'], { input: `${lines.join('\n')}\n` });
    expect(status).toBe(0);
    const expected = `${lines.map((line) => JSON.stringify(Event.fromJSON(line))).join('\n')}\n`;
    expect(stdout.length).toBe(expected.length);
    expect(stdout === expected).toBe(true);
  }, 60_000);
});

describe("decode shares the bounded line reader (a line past V8's string limit crashed it too)", () => {
  it('head -c 70000000 /dev/zero, then a line: decode warns about the over-long line, skips it and decodes the next, exit 0', () => {
    const { status, stdout, stderr } = piped(`{ head -c 70000000 /dev/zero; printf '\\nhello\\n'; }`, [
      'decode',
      '--provider',
      'claude',
      '-',
    ]);
    expect(stderr).toContain('cli-subprocess-core: <stdin>:1: line of 70000000 bytes, longer than 67108864; skipped unread\n');
    expect(stderr).not.toContain('RangeError');
    expect(stdout).toContain('"hello"');
    expect(status).toBe(0);
  }, 60_000);
});
