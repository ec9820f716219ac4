import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecutableNotFoundError, SessionTurns, startSession, type AnyEvent, type Session, type SessionOptions } from '../../src';
import { isRunning, readStat } from '../../src/runner/process-table';
import { waitFor } from '../wait-for';

/*
 * The session machinery (turns, approvals, interrupt, close, endings) over a stand-in that replays
 * real wire captures of Gemini CLI's ACP (replay-agent.js). The real CLIs run in e2e/test.
 */

const AGENT = join(__dirname, 'replay-agent.js');
const WIRES = join(__dirname, '..', 'fixtures', 'sessions', 'gemini');

jest.setTimeout(20_000);

let dir: string;
const started: Session[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'session-test-'));
});
afterEach(async () => {
  for (const session of started.splice(0)) await session.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A session with the stand-in replaying `wire` (a Gemini capture), and everything it emits. */
function replay(wire: string, options: Partial<SessionOptions> = {}, env: Record<string, string> = {}, iterate = true) {
  const log = join(dir, 'host.jsonl');
  const session = startSession({
    provider: 'gemini',
    executable: AGENT,
    cwd: dir,
    killGraceMs: 500,
    ...options,
    env: { REPLAY_WIRE: join(WIRES, `wire-${wire}.jsonl`), REPLAY_LOG: log, ...env },
  });
  started.push(session);
  const events: AnyEvent[] = [];
  const drained = iterate
    ? (async () => {
        for await (const event of session) events.push(event);
      })()
    : Promise.resolve();
  /** What the host wrote to the CLI. */
  const written = (): Record<string, unknown>[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  return { session, events, drained, written };
}

const kindsOf = (events: readonly AnyEvent[]) => events.map((event) => event.kind);
const answers = (written: Record<string, unknown>[]) =>
  written.filter((message) => message.method === undefined).map((message) => message.result);

describe('turns', () => {
  it('a turn: run_started once, the answer, its result; send resolves with that result', async () => {
    const { session, events, drained } = replay('plain');
    const result = await session.send('Say hello.');
    expect(result.payload).toMatchObject({ status: 'completed', output: 'Hello from the scripted model.' });
    expect(session.sessionId).toBe(events.find((event) => event.kind === 'run_started')?.provider_session_id);
    const outcome = await session.close();
    await drained;
    expect(outcome).toMatchObject({ status: 'completed', sessionId: session.sessionId });
    expect(kindsOf(events).filter((kind) => kind === 'run_started')).toHaveLength(1);
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index));
    expect(events.filter((event) => event.kind !== 'stderr').at(-1)).toBe(result);
  });

  it('one NUL prompt wedges an ACP session (fixed): send rejects with a TypeError, the next send completes', async () => {
    const { session, written } = replay('plain');
    const refused = session.send('a\u0000b');
    await expect(refused).rejects.toThrow(TypeError);
    await expect(refused).rejects.toThrow('prompt must not contain a NUL byte');
    expect((await session.send('Say hello.')).payload).toMatchObject({ status: 'completed', output: 'Hello from the scripted model.' });
    expect(written().filter((message) => message.method === 'session/prompt')).toHaveLength(1);
  });

  it('two sends at once are played one after the other, in order, in the same process', async () => {
    const { session, written } = replay('two-turns');
    const [first, second] = await Promise.all([session.send('Give the first answer.'), session.send('Give the second answer.')]);
    expect([first.payload.output, second.payload.output]).toEqual(['The first answer.', 'The second answer.']);
    expect(first.sequence as number).toBeLessThan(second.sequence as number);
    const prompts = written().filter((message) => message.method === 'session/prompt');
    expect(prompts.map((message) => (message.params as { prompt: { text: string }[] }).prompt[0].text)).toEqual([
      'Give the first answer.',
      'Give the second answer.',
    ]);
  });

  it('a prompt that is not a string is a TypeError; a send after close is refused', async () => {
    const { session } = replay('plain');
    expect(() => session.send(42 as unknown as string)).toThrow(TypeError);
    await session.close();
    await expect(session.send('Again?')).rejects.toThrow('the session is closed');
  });
});

describe('approvals', () => {
  it('onApproval allows: one approval_requested, one approval_resolved (allow), the allow option answered', async () => {
    const seen: string[] = [];
    const { session, events, written } = replay('allow', {
      onApproval: (event) => {
        seen.push(event.payload.approval_id ?? '');
        return { decision: 'allow' };
      },
    });
    expect((await session.send('Create made-by-tool.txt.')).payload.status).toBe('completed');
    expect(seen).toHaveLength(1);
    expect(events.filter((event) => event.kind === 'approval_resolved').map((event) => event.payload)).toEqual([
      expect.objectContaining({ approval_id: seen[0], decision: 'allow', metadata: { answered_by: 'callback' } }),
    ]);
    expect(answers(written())).toContainEqual({ outcome: { outcome: 'selected', optionId: 'proceed_once' } });
    expect(kindsOf(events).indexOf('tool_use')).toBeLessThan(kindsOf(events).indexOf('approval_requested'));
  });

  it('approve(id) denies with the reject option; a second answer and an unknown id answer false; a bad answer is a TypeError', async () => {
    const { session, events, written } = replay('deny');
    const turn = session.send('Create made-by-tool.txt.');
    const id = await waitFor('a pending approval', () => session.pendingApprovals[0]);
    expect(() => session.approve(id, { decision: 'maybe' } as never)).toThrow(TypeError);
    expect(session.approve(id, { decision: 'deny', reason: 'no writes' })).toBe(true);
    expect(session.approve(id, { decision: 'allow' })).toBe(false);
    expect(session.approve('no-such-id', { decision: 'allow' })).toBe(false);
    await turn;
    expect(answers(written())).toContainEqual({ outcome: { outcome: 'selected', optionId: 'cancel' } });
    expect(events.find((event) => event.kind === 'approval_resolved')?.payload).toMatchObject({
      decision: 'deny',
      reason: 'no writes',
      metadata: { answered_by: 'host' },
    });
    // Gemini never closes a denied call: it gets its result inside the turn.
    expect(events.find((event) => event.kind === 'tool_result')?.payload).toMatchObject({ is_error: true, metadata: { status: 'denied' } });
  });

  it("approval ids are opaque: a fresh random id per run, never the CLI's own; answering with it reaches the CLI", async () => {
    const ids: string[] = [];
    for (const run of [1, 2]) {
      const { session, events, written } = replay('deny');
      const turn = session.send('Create made-by-tool.txt.');
      const id = await waitFor(`run ${run}'s pending approval`, () => session.pendingApprovals[0]);
      expect(events.find((event) => event.kind === 'approval_requested')?.payload.approval_id).toBe(id);
      expect(session.approve(id, { decision: 'deny' })).toBe(true);
      // The stand-in goes on only once the answer arrived, under the CLI's own id (the capture's 0).
      expect((await turn).payload.status).toBe('completed');
      const sent = written().filter((message) => message.method === undefined); // both runs log to one file
      expect(sent).toHaveLength(run);
      expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'cancel' } } });
      expect(events.find((event) => event.kind === 'approval_resolved')?.payload.approval_id).toBe(id);
      await session.close();
      ids.push(id);
    }
    expect(ids[0]).not.toBe(ids[1]);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids).not.toContain('0');
  });

  it("approvals: 'deny' answers every request at once, without the callback", async () => {
    const onApproval = jest.fn();
    const { session, events } = replay('deny', { approvals: 'deny', onApproval });
    await session.send('Create made-by-tool.txt.');
    expect(onApproval).not.toHaveBeenCalled();
    expect(events.find((event) => event.kind === 'approval_resolved')?.payload).toMatchObject({
      decision: 'deny',
      metadata: { answered_by: 'policy' },
    });
  });

  it('approvalPolicy changed while the session runs answers the requests asked from then on; a bad one is a TypeError', async () => {
    const onApproval = jest.fn();
    const { session, events, written } = replay('allow', { onApproval });
    expect(session.approvalPolicy).toBe('ask');
    expect(() => (session.approvalPolicy = 'yolo' as never)).toThrow(
      new TypeError('approvals must be one of ask, allow, deny; got "yolo"'),
    );
    session.approvalPolicy = 'allow';
    await session.send('Create made-by-tool.txt.');
    expect(onApproval).not.toHaveBeenCalled();
    expect(events.find((event) => event.kind === 'approval_resolved')?.payload).toMatchObject({
      decision: 'allow',
      metadata: { answered_by: 'policy' },
    });
    expect(answers(written())).toContainEqual({ outcome: { outcome: 'selected', optionId: 'proceed_once' } });
  });

  it('a callback that throws denies the call', async () => {
    const { session, events } = replay('deny', {
      onApproval: () => {
        throw new Error('boom');
      },
    });
    await session.send('Create made-by-tool.txt.');
    expect(events.find((event) => event.kind === 'approval_resolved')?.payload).toMatchObject({
      decision: 'deny',
      reason: 'the approval callback failed: boom',
      metadata: { answered_by: 'callback' },
    });
  });

  it('a request nobody answers is denied after approvalTimeoutMs', async () => {
    const { session, events, written } = replay('deny', { approvalTimeoutMs: 200 });
    await session.send('Create made-by-tool.txt.');
    expect(events.find((event) => event.kind === 'approval_resolved')?.payload).toMatchObject({
      decision: 'deny',
      reason: 'no answer within 200 ms',
      metadata: { answered_by: 'timeout' },
    });
    expect(answers(written())).toContainEqual({ outcome: { outcome: 'selected', optionId: 'cancel' } });
  });

  it('an interrupt withdraws a pending request: cancelled, after the cancel (the order ACP asks for)', async () => {
    const { session, events, written } = replay('interrupt-approval');
    const turn = session.send('Create made-by-tool.txt.');
    await waitFor('a pending approval', () => session.pendingApprovals[0]);
    await session.interrupt();
    expect((await turn).payload.status).toBe('aborted');
    expect(session.pendingApprovals).toEqual([]);
    expect(events.filter((event) => event.kind === 'approval_resolved').map((event) => event.payload)).toEqual([
      expect.objectContaining({ decision: 'cancelled', metadata: { answered_by: 'withdrawn' } }),
    ]);
    const sent = written().map((message) => message.method ?? 'answer');
    expect(sent.slice(sent.indexOf('session/cancel'))).toEqual(['session/cancel', 'answer']);
    expect(answers(written()).at(-1)).toEqual({ outcome: { outcome: 'cancelled' } });
  });
});

