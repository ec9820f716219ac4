import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyEvent } from '../src';
import { usePrivateBuild } from './build-copy';
import { spawnNodeCli } from './cli-child';
import { jsonlEvents as events } from './jsonl-events';
import { pidFrom, processExists } from './process-gone';

/*
 * The `run` command against a REPLAY stand-in (test/fixtures/replay-cli.js), which prints real
 * captured Claude Code transcripts: exit codes, stops and a closed stdout, without the real CLIs
 * (those are in e2e/test/run-command.spec.ts).
 */

const root = join(__dirname, '..');
const REPLAY_CLI = join(__dirname, 'fixtures', 'replay-cli.js');
const claudeCapture = (name: string) => join(__dirname, 'fixtures', 'providers', 'claude', `captured-${name}.jsonl`);

// A private build: the package's own build (dist/) belongs to `npm run build`.
const build = usePrivateBuild('cli-run-test');
const mainJs = (): string => join(build.dir, 'cli/main.js');

// Each test starts Node twice (the command, the stand-in CLI): on a loaded machine that alone took over 5 s.
jest.setTimeout(60_000);

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cli-run-test-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the built CLI to its end, from the repository root, with `env` over this process's. */
function cli(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [mainJs(), ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts the built CLI with `env` over this process's, to signal it or close its stdout while it runs. */
const startCli = (args: string[], env: Record<string, string>) =>
  spawnNodeCli(mainJs(), args, { cwd: root, env: { ...process.env, ...env } });

const resultStatus = (event: AnyEvent | undefined) => (event?.kind === 'result' ? event.payload.status : `not a result: ${event?.kind}`);

const run = (...rest: string[]) => ['run', '--provider', 'claude', '--bin', REPLAY_CLI, ...rest];

describe('cli-subprocess-core run: usage', () => {
  it('--help lists the run command and its exit codes', () => {
    const { status, stdout } = cli(['--help']);
    expect(status).toBe(0);
    expect(stdout).toContain('run --provider <claude|codex|gemini|pi|kilo|cline> [options] [--] <prompt>');
    expect(stdout).toContain('run       0 completed, 1 failed or timed out, 127 executable not found, 130 interrupted (SIGINT),');
  });

  it.each([
    [['run', 'Say hello.'], 'run needs --provider <claude|codex|gemini|pi|kilo|cline>'],
    [['run', '--provider', 'cursor', 'Say hello.'], 'unknown provider "cursor": run takes one of claude, codex, gemini, pi, kilo, cline'],
    [['run', '--provider', 'claude'], 'run needs a prompt'],
    [['run', '--provider', 'claude', '  '], 'run needs a prompt'],
    [['run', '--provider', 'claude', 'Say', 'hello.'], 'run takes one prompt: quote it (and put -- before one that starts with a dash)'],
    [['run', '--provider', 'claude', '--timeout', 'soon', 'Say hello.'], '--timeout must be a positive number of seconds; got "soon"'],
    [['run', '--provider', 'claude', '--timeout', '0', 'Say hello.'], '--timeout must be a positive number of seconds; got "0"'],
    [['run', '--provider', 'claude', '--timeout=-5', 'Say hello.'], '--timeout must be a positive number of seconds; got "-5"'],
    [['run', '--provider', 'claude', '--timeout', '1e3', 'Say hello.'], '--timeout must be a positive number of seconds; got "1e3"'],
    [['run', '--provider', 'claude', '--timeout'], '--timeout needs a value'],
    [['run', '--provider', 'claude', '--idle-timeout', '0', 'Say hello.'], '--idle-timeout must be a positive number of seconds; got "0"'],
    [
      ['run', '--provider', 'claude', '--permission', 'yolo', 'Say hello.'],
      '--permission must be one of default, accept-edits, bypass, plan; got "yolo"',
    ],
    [['run', '--provider', 'claude', '--allowed-tools', ' , ', 'Say hello.'], '--allowed-tools needs at least one tool name'],
    [['run', '--provider', 'claude', '--cwd', '/nonexistent-dir', 'Say hello.'], '--cwd /nonexistent-dir: no such directory'],
    [['run', '--provider', 'claude', '--model=', 'Say hello.'], '--model needs a value'],
    [['run', '--provider', 'claude', '--yolo', 'Say hello.'], 'unknown option: --yolo'],
    [['run', '--provider', 'claude', '--json', 'Say hello.'], '--json is an option of validate, decode and show'],
    [['run', '--provider', 'claude', '--format', 'html', 'Say hello.'], '--format must be pretty or jsonl; got "html"'],
    [['run', '--provider', 'claude', '--keep-raw', 'some', 'Say hello.'], '--keep-raw must be one of all, unmapped, none; got "some"'],
    [['validate', '--keep-raw', 'none', 'a.jsonl'], '--keep-raw is an option of decode, run, session and acp'],
    [['decode', '--provider', 'claude', '--partial', 'a.jsonl'], '--partial is an option of run'],
    [['validate', '--bin', 'claude', 'a.jsonl'], '--bin is an option of run, session and acp'],
  ])('usage error %j → exit 2 with the usage on stderr', (args, message) => {
    const { status, stdout, stderr } = cli(args);
    expect([status, stdout]).toEqual([2, '']);
    expect(stderr).toContain(`cli-subprocess-core: ${message}\n`);
    expect(stderr).toContain('Usage: cli-subprocess-core');
  });

  it('an option the provider has no flag for is a usage error too, and nothing is started', () => {
    const pidFile = join(scratch, 'codex-tools.pid');
    const { status, stdout, stderr } = cli(['run', '--provider', 'codex', '--allowed-tools', 'Bash', '--bin', REPLAY_CLI, 'Say hello.'], {
      REPLAY_PID_FILE: pidFile,
    });
    expect([status, stdout, stderr]).toEqual([2, '', 'cli-subprocess-core: codex has no flag for allowedTools\n']);
    expect(existsSync(pidFile)).toBe(false);
  });
});

describe('cli-subprocess-core run: a missing executable → exit 127, one line on stderr, no stack', () => {
  it('--bin that does not exist', () => {
    const { status, stdout, stderr } = cli(['run', '--provider', 'claude', '--bin', '/nonexistent/claude', 'Say hello.']);
    expect([status, stdout]).toEqual([127, '']);
    expect(stderr).toBe(
      'cli-subprocess-core: /nonexistent/claude not found or not executable: install @anthropic-ai/claude-code or pass executable\n',
    );
  });

  it('a CLI that is not on PATH', () => {
    const { status, stdout, stderr } = cli(['run', '--provider', 'gemini', 'Say hello.'], { PATH: scratch });
    expect([status, stdout]).toEqual([127, '']);
    expect(stderr).toBe('cli-subprocess-core: gemini not found on PATH: install @google/gemini-cli or pass executable\n');
  });
});

describe('cli-subprocess-core run: a replayed Claude Code run', () => {
  it('a completed run → exit 0, its events as JSONL ending in a completed result', () => {
    const { status, stdout, stderr } = cli(run('Say hello.'), { REPLAY_FILE: claudeCapture('plain') });
    expect([status, stderr]).toEqual([0, '']);
    const written = events(stdout);
    expect(written.map((event) => event.kind)).toEqual(['run_started', 'assistant_message', 'cost_update', 'result']);
    expect(written.map((event) => event.sequence)).toEqual([0, 1, 2, 3]);
    expect(new Set(written.map((event) => event.provider_session_id))).toEqual(new Set(['f81b5f86-8bc1-469f-9f87-54734a16826e']));
    expect(resultStatus(written.at(-1))).toBe('completed');
    expect(written.every((event) => event.raw === null)).toBe(true); // keepRaw 'none' by default, as for startRun
  });

  it('--keep-raw all: every event carries its native line', () => {
    const { status, stdout } = cli(run('--keep-raw', 'all', 'Say hello.'), { REPLAY_FILE: claudeCapture('plain') });
    expect(status).toBe(0);
    expect(events(stdout).map((event) => event.raw === null)).toEqual([false, false, false, false]);
  });

  it('an API error (the real 400 transcript, exit 1) → exit 1, a failed result', () => {
    const { status, stdout } = cli(run('Say hello.'), { REPLAY_FILE: claudeCapture('api-error'), REPLAY_EXIT: '1' });
    expect(status).toBe(1);
    expect(resultStatus(events(stdout).at(-1))).toBe('failed');
  });

  it('a CLI that exits non-zero with nothing on stdout → exit 1, a failed result', () => {
    const { status, stdout } = cli(run('Say hello.'), { REPLAY_EXIT: '3' });
    expect(status).toBe(1);
    expect(resultStatus(events(stdout).at(-1))).toBe('failed');
  });

  it('--timeout → exit 1, an error with code timeout and a timed_out result; the CLI is gone', () => {
    const pidFile = join(scratch, 'timeout.pid');
    // 2 s, not less: on a loaded machine a shorter timeout stopped the stand-in before it had even written its pid.
    const { status, stdout } = cli(run('--timeout', '2', 'Say hello.'), {
      REPLAY_FILE: claudeCapture('plain'),
      REPLAY_LINES: '1',
      REPLAY_HOLD: '1',
      REPLAY_PID_FILE: pidFile,
    });
    expect(status).toBe(1);
    const written = events(stdout);
    expect(written.slice(-2).map((event) => [event.kind, event.kind === 'error' ? event.payload.code : resultStatus(event)])).toEqual([
      ['error', 'timeout'],
      ['result', 'timed_out'],
    ]);
    expect(processExists(pidFrom(pidFile))).toBe(false);
  });

  it('--idle-timeout → exit 1, an error with code idle_timeout and a timed_out result; the CLI is gone', () => {
    const pidFile = join(scratch, 'idle.pid');
    const { status, stdout } = cli(run('--idle-timeout', '2', 'Say hello.'), {
      REPLAY_FILE: claudeCapture('plain'),
      REPLAY_LINES: '1',
      REPLAY_HOLD: '1',
      REPLAY_PID_FILE: pidFile,
    });
    expect(status).toBe(1);
    expect(
      events(stdout)
        .slice(-2)
        .map((event) => [event.kind, event.kind === 'error' ? event.payload.code : resultStatus(event)]),
    ).toEqual([
      ['error', 'idle_timeout'],
      ['result', 'timed_out'],
    ]);
    expect(processExists(pidFrom(pidFile))).toBe(false);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while the CLI runs → the CLI is stopped, the aborted result written, exit %i', async (signal, code) => {
    const pidFile = join(scratch, `${signal}.pid`);
    const cli = startCli(run('Say hello.'), {
      REPLAY_FILE: claudeCapture('plain'),
      REPLAY_LINES: '1',
      REPLAY_HOLD: '1',
      REPLAY_PID_FILE: pidFile,
    });
    await cli.line(); // run_started: the CLI is under way
    cli.child.kill(signal);
    const { status, stdout, stderr } = await cli.exited;
    expect([status, stderr]).toEqual([code, '']);
    const written = events(stdout);
    expect(written[0].kind).toBe('run_started');
    expect(written.slice(-2).map((event) => [event.kind, event.kind === 'error' ? event.payload.code : resultStatus(event)])).toEqual([
      ['error', 'aborted'],
      ['result', 'aborted'],
    ]);
    expect(processExists(pidFrom(pidFile))).toBe(false);
  });

  it('a reader that closes stdout early (EPIPE) → the run is stopped, exit 141, no crash', async () => {
    const pidFile = join(scratch, 'epipe.pid');
    // A transcript without its result line, printed again and again: the run is never over by itself
    // (after a completed result, stopping the CLI would only be its cleanup, and the run exit 0).
    const noResult = join(scratch, 'no-result.jsonl');
    writeFileSync(
      noResult,
      readFileSync(claudeCapture('plain'), 'utf8')
        .split('\n')
        .filter((line) => !line.includes('"type":"result"'))
        .join('\n'),
    );
    const cli = startCli(run('Say hello.'), { REPLAY_FILE: noResult, REPLAY_LOOP: '1', REPLAY_PID_FILE: pidFile });
    await cli.line();
    cli.child.stdout?.destroy(); // the reader leaves while the CLI goes on printing
    const { status, stderr } = await cli.exited;
    expect([status, stderr]).toEqual([141, '']);
    expect(processExists(pidFrom(pidFile))).toBe(false);
  });
});
