/*
 * Conversations on the queue with the real Claude Code and Codex: on a real Redis with two worker
 * processes (`cli-subprocess-core worker --idle-seconds 3`), one conversation per CLI, sent from this
 * process (the web side): turns that need what an earlier one said, a tool call approved from here,
 * an interrupt, the CLI closed when idle and resumed at the next message, the worker holding it
 * SIGKILLed between turns and the next message answered by the other worker; every turn played by
 * the worker holding the CLI while it lives. Then the same conversation on the in-process store kept
 * on disk, the store and its worker closed and opened again between turns, as `serve` restarted.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorker, openRunStore, type AnyEvent, type SessionJob, type SessionStore } from '../../src';
import { isRunning, type ProcStat } from '../../src/runner/process-table';
import { chatCallKind } from '../scripted/openai-chat';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';
import type { ResponsesTurn } from '../scripted/openai-responses';
import { cliProcesses as processesOf, SLOW_TEXT, waitFor } from './harness';
import { startRedis, type RedisServer } from './redis-server';
import { startWorker, type WorkerProcess } from './worker-process';
import { readAll } from '../../test/scale/replay-jobs';
import { eventually } from '../../test/wait-for';

jest.setTimeout(240_000);

const IDLE_SECONDS = 3;
/**
 * How long a worker's hold (its key, its jobs' locks) lasts without renewal: a SIGKILLed worker is
 * noticed within seconds. Not shorter: beside a CPU hog on both cores a live worker's renewal came
 * late with 2 s, another worker took it for dead and its turn failed `worker_lost`.
 */
const LOCK_SECONDS = 5;

/** What differs between the CLIs here: the URL part of the request that streams the model's answer. */
const CLIS = [
  ['claude', '/v1/messages'],
  ['codex', '/responses'],
] as const;

/** The model's side of the whole conversation, one entry per model call. */
const SCRIPT: readonly ResponsesTurn[] = [
  { text: 'I will remember PELICAN.' },
  { shell: 'touch made-by-tool.txt' },
  { text: 'Created made-by-tool.txt.' },
  SLOW_TEXT,
  { text: 'The word was PELICAN.' },
  { text: 'Still PELICAN, after a rest.' },
  { text: 'PELICAN, from another worker.' },
];

let redis: RedisServer;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGTERM');
  await Promise.all(workers.map((worker) => worker.exited));
  await redis.stop();
});

/** A session's events so far. */
async function eventsOf(store: SessionStore, sessionId: string): Promise<AnyEvent[]> {
  return (await readAll(store.readRunEvents(sessionId, { follow: false }))).map((entry) => entry.event);
}

const results = (events: AnyEvent[]) => events.filter((event) => event.kind === 'result');

/** Sends `text` and waits for its turn's result (the `turn`-th of the session). */
async function turn(store: SessionStore, sessionId: string, text: string): Promise<AnyEvent> {
  const sent = await store.sendMessage(sessionId, text);
  if (!('turn' in sent)) throw new Error(`message refused: ${sent.refused}`);
  let result: AnyEvent | undefined;
  let events: AnyEvent[] = [];
  await eventually(
    `the result of turn ${sent.turn}`,
    async () => (result = results((events = await eventsOf(store, sessionId)))[sent.turn - 1]) !== undefined,
    150_000,
  );
  // A turn that did not complete says why in the failure: its errors.
  const errors = events.slice(events.indexOf(results(events)[sent.turn - 2]) + 1).filter((event) => event.kind === 'error');
  if (result?.kind === 'result' && result.payload.status !== 'aborted' && result.payload.status !== 'completed')
    expect({ status: result.payload.status, errors: errors.map((event) => event.payload) }).toEqual({ status: 'completed', errors: [] });
  return result as AnyEvent;
}

/** The model calls of the agent so far (not side calls: titles, summaries). */
function modelCalls(cli: ScriptedCli, streamingPath: string): string[] {
  return cli.server.requests
    .filter((request) => request.url.includes(streamingPath) && chatCallKind(request) !== 'side')
    .map((request) => JSON.stringify(request.body));
}

