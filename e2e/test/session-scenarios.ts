/*
 * The scenarios every pinned CLI runs through `startSession` (issue #19): each CLI's
 * `<cli>.session.spec.ts` calls `describeSessionScenarios` so that the CLIs run in parallel workers.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startSession, type AnyEvent, type Session, type SessionOptions } from '../../src';
import { isRunning, type ProcessRef } from '../../src/runner/process-table';
import { CLIS } from '../../src/clis';
import { chatCallKind } from '../scripted/openai-chat';
import type { ResponsesTurn } from '../scripted/openai-responses';
import { startScriptedCli, type CliName, type ScriptedCli } from '../scripted/setup';
import { commandLine, kinds, SLOW_TEXT, snapshotTree, stillRunning, waitFor } from './harness';

/** What differs between the CLIs in these scenarios. */
export interface SessionExpectations {
  /** The URL part of the endpoint request that streams the model's answer. */
  readonly streamingPath: string;
  /** What the CLI tells the model of a denied tool call (in the next model request). */
  readonly deniedToldAs: RegExp;
  /** Extra arguments the CLI needs against its scripted endpoint (its auth type, its model). */
  readonly args?: readonly string[];
  /** Whether the CLI asks before `echo sleeping; sleep 300` (Claude Code takes it for read-only). */
  readonly asksForSleep: boolean;
}

/** A session against a scripted endpoint, with everything it emitted. */
interface ScriptedSession {
  readonly cli: ScriptedCli;
  readonly session: Session;
  readonly events: AnyEvent[];
  /** Every process of the session seen so far (pid and start time), polled every 50 ms. */
  readonly seen: Map<number, ProcessRef>;
  /** Resolves when the session's stream has ended. */
  readonly drained: Promise<void>;
}