describe('interrupt and endings', () => {
  it('interrupt ends the turn aborted and the session goes on; with no turn running it does nothing', async () => {
    const { session, events } = replay('interrupt-stream');
    await session.interrupt();
    const turn = session.send('Answer slowly.');
    await waitFor('the turn to stream', () => events.some((event) => event.kind === 'assistant_delta'));
    await session.interrupt();
    expect((await turn).payload).toMatchObject({ status: 'aborted', stop_reason: 'cancelled' });
    expect((await session.send('Say something after the interrupt.')).payload.status).toBe('completed');
  });

  it('a CLI that ignores the interrupt is stopped after interruptTimeoutMs: error and aborted result, no process left', async () => {
    const { session, events, drained } = replay('interrupt-stream', { interruptTimeoutMs: 300 }, { REPLAY_MUTE: 'session/cancel' });
    const turn = session.send('Answer slowly.');
    await waitFor('the turn to stream', () => events.some((event) => event.kind === 'assistant_delta'));
    const pid = session.pid as number;
    const root = readStat(pid);
    await session.interrupt();
    expect((await turn).payload).toMatchObject({ status: 'aborted', stop_reason: 'aborted' });
    expect(await session.done).toMatchObject({ status: 'aborted' });
    await drained;
    expect(
      events
        .filter((event) => event.kind !== 'stderr')
        .slice(-2)
        .map((event) => [event.kind, event.kind === 'error' ? event.payload.message : null]),
    ).toEqual([
      ['error', 'the CLI did not end its turn within 300 ms of the interrupt'],
      ['result', null],
    ]);
    expect(root && isRunning(root)).toBe(false);
  });

  it('a CLI that dies mid-turn: the turn ends with a fatal error and a failed result, the session failed, queued prompts refused', async () => {
    const { session, events, drained } = replay('plain', {}, { REPLAY_DIE_ON: 'session/prompt' });
    const turn = session.send('Say hello.');
    const queued = session.send('And then?');
    expect((await turn).payload).toMatchObject({ status: 'failed', stop_reason: 'no_result' });
    await expect(queued).rejects.toThrow('the session ended before this prompt was sent');
    expect(await session.done).toMatchObject({ status: 'failed', signal: 'SIGKILL' });
    await drained;
    expect(events.find((event) => event.kind === 'error')?.payload).toMatchObject({
      code: 'no_result',
      severity: 'fatal',
      message: 'the CLI was killed by SIGKILL during the turn',
    });
  });

  it('close during a turn: the turn ends aborted, the session too', async () => {
    const { session, events } = replay('plain', {}, { REPLAY_MUTE: 'session/prompt' });
    const turn = session.send('Say hello.');
    await waitFor('the session to start', () => events.some((event) => event.kind === 'run_started'));
    const outcome = await session.close();
    expect(outcome.status).toBe('aborted');
    expect((await turn).payload).toMatchObject({ status: 'aborted', stop_reason: 'aborted' });
  });

  it('a CLI that stays after its input ends is stopped after the grace period; the session completed', async () => {
    const { session } = replay('plain', {}, { REPLAY_NO_EOF: '1' });
    await session.send('Say hello.');
    const pid = session.pid as number;
    const root = readStat(pid);
    expect(await session.close()).toMatchObject({ status: 'completed', signal: 'SIGTERM' });
    expect(root && isRunning(root)).toBe(false);
  });

  it('an interrupt asked before the session is ready reaches the CLI once it is', async () => {
    const { session, written } = replay('interrupt-stream');
    const turn = session.send('Answer slowly.');
    await session.interrupt();
    expect((await turn).payload.status).toBe('aborted');
    expect(written().map((message) => message.method)).toEqual(['initialize', 'session/new', 'session/prompt', 'session/cancel']);
  });

  it('leaving the for await closes the session; an aborted signal closes it too', async () => {
    const first = replay('plain', {}, {}, false);
    void first.session.send('Say hello.');
    for await (const event of first.session) if (event.kind === 'result') break;
    expect((await first.session.done).status).toBe('completed');
    const controller = new AbortController();
    const second = replay('plain', { signal: controller.signal });
    const iterator = second.session[Symbol.asyncIterator]; // already iterated by `replay`
    expect(() => iterator.call(second.session)).toThrow('a Session can be iterated only once');
    controller.abort();
    expect((await second.session.done).status).toBe('completed');
  });

  it('a refused handshake ends the session with an error', async () => {
    const wire = join(dir, 'wire-refused.jsonl');
    const line = (from: string, message: unknown) => JSON.stringify({ from, at_ms: 0, line: message });
    writeFileSync(
      wire,
      [
        line('host', { id: 0, method: 'initialize' }),
        line('cli', { jsonrpc: '2.0', id: 0, error: { code: -32000, message: 'Authentication required' } }),
      ].join('\n'),
    );
    const { session, events, drained } = replay('plain', {}, { REPLAY_WIRE: wire, REPLAY_NO_EOF: '1' });
    expect(await session.done).toMatchObject({ status: 'failed' });
    await drained;
    expect(events.find((event) => event.kind === 'error')?.payload).toMatchObject({
      message: 'gemini refused to initialize: Authentication required',
      severity: 'fatal',
    });
  });
});

