import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Event, KINDS, PROVIDERS, createDecoder } from '../src';
import { run } from '../src/cli/run';
import { detectedAsCopy, fixtures, nativeLines, type Fixture } from './providers/fixtures';
import { usePrivateBuild } from './build-copy';

const root = join(__dirname, '..');

/** Runs the built CLI from the repository root, as a user would. */
function cli(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [mainJs(), ...args], { cwd: root, input, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The summary's first line and its kind table: `{ kind: count }`. */
function summary(stderr: string): { head: string; kinds: Record<string, number> } {
  const [head, header, ...rows] = stderr.trimEnd().split('\n');
  expect(header).toMatch(/^kind +events$/);
  return { head, kinds: Object.fromEntries(rows.map((row) => /^([a-z_]+) +(\d+)$/.exec(row)!).map((m) => [m[1], Number(m[2])])) };
}

/** Events as the library decodes them, without what differs between two runs (id, and the time of decoding). */
function comparable(events: Record<string, unknown>[]) {
  return events.map(({ id: _id, timestamp: _timestamp, ...rest }) => rest);
}

const parsedLines = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The first fixture of each provider that has one. */
const samples: Fixture[] = PROVIDERS.flatMap((provider) => fixtures(provider).slice(0, 1));

// A private build: the package's own build (dist/) belongs to `npm run build`.
/** The built CLI's entry point. */
const mainJs = (): string => join(build.dir, 'cli/main.js');
const build = usePrivateBuild('cli-decode-test');

describe('cli-subprocess-core decode', () => {
  it('reads standard input: text, unknown JSON, blank lines, CRLF and a byte order mark; exit 0', () => {
    const { status, stdout, stderr } = cli(['decode', '--provider', 'auto', '-'], '\uFEFFWarming up…\r\n\r\n{"hello":"world"}\n   \n');
    expect(status).toBe(0);
    const events = parsedLines(stdout);
    expect(events.map((e) => [e.kind, e.sequence, e.provider])).toEqual([
      ['raw', 0, null],
      ['raw', 1, null],
      ['error', 2, null],
      ['result', 3, null],
    ]);
    expect(events.map((e) => (e.payload as { content?: unknown }).content)).toEqual([
      'Warming up…',
      { hello: 'world' },
      undefined,
      undefined,
    ]);
    for (const line of stdout.trimEnd().split('\n')) expect(JSON.stringify(Event.fromJSON(line))).toBe(line);
    expect(stderr).toBe(
      '<stdin>: 4 lines read (2 blank), 4 events; provider (none recognised), session (none)\nkind    events\nresult       1\nerror        1\nraw          2\n',
    );
  });

  it('an empty input still owes a result: a warning and a failed result', () => {
    const { status, stdout, stderr } = cli(['decode', '--provider=claude', '-'], '');
    expect(status).toBe(0);
    expect(parsedLines(stdout).map((e) => [e.kind, e.provider])).toEqual([
      ['error', 'claude'],
      ['result', 'claude'],
    ]);
    expect(summary(stderr).head).toBe('<stdin>: 0 lines read (0 blank), 2 events; provider claude, session (none)');
  });

  describe.each(samples.map((fixture) => [`${fixture.provider}/${fixture.name}`, fixture] as const))('%s', (_label, fixture) => {
    const path = relative(root, fixture.nativePath);

    it('writes the events the library decodes, one JSON line each, and a summary of them on stderr', () => {
      const { status, stdout, stderr } = cli(['decode', '--provider', fixture.provider, path]);
      expect(status).toBe(0);
      const decoder = createDecoder(fixture.provider);
      const expected = [...nativeLines(fixture).flatMap((line) => decoder.push(line)), ...decoder.end()].map(
        (e) => JSON.parse(JSON.stringify(e)) as Record<string, unknown>,
      );
      const events = parsedLines(stdout);
      expect(comparable(events)).toEqual(comparable(expected));
      const lines = nativeLines(fixture);
      const blank = lines.filter((line) => line.trim() === '').length;
      const { head, kinds } = summary(stderr);
      expect(head).toBe(
        `${path}: ${lines.length} line${lines.length === 1 ? '' : 's'} read (${blank} blank), ${events.length} events; provider ${fixture.provider}, session ${decoder.sessionId ?? '(none)'}`,
      );
      const counted: Record<string, number> = {};
      for (const event of events) counted[event.kind as string] = (counted[event.kind as string] ?? 0) + 1;
      expect(kinds).toEqual(counted);
      expect(Object.keys(kinds)).toEqual(KINDS.filter((kind) => kind in kinds)); // rows in KINDS order
    });

    it('with --provider auto, names the provider and gives the same events', () => {
      const named = cli(['decode', '--provider', fixture.provider, path]);
      const auto = cli(['decode', '--provider', 'auto', path]);
      expect(auto.status).toBe(0);
      // Amp prints Claude Code's format: where no field tells them apart, auto says claude.
      const provider = /; provider (\S+),/.exec(auto.stderr)?.[1];
      if (detectedAsCopy(fixture.provider, provider)) return;
      expect(provider).toBe(fixture.provider);
      expect(comparable(parsedLines(auto.stdout))).toEqual(comparable(parsedLines(named.stdout)));
    });
  });

  it('fails with exit 2 when the file cannot be read', () => {
    const { status, stdout, stderr } = cli(['decode', '--provider', 'codex', 'examples/no-such-file.jsonl']);
    expect([status, stdout]).toEqual([2, '']);
    expect(stderr).toMatch(/^cli-subprocess-core: cannot read examples\/no-such-file\.jsonl: ENOENT/);
  });

  it('--help lists the decode command and the provider ids', () => {
    const { status, stdout } = cli(['--help']);
    expect(status).toBe(0);
    expect(stdout).toContain('decode --provider <id|auto> <file.jsonl | ->');
    expect(stdout).toContain('claude, codex, gemini, cursor, opencode, amp,');
  });
});

describe('cli-subprocess-core decode progress', () => {
  // In process, with a progress stream of its own: a child process has no terminal.
  it('counts lines and events on the progress line and clears it before the summary', async () => {
    let progress = '';
    let errors = '';
    const progressStream = new PassThrough().on('data', (chunk: Buffer) => (progress += chunk.toString()));
    const stderr = new PassThrough().on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const stdout = new PassThrough().resume();
    const stdin = Readable.from(['plain text\n'.repeat(1500)]);
    const code = await run(['decode', '--provider', 'cursor', '-'], {
      stdin,
      stdout,
      stderr,
      progress: progressStream,
      progressEveryMs: 0,
    });
    expect(code).toBe(0);
    expect(progress).toBe('\r\x1b[K<stdin>: 1,024 lines, 1,024 events…\r\x1b[K');
    expect(errors).toMatch(/^<stdin>: 1500 lines read \(0 blank\), 1502 events; provider cursor, session \(none\)\n/);
  });
});

describe('cli-subprocess-core decode --keep-raw', () => {
  it.each([
    ['all', (raws: unknown[]) => raws.every((raw) => raw !== null)],
    ['unmapped', (raws: unknown[], kinds: string[]) => raws.every((raw, i) => (raw !== null) === (kinds[i] === 'raw'))],
    ['none', (raws: unknown[]) => raws.every((raw) => raw === null)],
  ])('%s decides which events carry the native line', (keepRaw, holds) => {
    const { status, stdout } = cli([
      'decode',
      '--provider',
      'codex',
      '--keep-raw',
      keepRaw as string,
      'test/fixtures/providers/codex/captured-plain.jsonl',
    ]);
    expect(status).toBe(0);
    // Every event of this capture comes from a line (its result line ends it: nothing is owed at the end).
    const events = parsedLines(stdout);
    const kinds = events.map((event) => event.kind as string);
    expect(kinds).toContain('raw');
    expect(
      (holds as (raws: unknown[], kinds: string[]) => boolean)(
        events.map((event) => event.raw),
        kinds,
      ),
    ).toBe(true);
  });
});
