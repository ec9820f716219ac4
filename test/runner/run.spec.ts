import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeLines, ExecutableNotFoundError, startRun, type AnyEvent, type Run, type RunOptions, type RunOutcome } from '../../src';
import { isRunning, readStat, type ProcessRef } from '../../src/runner/process-table';
import type { RunBackpressure } from '../../src/runner/run';
import { waitFor } from '../wait-for';

/*
 * startRun over a stand-in CLI (fake-cli.js) that prints real captured fixture lines: process
 * handling, backpressure, ordering and concurrency without the real CLIs (those are in e2e/test).
 */

const FAKE = join(__dirname, 'fake-cli.js');
const FIXTURES = join(__dirname, '..', 'fixtures', 'providers');
const fixture = (provider: string, name: string) => join(FIXTURES, provider, `captured-${name}.jsonl`);
const TOOL_FIXTURE = { claude: 'tool', codex: 'shell', gemini: 'tool' } as const;

jest.setTimeout(30_000);

let dir: string;
const started: Run[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'runner-test-'));
});
// A failed test must not leave a stand-in CLI blocked on a full pipe (jest would wait for it forever).
afterEach(async () => {
  for (const run of started.splice(0)) {
    run.abort('test cleanup');
    await run.done;
  }
  rmSync(dir, { recursive: true, force: true });
});

function fake(env: Record<string, string>, options: Partial<RunOptions> = {}): Run {
  const run = startRun({
    provider: 'claude',
    prompt: 'hi',
    executable: FAKE,
    cwd: dir,
    killGraceMs: 500,
    ...options,
    env: { ...env, ...options.env },
  });
  started.push(run);
  return run;
}

/** What `decodeLines` makes of a fixture: what the runner must produce from the same stdout. */
async function decoded(provider: 'claude' | 'codex' | 'gemini', name: string): Promise<AnyEvent[]> {
  const events: AnyEvent[] = [];
  for await (const event of decodeLines(provider, createReadStream(fixture(provider, name)), { clock: () => new Date() }))
    events.push(event);
  return events;
}

async function collect(run: Run): Promise<{ events: AnyEvent[]; outcome: RunOutcome }> {
  const events: AnyEvent[] = [];
  for await (const event of run) events.push(event);
  return { events, outcome: await run.done };
}

/** The process whose pid a fake wrote to `file`, once it has. */
async function childOf(file: string): Promise<ProcessRef> {
  const pid = await waitFor('the child pid file', () => existsSync(file) && Number(readFileSync(file, 'utf8')));
  const stat = readStat(pid);
  if (!stat) throw new Error(`process ${pid} is already gone`);
  return stat;
}