describe('options', () => {
  it('clear errors before anything starts', () => {
    expect(() => startSession({ provider: 'nope' as never })).toThrow(
      'provider must be one of claude, codex, gemini, opencode, qwen, copilot, pi, kilo, cline; got "nope"',
    );
    expect(() => startSession({ provider: 'gemini', executable: '/nonexistent/gemini' })).toThrow(ExecutableNotFoundError);
    expect(() => startSession({ provider: 'opencode', model: 'x', executable: AGENT })).toThrow(
      "opencode takes no model option in a session: set it in the CLI's own configuration",
    );
    expect(() => startSession({ provider: 'gemini', executable: AGENT, approvals: 'sometimes' as never })).toThrow(
      'approvals must be one of ask, allow, deny; got "sometimes"',
    );
    expect(() => startSession({ provider: 'gemini', executable: AGENT, approvalTimeoutMs: -1 })).toThrow(
      'approvalTimeoutMs must be a non-negative number of milliseconds; got -1',
    );
    expect(() => startSession({ provider: 'gemini', executable: AGENT, cwd: '/nonexistent-dir' })).toThrow(
      'cwd is not a directory: /nonexistent-dir',
    );
    expect(() => startSession({ provider: 'gemini', executable: AGENT, resume: 'abc' })).toThrow('gemini sessions cannot be resumed');
  });

  it("the CLI's command line: the protocol's flags, the model, the caller's args", () => {
    const session = startSession({
      provider: 'claude',
      executable: AGENT,
      model: 'opus',
      args: ['--add-dir', '/tmp'],
      env: { REPLAY_WIRE: join(WIRES, 'wire-plain.jsonl') },
    });
    started.push(session);
    expect(session.argv.slice(1)).toEqual([
      '--print',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--permission-prompt-tool',
      'stdio',
      '--model',
      'opus',
      '--add-dir',
      '/tmp',
    ]);
    const resumed = startSession({
      provider: 'claude',
      executable: AGENT,
      resume: 'abc-123',
      env: { REPLAY_WIRE: join(WIRES, 'wire-plain.jsonl') },
    });
    started.push(resumed);
    expect(resumed.argv.slice(-2)).toEqual(['--resume', 'abc-123']);
  });
});

