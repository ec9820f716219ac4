import { join } from 'node:path';
import { startSession, type AnyEvent, type Session, type SessionOptions, type SessionProvider } from '../../src';
import { isRunning, readStat } from '../../src/runner/process-table';

/*
 * A session's limits (`timeoutMs`, `maxTokens`, `maxCostUsd`) over the stand-in that replays real
 * wire captures (replay-agent.js): past a limit the CLI is stopped, no process is left, and the
 * session ends with the limit's error.
 */

const AGENT = join(__dirname, 'replay-agent.js');
const wire = (cli: SessionProvider, name: string) => join(__dirname, '..', 'fixtures', 'sessions', cli, `wire-${name}.jsonl`);

jest.setTimeout(20_000);

const started: Session[] = [];
afterEach(async () => {
  for (const session of started.splice(0)) await session.close();
});

/** A session of `cli` replaying its capture `name`, and everything it emits. */
function replay(cli: SessionProvider, name: string, options: Partial<SessionOptions>, env: Record<string, string> = {}) {
  const session = startSession({
    provider: cli,
    executable: AGENT,
    killGraceMs: 500,
    approvals: 'allow',
    ...options,
    env: { REPLAY_WIRE: wire(cli, name), ...env },
  });
  started.push(session);
  const root = readStat(session.pid as number);
  const events: AnyEvent[] = [];
  const drained = (async () => {
    for await (const event of session) events.push(event);
  })();
  /** The session's last error and result (`error` null when it ended without one), once every process is gone. */
  const ending = async () => {
    const outcome = await session.done;
    await drained;
    expect(root && isRunning(root)).toBe(false);
    const error = events.filter((event) => event.kind === 'error').at(-1);
    return {
      outcome,
      error: error?.kind === 'error' ? error.payload : null,
      results: events.flatMap((event) => (event.kind === 'result' ? [event.payload] : [])),
    };
  };
  return { session, ending };
}

it('timeoutMs: past it the CLI is stopped, the turn ends timed_out with error timeout; no process left', async () => {
  const { session, ending } = replay('gemini', 'plain', { timeoutMs: 300 }, { REPLAY_MUTE: 'session/prompt' });
  const turn = session.send('Say hello.');
  expect((await turn).payload).toMatchObject({ status: 'timed_out', stop_reason: 'timeout' });
  const { outcome, error } = await ending();
  expect(outcome.status).toBe('timed_out');
  expect(error).toMatchObject({ code: 'timeout', severity: 'fatal', message: 'the session timed out after 300 ms' });
  await expect(session.send('Again?')).rejects.toThrow('the session is closed');
});

it('maxTokens: usage past it mid-turn stops the CLI: budget_exceeded, a failed result, later prompts refused', async () => {
  // Codex reports the thread's tokens (1020 after the first answer) before it ends the turn; spaced out, the stop comes first.
  const { session, ending } = replay('codex', 'two-turns', { maxTokens: 1000 }, { REPLAY_DELAY_MS: '100' });
  const first = session.send('Give the first answer.');
  const second = session.send('Give the second answer.');
  expect((await first).payload).toMatchObject({ status: 'failed', stop_reason: 'budget_exceeded' });
  await expect(second).rejects.toThrow('the session ended before this prompt was sent');
  const { outcome, error, results } = await ending();
  expect(outcome).toMatchObject({ status: 'failed', cost: { total_tokens: 1020 } });
  expect(error).toMatchObject({
    code: 'budget_exceeded',
    severity: 'fatal',
    message: "the session's usage reached 1020 tokens, over its limit of 1000: the CLI was stopped",
  });
  expect(results.map((result) => result.status)).toEqual(['failed']);
});

it('maxCostUsd: a price past it stops the CLI (Claude reports its price with its result): budget_exceeded, the session failed', async () => {
  const { session, ending } = replay('claude', 'two-turns', { maxCostUsd: 0.001 });
  expect((await session.send('Give the first answer.')).payload.status).toBe('completed');
  // The second turn's result brings the running total to $0.0015: that turn is done, the session is not.
  expect((await session.send('Give the second answer.')).payload.status).toBe('completed');
  await expect(session.send('A third?')).rejects.toThrow('the session is closed');
  const { outcome, error } = await ending();
  expect(outcome).toMatchObject({ status: 'failed', cost: { cost_usd: 0.0015056 } });
  expect(error).toMatchObject({
    code: 'budget_exceeded',
    message: "the session's usage reached $0.0015056, over its limit of $0.001: the CLI was stopped",
  });
});

it('maxCostUsd does not stop a CLI that reports no price (Gemini CLI): maxTokens is its limit', async () => {
  const { session, ending } = replay('gemini', 'two-turns', { maxCostUsd: 0 });
  expect((await session.send('Give the first answer.')).payload.status).toBe('completed');
  expect((await session.send('Give the second answer.')).payload.status).toBe('completed');
  await session.close();
  const { outcome, error } = await ending();
  expect(outcome).toMatchObject({ status: 'completed', cost: { total_tokens: 250, cost_usd: null } });
  expect(error).toBeNull();
});

it('the limits are checked before anything starts', () => {
  const start = (options: Partial<SessionOptions>) => () => startSession({ provider: 'gemini', executable: AGENT, ...options });
  expect(start({ timeoutMs: -1 })).toThrow('timeoutMs must be a non-negative number of milliseconds; got -1');
  expect(start({ maxTokens: Number.NaN })).toThrow('maxTokens must be a non-negative number; got NaN');
  expect(start({ maxCostUsd: Infinity })).toThrow('maxCostUsd must be a non-negative number; got Infinity');
  expect(start({ maxCostUsd: '1' as never })).toThrow('maxCostUsd must be a non-negative number; got 1');
});