export function describeSessionScenarios(name: CliName, expected: SessionExpectations): void {
  const open: { cli: ScriptedCli; session: Session; watch: NodeJS.Timeout }[] = [];
  afterEach(async () => {
    for (const { cli, session, watch } of open.splice(0)) {
      await session.close();
      clearInterval(watch);
      await cli.close();
    }
  });

  async function start(script: readonly ResponsesTurn[], options: Partial<SessionOptions> = {}): Promise<ScriptedSession> {
    const cli = await startScriptedCli(name, script);
    const session = startSession({
      provider: name,
      cwd: cli.cwd,
      executable: cli.executable,
      args: expected.args,
      ...options,
      // Claude retries API errors for minutes by default.
      env: { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1', ...options.env },
    });
    const events: AnyEvent[] = [];
    const drained = (async () => {
      for await (const event of session) events.push(event);
    })();
    const seen = new Map<number, ProcessRef>();
    const watch = setInterval(() => {
      for (const ref of snapshotTree(session.pid as number)) seen.set(ref.pid, ref);
    }, 50);
    open.push({ cli, session, watch });
    return { cli, session, events, seen, drained };
  }

  /** Closes the session and checks what every session must hold: nothing left running, one stream. */
  async function closeAndCheck(scripted: ScriptedSession): Promise<void> {
    const outcome = await scripted.session.close();
    await scripted.drained;
    expect(outcome.status).toBe('completed');
    expect(stillRunning([...scripted.seen.values()])).toEqual([]);
    checkSessionStream(scripted.events);
  }

  const requestBodies = (cli: ScriptedCli) =>
    JSON.stringify(cli.server.requests.filter((request) => request.url.includes(expected.streamingPath)).map((request) => request.body));

  it('a plain turn: run_started once, the answer, a completed result', async () => {
    const scripted = await start([{ text: 'Hello from the scripted model.' }]);
    const result = await scripted.session.send('Say hello.');
    expect(result.payload).toMatchObject({ status: 'completed', output: 'Hello from the scripted model.' });
    expect(scripted.session.sessionId).toBeTruthy();
    await closeAndCheck(scripted);
    expect(kinds(scripted.events).filter((kind) => kind === 'run_started')).toHaveLength(1);
    expect(scripted.events.some((event) => event.kind === 'assistant_delta')).toBe(true);
  });

  it('a tool call allowed: the approval is asked and answered once, the command runs', async () => {
    const asked: string[] = [];
    const scripted = await start([{ shell: 'touch made-by-tool.txt' }, { text: 'I created the file.' }], {
      onApproval: (event) => {
        asked.push(event.payload.approval_id ?? '');
        return { decision: 'allow' };
      },
    });
    const result = await scripted.session.send('Create made-by-tool.txt.');
    expect(result.payload.status).toBe('completed');
    expect(existsSync(join(scripted.cli.cwd, 'made-by-tool.txt'))).toBe(true);
    await closeAndCheck(scripted);
    expect(asked).toHaveLength(1);
    const resolved = scripted.events.filter((event) => event.kind === 'approval_resolved');
    expect(resolved.map((event) => event.kind === 'approval_resolved' && [event.payload.approval_id, event.payload.decision])).toEqual([
      [asked[0], 'allow'],
    ]);
    const use = scripted.events.find((event) => event.kind === 'tool_use');
    const toolResult = scripted.events.find((event) => event.kind === 'tool_result');
    expect(use?.kind === 'tool_use' && use.payload.tool_call_id).toBeTruthy();
    expect(toolResult?.kind === 'tool_result' && toolResult.payload).toMatchObject({
      tool_call_id: use?.kind === 'tool_use' ? use.payload.tool_call_id : 'none',
      is_error: false,
    });
  });

  it('a tool call denied by session.approve: no file is written and the model is told', async () => {
    const scripted = await start([
      { shell: 'touch made-by-tool.txt' },
      { text: 'I was not allowed to create the file.' },
      { text: 'It did not work.' },
    ]);
    const turn = scripted.session.send('Create made-by-tool.txt.');
    const id = await waitFor('the approval request', () => scripted.session.pendingApprovals[0]);
    expect(scripted.session.approve(id, { decision: 'deny', reason: 'The host denied this tool call.' })).toBe(true);
    // Answered once: a second answer finds nothing pending.
    expect(scripted.session.approve(id, { decision: 'allow' })).toBe(false);
    const result = await turn;
    expect(result.payload.status).toBe('completed');
    expect(existsSync(join(scripted.cli.cwd, 'made-by-tool.txt'))).toBe(false);
    // Some CLIs end the turn at a deny and tell the model with the next prompt (OpenCode, Copilot).
    expect((await scripted.session.send('Did that work?')).payload.status).toBe('completed');
    expect(requestBodies(scripted.cli)).toMatch(expected.deniedToldAs);
    await closeAndCheck(scripted);
    const toolResult = scripted.events.find((event) => event.kind === 'tool_result');
    expect(toolResult?.kind === 'tool_result' && toolResult.payload.is_error).toBe(true);
  });

  it('a second turn in the same process sees the first', async () => {
    const scripted = await start([{ text: 'The first answer.' }, { text: 'The second answer.' }]);
    const pid = scripted.session.pid;
    expect((await scripted.session.send('Give the first answer.')).payload.output).toBe('The first answer.');
    expect((await scripted.session.send('Give the second answer.')).payload.output).toBe('The second answer.');
    expect(scripted.session.pid).toBe(pid);
    // The agent's calls only: Kilo Code makes a title call after the second turn too.
    const calls = scripted.cli.server.requests.filter(
      (request) => request.url.includes(expected.streamingPath) && chatCallKind(request) !== 'side',
    );
    expect(JSON.stringify(calls.at(-1)?.body)).toContain('The first answer.');
    await closeAndCheck(scripted);
    expect(kinds(scripted.events).filter((kind) => kind === 'result')).toHaveLength(2);
  });

  it('an interrupt during a slow stream ends the turn aborted; the next turn completes', async () => {
    const scripted = await start([SLOW_TEXT, { text: 'After the interrupt.' }]);
    const turn = scripted.session.send('Answer slowly.');
    await waitFor('the first streamed text', () => scripted.events.some((event) => event.kind === 'assistant_delta'));
    await scripted.session.interrupt();
    expect((await turn).payload.status).toBe('aborted');
    expect((await scripted.session.send('Say something after the interrupt.')).payload).toMatchObject({
      status: 'completed',
      output: 'After the interrupt.',
    });
    await closeAndCheck(scripted);
  });

  it('an interrupt during a running tool command: the command is gone, the next turn completes', async () => {
    const scripted = await start([{ shell: 'echo sleeping; sleep 300' }, { text: 'x' }, { text: 'After the interrupt.' }], {
      approvals: 'allow',
    });
    const turn = scripted.session.send('Sleep for five minutes.');
    const sleeper = await waitFor('the sleep command', () =>
      snapshotTree(scripted.session.pid as number).find((ref) => /^(\S*\/)?sleep 300$/.test(commandLine(ref.pid))),
    );
    await scripted.session.interrupt();
    expect((await turn).payload.status).toBe('aborted');
    await waitFor('the sleep command to be gone', () => !isRunning(sleeper), 10_000);
    expect((await scripted.session.send('Say something after the interrupt.')).payload.status).toBe('completed');
    await closeAndCheck(scripted);
    const approvals = scripted.events.filter((event) => event.kind === 'approval_requested').length;
    expect(approvals).toBe(expected.asksForSleep ? 1 : 0);
    expect(scripted.events.filter((event) => event.kind === 'approval_resolved')).toHaveLength(approvals);
  });

  it('an approval nobody answers is denied after approvalTimeoutMs: no file', async () => {
    const scripted = await start([{ shell: 'touch made-by-tool.txt' }, { text: 'I was not allowed to create the file.' }], {
      approvalTimeoutMs: 1500,
    });
    const result = await scripted.session.send('Create made-by-tool.txt.');
    expect(['completed', 'aborted']).toContain(result.payload.status);
    expect(existsSync(join(scripted.cli.cwd, 'made-by-tool.txt'))).toBe(false);
    await closeAndCheck(scripted);
    const resolved = scripted.events.filter((event) => event.kind === 'approval_resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]).toMatchObject({ payload: { decision: 'deny', metadata: { answered_by: 'timeout' } } });
  });

  if (CLIS[name].session.resume === null) {
    it('resume: refused (a TypeError), as clis.ts says why', () => {
      expect(() => startSession({ provider: name, resume: 'any-session' })).toThrow(new TypeError(`${name} sessions cannot be resumed`));
    });
  } else {
    it('resume: a new process continues the closed session, with the same session id', async () => {
      const scripted = await start([{ text: 'The first answer.' }, { text: 'The second answer.' }]);
      await scripted.session.send('Give the first answer.');
      const first = scripted.session.sessionId;
      await closeAndCheck(scripted);
      const resumed = startSession({
        provider: name,
        cwd: scripted.cli.cwd,
        executable: scripted.cli.executable,
        args: expected.args,
        resume: first ?? undefined,
        env: { ...scripted.cli.env, CLAUDE_CODE_MAX_RETRIES: '1' },
      });
      const events: AnyEvent[] = [];
      const drained = (async () => {
        for await (const event of resumed) events.push(event);
      })();
      expect((await resumed.send('Give the second answer.')).payload.output).toBe('The second answer.');
      expect(resumed.sessionId).toBe(first);
      await resumed.close();
      await drained;
      // The history a CLI replays while loading (ACP `session/load`) is not emitted again: kept only as raw lines.
      expect(JSON.stringify(events.filter((event) => event.kind !== 'raw'))).not.toContain('The first answer.');
      expect(
        JSON.stringify(
          scripted.cli.server.requests
            .filter((request) => request.url.includes(expected.streamingPath) && chatCallKind(request) !== 'side')
            .at(-1)?.body,
        ),
      ).toContain('The first answer.');
      checkSessionStream(events);
    });
  }

  it('the CLI killed mid-turn: the turn ends with an error and a failed result, the session failed, nothing left', async () => {
    const scripted = await start([SLOW_TEXT]);
    const turn = scripted.session.send('Answer slowly.');
    await waitFor('the streaming request', () =>
      scripted.cli.server.requests.some((request) => request.url.includes(expected.streamingPath)),
    );
    await waitFor('the whole tree seen', () => scripted.seen.size > 0);
    process.kill(scripted.session.pid as number, 'SIGKILL');
    const result = await turn;
    expect(result.payload.status).toBe('failed');
    const outcome = await scripted.session.done;
    await scripted.drained;
    expect(outcome.status).toBe('failed');
    const error = scripted.events.at(-2);
    expect(error).toMatchObject({ kind: 'error', payload: { code: 'no_result', severity: 'fatal' } });
    expect(stillRunning([...scripted.seen.values()])).toEqual([]);
    await expect(scripted.session.send('Anyone there?')).rejects.toThrow('the session is closed');
  });
}

/**
 * One sequence (0, 1, 2… in order), timestamps that never go backwards, `run_started` once, every
 * turn closed by one result, every approval resolved exactly once.
 */
export function checkSessionStream(events: readonly AnyEvent[]): void {
  expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index));
  const times = events.map((event) => event.timestamp.getTime());
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(kinds(events).filter((kind) => kind === 'run_started')).toHaveLength(1);
  const requested = events.flatMap((event) => (event.kind === 'approval_requested' ? [event.payload.approval_id] : []));
  const resolved = events.flatMap((event) => (event.kind === 'approval_resolved' ? [event.payload.approval_id] : []));
  expect([...resolved].sort()).toEqual([...requested].sort());
  // …and each after its request.
  for (const id of requested) {
    const asked = events.findIndex((event) => event.kind === 'approval_requested' && event.payload.approval_id === id);
    const answered = events.findIndex((event) => event.kind === 'approval_resolved' && event.payload.approval_id === id);
    expect(answered).toBeGreaterThan(asked);
  }
}