describe('startRun (with a stand-in CLI)', () => {
  it('passes the prompt as one argv element, never through a shell', async () => {
    const prompt = '"; touch pwned; $(touch pwned2) `touch pwned3` -x';
    const argvFile = join(dir, 'argv.json');
    const run = fake({ FAKE_ARGV_FILE: argvFile }, { prompt, model: 'opus', allowedTools: ['Bash', 'Read'] });
    await collect(run);
    const argv = JSON.parse(readFileSync(argvFile, 'utf8')) as string[];
    expect(argv).toEqual(run.argv.slice(1));
    expect(argv[argv.length - 1]).toBe(prompt);
    expect(argv.slice(-2, -1)).toEqual(['--']);
    expect(['pwned', 'pwned2', 'pwned3'].filter((name) => existsSync(join(dir, name)))).toEqual([]);
  });

  it('decodes stdout like decodeLines does, with one sequence, and counts the outcome', async () => {
    const { events, outcome } = await collect(fake({ FAKE_FIXTURE: fixture('claude', 'tool') }));
    const expected = await decoded('claude', 'tool');
    expect(events.map((event) => event.kind)).toEqual(expected.map((event) => event.kind));
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index));
    expect(outcome).toMatchObject({ status: 'completed', exitCode: 0, signal: null, sessionId: expected[0]?.provider_session_id });
    expect(outcome.counts.tool_use).toBe(1);
    expect(outcome.cost?.cost_usd).toBeGreaterThan(0);
  });

  it('stderr lines are events; only those after run_started carry the session id', async () => {
    const run = fake(
      { FAKE_STDERR: 'warming up\r\nstill warming\n', FAKE_FIXTURE: fixture('codex', 'plain'), FAKE_STDERR_AFTER: 'bye' },
      { provider: 'codex' },
    );
    const { events, outcome } = await collect(run);
    const stderr = events.filter((event) => event.kind === 'stderr');
    expect(stderr.map((event) => (event.kind === 'stderr' ? event.payload.content : ''))).toEqual(['warming up', 'still warming', 'bye']);
    const started = events.findIndex((event) => event.kind === 'run_started');
    events.forEach((event, index) => expect(event.provider_session_id).toBe(index < started ? null : outcome.sessionId));
    expect(outcome.counts.stderr).toBe(3);
  });

  // #18 "Timestamps: … run backwards against runner stderr events stamped now".
  it('timestamps: untimed lines are stamped when read, and never run backwards against stderr events', async () => {
    const before = Date.now();
    const run = fake({ FAKE_STDERR: 'warming up\n', FAKE_FIXTURE: fixture('claude', 'tool'), FAKE_STDERR_AFTER: 'bye\n' });
    const { events } = await collect(run);
    const after = Date.now();
    const times = events.map((event) => event.timestamp.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The fixture's own times are from the day it was captured; nothing is stamped before the run started.
    for (const time of times) {
      expect(time).toBeGreaterThanOrEqual(before);
      expect(time).toBeLessThanOrEqual(after);
    }
    expect(events.filter((event) => event.kind === 'stderr')).toHaveLength(2);
  });

  it('a slow consumer pauses the child: the queue stays bounded and the CLI blocks on its full pipe', async () => {
    const doneFile = join(dir, 'printed-all');
    const repeat = 300; // about 2 MB of Claude lines: far more than the queue, the stream buffer and the pipe hold
    const run = fake({ FAKE_FIXTURE: fixture('claude', 'tool'), FAKE_REPEAT: String(repeat), FAKE_DONE_FILE: doneFile });
    const iterator = run[Symbol.asyncIterator]();
    await iterator.next();
    const state = (): RunBackpressure => (run as unknown as { backpressure: RunBackpressure }).backpressure;
    await waitFor('the runner to pause the output', () => state().paused);
    const paused = state();
    // At most the queue's bound plus the events of the one line being decoded; the stream buffer holds at most one read.
    expect(paused.queued).toBeLessThanOrEqual(paused.limit + 10);
    expect(paused.stdoutBuffered).toBeLessThanOrEqual(2 * 65536);
    expect(existsSync(doneFile)).toBe(false);
    expect(isRunning(readStat(run.pid as number) as ProcessRef)).toBe(true);
    let count = 1;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) count += 1;
    const outcome = await run.done;
    expect(outcome.status).toBe('completed');
    expect(outcome.counts.result).toBe(repeat);
    expect(count).toBe(Object.values(outcome.counts).reduce((sum, n) => sum + n, 0));
    expect(state().waits).toBeGreaterThan(0);
  });

  it('twenty concurrent runs are independent, each with its own sequence', async () => {
    const providers = ['claude', 'codex', 'gemini'] as const;
    const runs = Array.from({ length: 20 }, (_, index) => {
      const provider = providers[index % 3] as (typeof providers)[number];
      return {
        provider,
        run: fake({ FAKE_FIXTURE: fixture(provider, TOOL_FIXTURE[provider]), FAKE_STDERR: `run ${index}\n` }, { provider }),
      };
    });
    const results = await Promise.all(runs.map(({ run }) => collect(run)));
    for (const [index, { events, outcome }] of results.entries()) {
      const { provider } = runs[index] as (typeof runs)[number];
      const expected = await decoded(provider, TOOL_FIXTURE[provider]);
      expect(events.filter((event) => event.kind !== 'stderr').map((event) => event.kind)).toEqual(expected.map((event) => event.kind));
      expect(events.map((event) => event.sequence)).toEqual(events.map((_, n) => n));
      expect(events.every((event) => event.provider === provider)).toBe(true);
      expect(events.some((event) => event.kind === 'stderr' && event.payload.content === `run ${index}`)).toBe(true);
      expect(outcome.status).toBe('completed');
    }
  });

  it('abort ends a CLI that ignores SIGTERM (SIGKILL after the grace period) and its setsid child', async () => {
    const pidFile = join(dir, 'child.pid');
    // Only the session's first line: no result of the CLI's own.
    const init = join(dir, 'init.jsonl');
    writeFileSync(init, `${readFileSync(fixture('gemini', 'plain'), 'utf8').split('\n')[0] ?? ''}\n`);
    const run = fake(
      { FAKE_FIXTURE: init, FAKE_CHILD: 'setsid', FAKE_CHILD_PID_FILE: pidFile, FAKE_IGNORE_TERM: '1', FAKE_HANG: '1' },
      { provider: 'gemini' },
    );
    const child = await childOf(pidFile);
    run.abort('stop');
    const { events, outcome } = await collect(run);
    expect(outcome).toMatchObject({ status: 'aborted', signal: 'SIGKILL' });
    expect(isRunning(child)).toBe(false);
    expect(events.slice(-2)).toMatchObject([
      { kind: 'error', payload: { code: 'aborted', severity: 'fatal', message: 'the run was aborted: stop' } },
      { kind: 'result', payload: { status: 'aborted' } },
    ]);
  });

  // #18 "Ending at the result": a stop after a completed result only cleans up.
  it('a run stopped after the CLI printed its completed result stays completed: no error, no second result', async () => {
    const run = fake({ FAKE_FIXTURE: fixture('claude', 'plain'), FAKE_HANG: '1' });
    const events: AnyEvent[] = [];
    for await (const event of run) {
      events.push(event);
      if (event.kind === 'result') run.abort('after the result');
    }
    const outcome = await run.done;
    expect(outcome).toMatchObject({ status: 'completed', signal: 'SIGTERM' });
    expect(events.filter((event) => event.kind === 'result')).toEqual([
      expect.objectContaining({ payload: expect.objectContaining({ status: 'completed' }) }),
    ]);
    expect(events.filter((event) => event.kind === 'error')).toEqual([]);
    expect(events[events.length - 1].kind).toBe('result');
    expect(isRunning(readStat(run.pid as number) ?? { pid: run.pid as number, startTime: -1 })).toBe(false);
  });

  it('a CLI that hangs after its completed result is stopped after resultGraceMs, and the run stays completed', async () => {
    const run = fake({ FAKE_FIXTURE: fixture('claude', 'plain'), FAKE_HANG: '1' }, { resultGraceMs: 300 });
    const cli = readStat(run.pid as number) as ProcessRef;
    const { events, outcome } = await collect(run);
    expect(outcome).toMatchObject({ status: 'completed', signal: 'SIGTERM' });
    expect(events[events.length - 1]).toMatchObject({ kind: 'result', payload: { status: 'completed' } });
    expect(events.some((event) => event.kind === 'error')).toBe(false);
    expect(isRunning(cli)).toBe(false);
  });

  // An independent check: a CLI hanging after its result resolved `completed` after the result grace
  // while its setsid child was still alive for up to a few seconds more.
  it('done resolves only once every process of the tree is gone: a CLI that hangs after its result, ignores SIGTERM and has a setsid child', async () => {
    const pidFile = join(dir, 'child.pid');
    const run = fake(
      {
        FAKE_FIXTURE: fixture('claude', 'plain'),
        FAKE_HANG: '1',
        FAKE_IGNORE_TERM: '1',
        FAKE_CHILD: 'setsid',
        FAKE_CHILD_PID_FILE: pidFile,
      },
      { resultGraceMs: 200 },
    );
    const cli = readStat(run.pid as number) as ProcessRef;
    const child = await childOf(pidFile);
    const { events, outcome } = await collect(run);
    expect([isRunning(cli), isRunning(child)]).toEqual([false, false]);
    expect(outcome).toMatchObject({ status: 'completed', signal: 'SIGKILL' });
    expect(events[events.length - 1]).toMatchObject({ kind: 'result', payload: { status: 'completed' } });
  });

  it('breaking out of for await at the result is no abort: the CLI exits by itself and the run is completed', async () => {
    const run = fake({ FAKE_FIXTURE: fixture('claude', 'plain'), FAKE_STDERR_AFTER: 'shutting down\n' });
    for await (const event of run) if (event.kind === 'result') break;
    expect(await run.done).toMatchObject({ status: 'completed', exitCode: 0, signal: null });
  });

  it('breaking out of for await at the result of a CLI that hangs: stopped after the grace, still completed', async () => {
    const run = fake({ FAKE_FIXTURE: fixture('claude', 'plain'), FAKE_HANG: '1' }, { resultGraceMs: 200 });
    const cli = readStat(run.pid as number) as ProcessRef;
    for await (const event of run) if (event.kind === 'result') break;
    expect((await run.done).status).toBe('completed');
    expect(isRunning(cli)).toBe(false);
  });

  it('a non-zero exit after a completed result: an exit_code error, and the run failed', async () => {
    const { events, outcome } = await collect(fake({ FAKE_FIXTURE: fixture('claude', 'plain'), FAKE_EXIT: '2' }));
    expect(outcome).toMatchObject({ status: 'failed', exitCode: 2 });
    expect(events.slice(-2)).toMatchObject([
      { kind: 'result', payload: { status: 'completed' } },
      {
        kind: 'error',
        payload: {
          code: 'exit_code',
          severity: 'error',
          message: 'the CLI exited with code 2 after its result',
          metadata: { exit_code: 2, signal: null },
        },
      },
    ]);
  });

  it('idleTimeoutMs stops a CLI that prints nothing for that long: timed_out, error code idle_timeout', async () => {
    const { events, outcome } = await collect(fake({ FAKE_STDERR: 'started\n', FAKE_HANG: '1' }, { idleTimeoutMs: 300 }));
    expect(outcome.status).toBe('timed_out');
    expect(events.slice(-2)).toMatchObject([
      { kind: 'error', payload: { code: 'idle_timeout', severity: 'fatal', message: 'the CLI printed nothing for 300 ms' } },
      { kind: 'result', payload: { status: 'timed_out', stop_reason: 'idle_timeout' } },
    ]);
  });

  // #18 "Long prompts throw": E2BIG for a 140,000-character prompt, a raw TypeError for a NUL byte.
  it('a long prompt goes on stdin: no E2BIG, the CLI reads all of it, and argv has what stands in for it', async () => {
    const prompt = `${'é'.repeat(70_000)} the end`;
    for (const [provider, stands] of [
      ['claude', []],
      ['codex', ['-']],
      ['gemini', []],
    ] as const) {
      const stdinFile = join(dir, `${provider}.stdin`);
      const argvFile = join(dir, `${provider}.argv`);
      const run = fake(
        { FAKE_STDIN_FILE: stdinFile, FAKE_ARGV_FILE: argvFile, FAKE_FIXTURE: fixture(provider, 'plain') },
        { provider, prompt },
      );
      expect((await collect(run)).outcome.status).toBe('completed');
      expect(readFileSync(stdinFile, 'utf8')).toBe(prompt);
      const argv = JSON.parse(readFileSync(argvFile, 'utf8')) as string[];
      expect(argv.join(' ')).not.toContain('the end');
      expect(argv.slice(argv.length - stands.length)).toEqual(stands);
    }
    // A short prompt stays one argv element, and stdin is closed.
    const stdinFile = join(dir, 'short.stdin');
    await collect(fake({ FAKE_STDIN_FILE: stdinFile, FAKE_FIXTURE: fixture('claude', 'plain') }, { prompt: 'short' }));
    expect(readFileSync(stdinFile, 'utf8')).toBe('');
  });

  it('a NUL byte in the prompt, an argument, the environment or cwd is a clear TypeError before anything runs', () => {
    expect(() => startRun({ provider: 'claude', prompt: 'a\0b', executable: FAKE })).toThrow('prompt must not contain a NUL byte');
    expect(() => startRun({ provider: 'claude', prompt: 'hi', args: ['--x\0'], executable: FAKE })).toThrow(
      'an argument must not contain a NUL byte',
    );
    expect(() => startRun({ provider: 'claude', prompt: 'hi', env: { A: 'b\0' }, executable: FAKE })).toThrow(
      'env A must not contain a NUL byte',
    );
    expect(() => startRun({ provider: 'claude', prompt: 'hi', cwd: '/tmp\0x', executable: FAKE })).toThrow(
      'cwd must not contain a NUL byte',
    );
  });

  it('a spawn that throws (E2BIG: arguments over the system limit) ends the stream with spawn_failed, not a throw', async () => {
    const run = startRun({ provider: 'claude', prompt: 'hi', executable: FAKE, cwd: dir, args: ['x'.repeat(300_000)] });
    const { events, outcome } = await collect(run);
    expect(outcome).toMatchObject({ status: 'failed', exitCode: null });
    expect(events).toMatchObject([
      { kind: 'error', payload: { code: 'spawn_failed', severity: 'fatal', message: expect.stringContaining('E2BIG') } },
      { kind: 'result', payload: { status: 'failed', stop_reason: 'spawn_failed' } },
    ]);
  });

  // #18 "A Codex run started with resume today reports the whole thread's total as its own (2,000 input tokens where the run used 1,000)".
  it("a resumed run's cost leaves out the session's earlier usage, read from Codex's rollout and Claude's transcript", async () => {
    const thread = '01a23bb5-c23e-7771-b264-d70068bf600c';
    const codexHome = join(dir, 'codex-home');
    mkdirSync(join(codexHome, 'sessions', '2026', '12', '03'), { recursive: true });
    const total = {
      input_tokens: 1000,
      cached_input_tokens: 0,
      cache_write_input_tokens: 0,
      output_tokens: 20,
      reasoning_output_tokens: 0,
      total_tokens: 1020,
    };
    writeFileSync(
      join(codexHome, 'sessions', '2026', '12', '03', `rollout-2026-12-03T11-34-00-${thread}.jsonl`),
      `${JSON.stringify({ type: 'session_meta', payload: { id: thread } })}\n${JSON.stringify({ type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: total, last_token_usage: total } } })}\n`,
    );
    // The second process of the captured resume: its turn.completed says 2000 input, the thread's total.
    const second = join(dir, 'codex-second.jsonl');
    writeFileSync(second, `${readFileSync(fixture('codex', 'resume-two-turns'), 'utf8').split('\n').slice(4).join('\n')}`);
    const codex = await collect(fake({ FAKE_FIXTURE: second }, { provider: 'codex', resume: thread, env: { CODEX_HOME: codexHome } }));
    expect(codex.outcome.cost).toEqual({
      input_tokens: 1000,
      output_tokens: 20,
      total_tokens: 1020,
      cache_read_input_tokens: 0,
      cache_write_input_tokens: 0,
      reasoning_output_tokens: 0,
      cost_usd: null,
    });
    // Not resumed, the same stdout is the thread's total.
    expect((await collect(fake({ FAKE_FIXTURE: second }, { provider: 'codex' }))).outcome.cost?.input_tokens).toBe(2000);

    const session = 'aa89407a-e1a2-4168-8e15-617faa8d2e76';
    const claudeDir = join(dir, 'claude-config');
    mkdirSync(join(claudeDir, 'projects', '-tmp-work'), { recursive: true });
    const usage = (n: number) => ({
      'claude-opus-5-5': {
        inputTokens: 120 * n,
        outputTokens: 2 * n,
        cacheReadInputTokens: 64 * n,
        cacheCreationInputTokens: 32 * n,
        costUSD: 0.0006928 * n,
      },
    });
    writeFileSync(
      join(claudeDir, 'projects', '-tmp-work', `${session}.jsonl`),
      `${JSON.stringify({ type: 'cost-state', sessionId: session, totalCostUSD: 0.0006928, modelUsage: usage(1) })}\n`,
    );
    const result = join(dir, 'claude-result.jsonl');
    writeFileSync(
      result,
      `${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'ok', session_id: session, uuid: 'u', total_cost_usd: 0.0013856, usage: { input_tokens: 120, output_tokens: 2 }, modelUsage: usage(2) })}\n`,
    );
    const claude = await collect(fake({ FAKE_FIXTURE: result }, { resume: session, env: { CLAUDE_CONFIG_DIR: claudeDir } }));
    expect(claude.outcome.cost).toMatchObject({
      input_tokens: 216,
      output_tokens: 2,
      cache_read_input_tokens: 64,
      cache_write_input_tokens: 32,
    });
    expect(claude.outcome.cost?.cost_usd).toBeCloseTo(0.0006928, 10);
  });

  // #18 "CLAUDECODE is inherited": Claude Code refuses to start inside another Claude Code session.
  it('CLAUDECODE of the host is not passed on to Claude Code unless the caller sets it; other CLIs keep it', async () => {
    const before = process.env.CLAUDECODE;
    process.env.CLAUDECODE = '1';
    try {
      const envOf = async (options: Partial<RunOptions>): Promise<Record<string, string>> => {
        const file = join(dir, `env-${Math.random()}`);
        await collect(fake({ FAKE_ENV_FILE: file, FAKE_FIXTURE: fixture(options.provider ?? 'claude', 'plain') }, options));
        return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      };
      expect((await envOf({ provider: 'claude' })).CLAUDECODE).toBeUndefined();
      expect((await envOf({ provider: 'claude', env: { CLAUDECODE: '1' } })).CLAUDECODE).toBe('1');
      expect((await envOf({ provider: 'codex' })).CLAUDECODE).toBe('1');
    } finally {
      if (before === undefined) delete process.env.CLAUDECODE;
      else process.env.CLAUDECODE = before;
    }
  });

  it('timeoutMs stops a CLI that never ends: timed_out, with the timeout error and result', async () => {
    const { events, outcome } = await collect(fake({ FAKE_HANG: '1' }, { timeoutMs: 200 }));
    expect(outcome).toMatchObject({ status: 'timed_out', signal: 'SIGTERM' });
    expect(events.slice(-2)).toMatchObject([
      { kind: 'error', payload: { code: 'timeout', severity: 'fatal', message: 'the run timed out after 200 ms' } },
      { kind: 'result', payload: { status: 'timed_out', stop_reason: 'timeout' } },
    ]);
  });

  it('a CLI that exits leaving a process in its group: the process is ended before done resolves', async () => {
    const pidFile = join(dir, 'child.pid');
    const run = fake({ FAKE_FIXTURE: fixture('claude', 'plain'), FAKE_CHILD: 'group', FAKE_CHILD_PID_FILE: pidFile });
    const { outcome } = await collect(run);
    expect(outcome.status).toBe('completed');
    const child = readStat(Number(readFileSync(pidFile, 'utf8')));
    expect(child === null || !isRunning(child)).toBe(true);
  });

  // Qwen Code 0.24.4's launcher, SIGKILLed, left the CLI it had started, which on a SIGTERM printed a cancelled turn.
  it('a CLI killed by SIGKILL from outside: what it left is SIGKILLed at once (no SIGTERM), nothing left after done', async () => {
    const pidFile = join(dir, 'child.pid');
    const termFile = join(dir, 'child.term');
    const noting = { FAKE_CHILD: 'group', FAKE_CHILD_PID_FILE: pidFile, FAKE_CHILD_TERM_FILE: termFile };
    const run = fake({ FAKE_FIXTURE: fixture('claude', 'plain'), ...noting, FAKE_HANG: '1' }, { killGraceMs: 5000 });
    const cli = readStat(run.pid as number) as ProcessRef;
    const child = await childOf(pidFile);
    const collecting = collect(run);
    process.kill(run.pid as number, 'SIGKILL');
    const { outcome } = await collecting;
    expect(outcome.signal).toBe('SIGKILL');
    expect([isRunning(cli), isRunning(child)]).toEqual([false, false]);
    expect(existsSync(termFile)).toBe(false);
  });

  it('exits non-zero with nothing on stdout: failed, with the stderr and a no_result error that keeps its tail', async () => {
    const { events, outcome } = await collect(fake({ FAKE_STDERR: 'loading\nError: bad flag --x\n', FAKE_EXIT: '3' }));
    expect(outcome).toMatchObject({ status: 'failed', exitCode: 3, sessionId: null });
    expect(events.map((event) => event.kind)).toEqual(['stderr', 'stderr', 'error', 'result']);
    expect(events[2]).toMatchObject({
      payload: {
        code: 'no_result',
        severity: 'fatal',
        message: 'the CLI exited with code 3 without a result line: Error: bad flag --x',
        metadata: { stderr_tail: 'loading\nError: bad flag --x' },
      },
    });
  });

  it('a missing cwd is a clear TypeError before anything runs (not "could not start …: ENOENT")', () => {
    expect(() => startRun({ provider: 'claude', prompt: 'hi', executable: FAKE, cwd: join(dir, 'missing') })).toThrow(
      `cwd is not a directory: ${join(dir, 'missing')}`,
    );
  });

  it('an executable that cannot start (its interpreter is missing): a spawn_failed error and a failed result', async () => {
    const script = join(dir, 'broken-cli');
    writeFileSync(script, '#!/nonexistent-interpreter\n', { mode: 0o755 });
    const run = startRun({ provider: 'codex', prompt: 'hi', executable: script });
    expect(run.pid).toBeUndefined();
    const { events, outcome } = await collect(run);
    expect(outcome).toMatchObject({ status: 'failed', exitCode: null, signal: null, sessionId: null });
    expect(events).toMatchObject([
      { kind: 'error', provider: 'codex', sequence: 0, payload: { code: 'spawn_failed', severity: 'fatal' } },
      { kind: 'result', sequence: 1, payload: { status: 'failed', stop_reason: 'spawn_failed' } },
    ]);
  });

  it('a failure while turning output into events stops the CLI: nothing is left running, done resolves', async () => {
    const decoderModule = jest.requireActual('../../src/decode/decoder') as typeof import('../../src/decode/decoder');
    const real = decoderModule.processDecoder;
    const spy = jest.spyOn(decoderModule, 'processDecoder').mockImplementation((profile, keepRaw) => {
      const decoder = real(profile, keepRaw);
      decoder.push = () => {
        throw new Error('a bug in a decoder');
      };
      return decoder;
    });
    try {
      // A CLI that would run forever: without the stop, nothing would end it and the test would time out.
      const run = fake({ FAKE_FIXTURE: fixture('claude', 'plain'), FAKE_HANG: '1' });
      const cli = readStat(run.pid as number) as ProcessRef;
      const { events, outcome } = await collect(run);
      expect(outcome.status).toBe('aborted');
      expect(events.find((event) => event.kind === 'error')?.payload).toMatchObject({
        code: 'aborted',
        message: expect.stringContaining('a bug in a decoder'),
      });
      expect(isRunning(cli)).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  // #18 "keepRaw: 'all' as the runner's default doubles to quadruples event size".
  it("keepRaw is the decoder option, 'none' by default: raw events still hold their line in the payload", async () => {
    const { events } = await collect(fake({ FAKE_FIXTURE: fixture('claude', 'tool-partial') }));
    expect(events.every((event) => event.raw === null)).toBe(true);
    const unmapped = events.filter((event) => event.kind === 'raw');
    expect(unmapped.length).toBeGreaterThan(0);
    for (const event of unmapped) expect(event.kind === 'raw' && typeof event.payload.content).toBe('object');
    const { events: all } = await collect(fake({ FAKE_FIXTURE: fixture('claude', 'tool-partial') }, { keepRaw: 'all' }));
    expect(all.filter((event) => event.kind !== 'stderr').every((event) => event.raw !== null)).toBe(true);
  });

  it('refuses bad options and a missing or non-executable executable before anything runs', () => {
    writeFileSync(join(dir, 'not-executable'), '');
    expect(() => startRun({ provider: 'codex', prompt: 'hi', executable: FAKE, allowedTools: ['x'] })).toThrow(
      'codex has no flag for allowedTools',
    );
    expect(() => startRun({ provider: 'amp' as never, prompt: 'hi' })).toThrow(TypeError);
    expect(() => startRun({ provider: 'claude', prompt: 'hi', executable: FAKE, timeoutMs: -1 })).toThrow('timeoutMs');
    expect(() => startRun({ provider: 'claude', prompt: 'hi', executable: FAKE, permission: 'yolo' as never })).toThrow(
      'permission must be one of',
    );
    expect(() => startRun({ provider: 'gemini', prompt: 'hi', executable: 'not-executable', cwd: dir })).toThrow(ExecutableNotFoundError);
    expect(() => startRun({ provider: 'gemini', prompt: 'hi', executable: './not-executable', cwd: dir })).toThrow(
      './not-executable not found or not executable: install @google/gemini-cli or pass executable',
    );
  });

  it('can be iterated only once', async () => {
    const run = fake({ FAKE_FIXTURE: fixture('claude', 'plain') });
    await collect(run);
    expect(() => run[Symbol.asyncIterator]()).toThrow('only once');
  });
});