describe('SessionTurns', () => {
  it('hands each turn its own events, ending with its result; what came before the first turn opens it', async () => {
    const session = startSession({
      provider: 'gemini',
      executable: AGENT,
      cwd: dir,
      killGraceMs: 500,
      env: { REPLAY_WIRE: join(WIRES, 'wire-two-turns.jsonl') },
    });
    started.push(session);
    const turns = new SessionTurns(session);
    const collect = async (events: AsyncIterable<AnyEvent>) => {
      const out: AnyEvent[] = [];
      for await (const event of events) out.push(event);
      return out;
    };
    const [first, second] = await Promise.all([
      collect(turns.send('Give the first answer.')),
      collect(turns.send('Give the second answer.')),
    ]);
    expect(first.filter((event) => event.kind === 'run_started')).toHaveLength(1);
    expect(first.at(-1)).toMatchObject({ kind: 'result', payload: { output: 'The first answer.' } });
    expect(second.some((event) => event.kind === 'run_started')).toBe(false);
    expect(second.at(-1)).toMatchObject({ kind: 'result', payload: { output: 'The second answer.' } });
    await session.close();
    await turns.drained;
    await expect(collect(turns.send('After the end.'))).rejects.toThrow('the session is closed');
  });

  it('a session the CLI ended before the first turn (it refused session/new) gives that turn what it said (its auth error), not a refusal', async () => {
    // refused-session-new.jsonl (not a wire-* capture with goldens): the plain capture's handshake, then session/new answered -32000, as
    // Qwen Code and Copilot CLI answer it without credentials (e2e/test/*.acp.spec.ts "without credentials").
    const session = startSession({
      provider: 'gemini',
      executable: AGENT,
      cwd: dir,
      killGraceMs: 500,
      env: { REPLAY_WIRE: join(WIRES, 'refused-session-new.jsonl') },
    });
    started.push(session);
    const turns = new SessionTurns(session);
    await turns.drained;
    const seen: AnyEvent[] = [];
    for await (const event of turns.send('Say hello.')) seen.push(event);
    expect(seen.filter((event) => event.kind === 'error')).toEqual([
      expect.objectContaining({
        payload: expect.objectContaining({ code: 'auth', message: expect.stringContaining('Authentication required') }),
      }),
    ]);
    // It ended with no turn open: its last word is the error (no turn to give a result to).
    expect(seen.at(-1)?.kind).toBe('error');
    // Given once: the next turn is refused as any turn of a session that is over.
    await expect(
      (async () => {
        for await (const event of turns.send('Again.')) seen.push(event);
      })(),
    ).rejects.toThrow('the session is closed');
  });

  it('one NUL prompt wedges an ACP session (fixed): its turn throws the refusal, the next turn gets its events and result', async () => {
    const session = startSession({
      provider: 'gemini',
      executable: AGENT,
      cwd: dir,
      killGraceMs: 500,
      env: { REPLAY_WIRE: join(WIRES, 'wire-plain.jsonl') },
    });
    started.push(session);
    const turns = new SessionTurns(session);
    const seen: AnyEvent[] = [];
    const collect = async (events: AsyncIterable<AnyEvent>) => {
      for await (const event of events) seen.push(event);
    };
    await expect(collect(turns.send('a\u0000b'))).rejects.toThrow('prompt must not contain a NUL byte');
    expect(seen).toEqual([]);
    await collect(turns.send('Say hello.'));
    expect(seen.filter((event) => event.kind === 'run_started')).toHaveLength(1);
    expect(seen.at(-1)).toMatchObject({ kind: 'result', payload: { status: 'completed', output: 'Hello from the scripted model.' } });
  });
});