/** The CLI processes started for `cli` that run now, by the worker processes (or by this one: `parents`). */
function cliProcesses(cli: ScriptedCli, parents: readonly number[] = workers.map((worker) => worker.pid)): ProcStat[] {
  return processesOf(cli, parents);
}

function jobOf(cli: ScriptedCli): SessionJob {
  // Claude retries API errors for minutes by default. No workspace named: a temp directory of its own (cwd is no repository).
  return {
    provider: cli.name as SessionJob['provider'],
    cwd: cli.cwd,
    executable: cli.executable,
    env: { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1' },
  };
}

describe.each(CLIS)('a conversation with the real %s on Redis and two workers', (name, streamingPath) => {
  let cli: ScriptedCli;
  let store: SessionStore;
  beforeAll(async () => {
    while (workers.length < 2)
      workers.push(
        await startWorker(redis.url, {
          args: ['--concurrency', '2', '--lock', String(LOCK_SECONDS), '--idle-seconds', String(IDLE_SECONDS)],
        }),
      );
    cli = await startScriptedCli(name, SCRIPT);
    store = openRunStore({ redis: redis.url, lockMs: LOCK_SECONDS * 1000 });
  });
  afterAll(async () => {
    await store.close();
    await cli.close();
  });

  it('remembers across turns, idling and a worker lost; approvals and interrupts from the web side', async () => {
    const sessionId = await store.openSession(jobOf(cli), { owner: `ann-${name}` });
    expect((await turn(store, sessionId, 'Remember the word PELICAN.')).payload).toMatchObject({ status: 'completed' });
    const [first] = cliProcesses(cli);
    expect(first).toBeDefined();

    // A tool call asked about, answered from this process: the file is made in the session's workspace.
    const approving = store.sendMessage(sessionId, 'Create made-by-tool.txt.');
    let approvalId: string | null | undefined;
    await eventually(
      'the approval request',
      async () => {
        const asked = (await eventsOf(store, sessionId)).find((event) => event.kind === 'approval_requested');
        return typeof (approvalId = asked?.kind === 'approval_requested' ? asked.payload.approval_id : undefined) === 'string';
      },
      150_000,
    );
    await store.approve(sessionId, approvalId as string, { decision: 'allow' });
    await approving;
    await eventually('the second result', async () => results(await eventsOf(store, sessionId)).length === 2, 150_000);
    expect(existsSync(join(tmpdir(), `cli-subprocess-core-${sessionId}`, 'made-by-tool.txt'))).toBe(true);

    // An interrupt from this process ends the turn; the session goes on.
    const interrupted = turn(store, sessionId, 'Answer slowly.');
    await eventually(
      'the slow answer streaming',
      async () => (await eventsOf(store, sessionId)).slice(-3).some((event) => event.kind === 'assistant_delta'),
      150_000,
    );
    await store.interrupt(sessionId);
    expect((await interrupted).payload).toMatchObject({ status: 'aborted' });

    // The fourth turn needs what the first said; one CLI played all four, on one worker.
    expect((await turn(store, sessionId, 'What word did I ask you to remember?')).payload).toMatchObject({
      status: 'completed',
      output: 'The word was PELICAN.',
    });
    expect(modelCalls(cli, streamingPath).at(-1)).toContain('Remember the word PELICAN.');
    expect(cliProcesses(cli).map((stat) => stat.pid)).toEqual([first.pid]);

    // Idle past --idle-seconds: its CLI is closed; the next message resumes it, memory intact.
    await waitFor('the idle CLI closed', () => !isRunning(first), 60_000);
    expect((await store.findRun(sessionId))?.status).toBe('idle');
    expect((await turn(store, sessionId, 'Say the word again.')).payload).toMatchObject({ status: 'completed' });
    expect(modelCalls(cli, streamingPath).at(-1)).toContain('Remember the word PELICAN.');

    // The worker holding it SIGKILLed between turns: the other worker answers, memory intact.
    const [resumed] = cliProcesses(cli);
    const holder = workers.find((worker) => worker.pid === resumed.ppid) as WorkerProcess;
    holder.child.kill('SIGKILL');
    await holder.exited;
    workers.splice(workers.indexOf(holder), 1);
    await waitFor("the dead worker's CLI gone", () => !isRunning(resumed), 20_000);
    expect((await turn(store, sessionId, 'And once more?')).payload).toMatchObject({ status: 'completed' });
    expect(modelCalls(cli, streamingPath).at(-1)).toContain('Remember the word PELICAN.');
    const [other] = cliProcesses(cli);
    expect(other.ppid).toBe(workers[0].pid);

    // Closed: its CLI goes, its stream ends; the record keeps the turns and their usage.
    expect(await store.closeSession(sessionId)).toBe(true);
    await waitFor('the CLI closed', () => !isRunning(other), 30_000);
    const events = await readAll(store.readRunEvents(sessionId));
    expect(results(events.map((entry) => entry.event)).map((event) => event.kind === 'result' && event.payload.status)).toEqual([
      'completed',
      'completed',
      'aborted',
      'completed',
      'completed',
      'completed',
    ]);
    expect(await store.findRun(sessionId)).toMatchObject({
      kind: 'session',
      status: 'closed',
      turns: 6,
      title: 'Remember the word PELICAN.',
    });
    expect((await store.listRuns(`ann-${name}`, { kind: 'session' })).map((record) => record.id)).toEqual([sessionId]);
    expect(await store.listRuns(`bob-${name}`, { kind: 'session' })).toEqual([]);
    expect(await store.listRuns(`ann-${name}`)).toEqual([]);
  });
});

describe.each(CLIS)('the same conversation with the real %s on the in-process store, reopened between turns', (name, streamingPath) => {
  let cli: ScriptedCli;
  let dataDir: string;
  beforeAll(async () => {
    cli = await startScriptedCli(name, [
      { text: 'I will remember PELICAN.' },
      { text: 'The word was PELICAN.' },
      { text: 'Still PELICAN.' },
    ]);
    dataDir = mkdtempSync(join(tmpdir(), 'sessions-data-'));
  });
  afterAll(async () => {
    await cli.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The store and its worker, as `serve --data-dir` holds them. */
  function serve(): { store: SessionStore; stop(): Promise<void> } {
    const store = openRunStore({ dataDir });
    const worker = createWorker(store, { idleSeconds: IDLE_SECONDS });
    return {
      store,
      stop: async () => {
        await worker.close();
        await store.close();
      },
    };
  }

  it('remembers the first turn after a restart', async () => {
    let server = serve();
    const sessionId = await server.store.openSession(jobOf(cli));
    expect((await turn(server.store, sessionId, 'Remember the word PELICAN.')).payload).toMatchObject({ status: 'completed' });
    expect((await turn(server.store, sessionId, 'What word?')).payload).toMatchObject({ status: 'completed' });
    expect(cliProcesses(cli, [process.pid])).toHaveLength(1);
    await server.stop();
    await waitFor('the CLI gone with its server', () => cliProcesses(cli, [process.pid]).length === 0, 20_000);

    server = serve();
    try {
      expect(await server.store.findRun(sessionId)).toMatchObject({ status: 'idle', turns: 2 });
      expect((await turn(server.store, sessionId, 'And after the restart?')).payload).toMatchObject({
        status: 'completed',
        output: 'Still PELICAN.',
      });
      expect(modelCalls(cli, streamingPath).at(-1)).toContain('Remember the word PELICAN.');
      expect(await server.store.closeSession(sessionId)).toBe(true);
    } finally {
      await server.stop();
    }
    // Stopped right after the close: no CLI is left (one was, still writing its home, when this said nothing).
    expect(cliProcesses(cli, [process.pid])).toEqual([]);
  });
});
