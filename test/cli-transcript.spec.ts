import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { startRun } from '../src';
import type { CliIo } from '../src/cli/io';
import { run } from '../src/cli/run';
import { fixtures, FIXTURE_CLOCK } from './providers/fixtures';
import { modulesOfRootAndRun, output } from './terminal-output';

/*
 * The transcript: `decode` and `show` of every provider fixture (the list is the fixtures folder's,
 * never a list of CLIs), with colour off and on, as snapshots; `run` against the replay stand-in as
 * a transcript, and piped: the JSON lines it always wrote, byte for byte.
 */

const root = join(__dirname, '..');
const REPLAY_CLI = join(__dirname, 'fixtures', 'replay-cli.js');

jest.setTimeout(30_000);

/** Runs a command line in process; stdout a terminal of 80 columns unless `columns` is null. */
async function cli(argv: string[], env: NodeJS.ProcessEnv, columns: number | null = 80) {
  const stdout = output(columns ?? undefined);
  const stderr = output();
  const io: CliIo = { stdin: new PassThrough(), stdout: stdout.stream, stderr: stderr.stream, env, clock: FIXTURE_CLOCK };
  const code = await run(argv, io);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const NO_COLOR = { NO_COLOR: '1' };
const FORCE_COLOR = { FORCE_COLOR: '1' };

const all = fixtures();

describe('decode and show: a transcript of every provider fixture', () => {
  it('finds the fixtures of several CLIs', () => {
    expect(new Set(all.map((fixture) => fixture.provider)).size).toBeGreaterThan(5);
  });

  describe.each(all.map((fixture) => [`${fixture.provider}/${fixture.name}`, fixture] as const))('%s', (_name, fixture) => {
    const argv = ['decode', '--provider', fixture.provider, fixture.nativePath];

    it('colour off (NO_COLOR): the transcript, and no summary on stderr', async () => {
      const { code, stdout, stderr } = await cli(argv, NO_COLOR);
      expect(code).toBe(0);
      expect(stderr).toBe('');
      expect(stdout).not.toMatch(/\u001b/);
      expect(stdout).toMatchSnapshot();
      // Every line fits the terminal.
      for (const line of stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    });

    it('colour on (FORCE_COLOR): the same text in colour', async () => {
      const { stdout } = await cli(argv, FORCE_COLOR);
      expect(stdout).toMatch(/\u001b\[/);
      expect(stdout).toMatchSnapshot();
      expect(stripVTControlCharacters(stdout)).toBe((await cli(argv, NO_COLOR)).stdout);
    });

    it('show: the native file and its decoded events (the golden) read as the same transcript', async () => {
      const decoded = (await cli(argv, NO_COLOR)).stdout;
      // amp and kilo copy another CLI's lines: `show` names the CLI they copy, as `decode --provider auto` does.
      const native = await cli(['show', fixture.nativePath], NO_COLOR);
      expect(native.code).toBe(0);
      expect(native.stdout.split('\n').slice(1)).toEqual(decoded.split('\n').slice(1));
      const events = await cli(['show', fixture.goldenPath], NO_COLOR);
      expect([events.code, events.stderr]).toEqual([0, '']);
      // The goldens were decoded without look-ahead: an event the decoder adds at the end (a missing
      // result) took the fixed clock's time there, not the last line's, so the times of a run differ.
      const timeless = (text: string) => text.replace(/ · (\d+\.\d s|\d+ min \d+ s) · /g, ' · (time) · ');
      expect(timeless(events.stdout)).toBe(timeless(decoded));
    });
  });
});

describe('the transcript', () => {
  const demo = join(root, 'examples', 'claude-tool-run.jsonl');

  it('the demo: the real Claude Code run in one screen (tool call, output, answer, cost)', async () => {
    const { stdout } = await cli(['decode', '--provider', 'claude', demo], NO_COLOR);
    expect(stdout.split('\n').length).toBeLessThanOrEqual(20);
    expect(stdout).toContain('● $ echo hello-from-tool\n  ⎿ hello-from-tool\n');
    expect(stdout).toContain('\nThe command printed hello-from-tool.\n');
    expect(stdout).toMatch(/✓ completed · 0\.6 s · 2 turns · 432 in \/ 28 out tokens[^]*\$0\.0019\n$/);
  });

  it('the README shows the demo as it prints it', async () => {
    const { stdout } = await cli(['decode', '--provider', 'claude', demo], NO_COLOR);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain(`run. On a terminal it prints the run as a person reads it`);
    expect(/what it cost, by the same usage rules for every CLI\):\n\n```text\n([^`]*)```/.exec(readme)?.[1]).toBe(stdout);
  });

  it('follows the terminal width, and 80 columns when --format pretty writes into a pipe', async () => {
    const narrow = await cli(['decode', '--provider', 'claude', demo], NO_COLOR, 40);
    for (const line of narrow.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(40);
    const piped = await cli(['decode', '--provider', 'claude', '--format', 'pretty', demo], NO_COLOR, null);
    expect(piped.stdout).toBe((await cli(['decode', '--provider', 'claude', demo], NO_COLOR)).stdout);
    // Into a pipe, no colour unless FORCE_COLOR says so.
    expect((await cli(['decode', '--provider', 'claude', '--format', 'pretty', demo], {}, null)).stdout).not.toMatch(/\u001b/);
  });

  it('--format jsonl and --json on a terminal: the JSON lines and summary a pipe gets', async () => {
    const piped = await cli(['decode', '--provider', 'claude', demo], NO_COLOR, null);
    expect(piped.stdout.split('\n')[0]).toMatch(/^\{"id":\d+,"kind":"run_started"/);
    expect(piped.stderr).toMatch(/^.*claude-tool-run\.jsonl: \d+ lines read/);
    for (const flag of [['--format', 'jsonl'], ['--json']]) {
      const asked = await cli(['decode', '--provider', 'claude', ...flag, demo], NO_COLOR);
      expect(asked.stdout.replace(/"id":\d+/g, '"id":0')).toBe(piped.stdout.replace(/"id":\d+/g, '"id":0'));
      expect(asked.stderr).toBe(piped.stderr);
    }
  });

  it("--verbose: thinking in full, and the CLI's stderr and unmapped lines", async () => {
    const file = join(root, 'examples', 'valid.jsonl');
    const folded = (await cli(['show', file], NO_COLOR)).stdout;
    const verbose = (await cli(['show', '--verbose', file], NO_COLOR)).stdout;
    expect(folded).not.toContain('stderr: warning: slow disk');
    expect(verbose).toContain('stderr: warning: slow disk');
    expect(verbose).toContain('raw: {"type":"system","subtype":"hook"}');
    expect(verbose).toMatchSnapshot();
  });

  it('show: a line that is not an event is reported and skipped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-transcript-'));
    const file = join(dir, 'events.jsonl');
    const lines = readFileSync(join(root, 'examples', 'valid.jsonl'), 'utf8').split('\n');
    writeFileSync(file, [lines[0], '{"kind":"nonsense"}', 'not JSON', ...lines.slice(1)].join('\n'));
    try {
      const { code, stdout, stderr } = await cli(['show', file], NO_COLOR);
      expect(code).toBe(0);
      expect(
        stderr
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => line.replace(/^.*events\.jsonl:/, '')),
      ).toEqual([expect.stringMatching(/^2: not an event/), expect.stringMatching(/^3: not an event/)]);
      expect(stdout).toBe((await cli(['show', join(root, 'examples', 'valid.jsonl')], NO_COLOR)).stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('run', () => {
  const capture = join(__dirname, 'fixtures', 'providers', 'claude', 'captured-tool.jsonl');
  const argv = ['run', '--provider', 'claude', '--bin', REPLAY_CLI, 'Run echo hello-from-tool.'];
  const saved = process.env.REPLAY_FILE;
  beforeEach(() => {
    // The CLI inherits this process's environment.
    process.env.REPLAY_FILE = capture;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.REPLAY_FILE;
    else process.env.REPLAY_FILE = saved;
  });

  it('on a terminal: the transcript, as decode shows the same capture', async () => {
    const ran = await cli(argv, NO_COLOR);
    expect(ran.code).toBe(0);
    const decoded = (await cli(['decode', '--provider', 'claude', capture], NO_COLOR)).stdout;
    // The run's first line names the CLI's working directory, this one.
    expect(ran.stdout.split('\n').slice(1)).toEqual(decoded.split('\n').slice(1));
    expect(ran.stdout.split('\n').slice(1).join('\n')).toMatchSnapshot();
  });

  it('piped: exactly the JSON lines of its events, as it always printed (`JSON.stringify(event)` and a newline each)', async () => {
    const piped = await cli(argv, NO_COLOR, null);
    expect(piped.code).toBe(0);
    const events = [];
    for await (const event of startRun({ provider: 'claude', executable: REPLAY_CLI, prompt: 'Run echo hello-from-tool.' }))
      events.push(event);
    // Only what differs between two runs: the ids (one counter per process) and the times.
    const stable = (text: string) => text.replace(/"id":\d+/g, '"id":0').replace(/"timestamp":"[^"]+"/g, '"timestamp":"T"');
    expect(stable(piped.stdout)).toBe(stable(events.map((event) => `${JSON.stringify(event)}\n`).join('')));
    expect(piped.stdout).not.toMatch(/\u001b|●|✓/);
  });
});

describe('the package root', () => {
  it('loads none of the terminal code or its libraries (nor does the command line writing JSON lines)', () => {
    const { loaded, stderr } = modulesOfRootAndRun();
    expect(stderr).toBe('');
    expect(loaded.some((path) => path.includes(join('src', 'index.ts')))).toBe(true);
    // This package's own copies (ts-node brings another `diff` of its own, under its folder).
    const terminal = [
      join(root, 'src', 'terminal'),
      ...['marked', 'marked-terminal', 'picocolors', 'string-width', 'wrap-ansi', 'diff'].map((name) => join(root, 'node_modules', name)),
    ];
    expect(loaded.filter((path) => terminal.some((folder) => path.startsWith(`${folder}${sep}`)))).toEqual([]);
  });
});
