/*
 * Scaling out on a real Redis (redis-server on 127.0.0.1, a free port) with real BullMQ and worker
 * processes (`cli-subprocess-core worker`): runs spread over two workers, a cancel and an approval
 * sent from this process reach the worker holding the run, a SIGKILLed worker's run is failed by the
 * other (or retried when it says so) with no CLI left, and SSE resumes from Last-Event-ID. The CLIs
 * are the replay stand-in of real Gemini ACP captures (test/sessions/replay-agent.js), and the real
 * Claude Code for one approval.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunsHandler, openRunStore, type RunStore } from '../../src';
import { isRunning, readStat, type ProcessRef } from '../../src/runner/process-table';
import { startScriptedCli } from '../scripted/setup';
import { SseClient } from '../../test/nest/sse-client';
import { waitFor } from './harness';
import { startRedis, type RedisServer } from './redis-server';
import { startWorker, type WorkerProcess } from './worker-process';
import { follow, readAll, replayJob } from '../../test/scale/replay-jobs';

jest.setTimeout(90_000);

/**
 * Two runs at once, held 5 s without renewal: a death is noticed within seconds. Not shorter: beside
 * a CPU hog on both cores a worker's renewal (every lock/2) came late with a 2 s hold, and the worker
 * stopped its run as it must when its hold lapses (`lockRenewalFailed`): `aborted`, not `completed`.
 */
const LOCK_SECONDS = 5;
const WORKER = { args: ['--concurrency', '2', '--lock', String(LOCK_SECONDS)] };

let redis: RedisServer;
let store: RunStore;
let dir: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  store = openRunStore({ redis: redis.url, lockMs: LOCK_SECONDS * 1000 });
  workers.push(await startWorker(redis.url, WORKER), await startWorker(redis.url, WORKER));
});
afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGTERM');
  await Promise.all(workers.map((worker) => worker.exited));
  await store.close();
  await redis.stop();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scale-e2e-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The stand-ins started so far: their pid and their parent (the worker that ran them). */
function standIns(): { cli: ProcessRef | null; worker: number }[] {
  const file = join(dir, 'pids');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' ').map(Number))
    .map(([pid, ppid]) => ({ cli: readStat(pid), worker: ppid }));
}

it('runs spread over the two workers; each runs once, its stream complete and in order', async () => {
  const runIds = await Promise.all([1, 2, 3, 4].map(() => store.enqueueRun(replayJob(dir, 'plain', { REPLAY_DELAY_MS: '150' }))));
  const streams = await Promise.all(runIds.map((runId) => readAll(store.readRunEvents(runId))));
  for (const entries of streams) {
    expect(entries.filter((entry) => entry.event.kind === 'run_started')).toHaveLength(1);
    expect(entries.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'completed' } });
    expect(entries.map((entry) => entry.event.sequence)).toEqual(entries.map((_, index) => index));
  }
  expect(new Set(standIns().map((started) => started.worker))).toEqual(new Set(workers.map((worker) => worker.child.pid)));
});

it("a cancel from this process reaches the worker holding the run: aborted, the worker's CLI gone", async () => {
  const runId = await store.enqueueRun(replayJob(dir, 'interrupt-stream', { REPLAY_DELAY_MS: '300' }));
  const { seen, done: reading } = follow(store.readRunEvents(runId));
  await waitFor('streamed text', () => seen.some((entry) => entry.event.kind === 'assistant_delta'));
  const [started] = standIns();
  await store.cancel(runId);
  await reading;
  expect(seen.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'aborted' } });
  expect(started.cli && isRunning(started.cli)).toBe(false);
});

it("an approval answered from this process reaches the worker: the real Claude Code's write is allowed", async () => {
  const cli = await startScriptedCli('claude', [{ shell: 'touch made-by-tool.txt' }, { text: 'I created the file.' }]);
  try {
    const runId = await store.enqueueRun({
      provider: 'claude',
      prompt: 'Create made-by-tool.txt.',
      cwd: cli.cwd,
      executable: cli.executable,
      env: { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1' },
      workspace: 'shared',
    });
    const kinds: string[] = [];
    for await (const { event } of store.readRunEvents(runId)) {
      kinds.push(event.kind);
      if (event.kind === 'approval_requested') await store.approve(runId, event.payload.approval_id ?? '', { decision: 'allow' });
    }
    expect(kinds).toEqual(expect.arrayContaining(['approval_requested', 'approval_resolved', 'tool_result', 'result']));
    expect(existsSync(join(cli.cwd, 'made-by-tool.txt'))).toBe(true);
  } finally {
    await cli.close();
  }
});

it('a worker SIGKILLed mid-run: the other worker fails the run (worker_lost), no CLI of it left; a retried run goes on', async () => {
  const lost = await store.enqueueRun(replayJob(dir, 'interrupt-stream', { REPLAY_DELAY_MS: '400' }));
  const { seen, done: reading } = follow(store.readRunEvents(lost));
  await waitFor('streamed text', () => seen.some((entry) => entry.event.kind === 'assistant_delta'));
  const [started] = standIns();
  const holder = workers.find((worker) => worker.child.pid === started.worker) as WorkerProcess;
  holder.child.kill('SIGKILL');
  await holder.exited;
  workers.splice(workers.indexOf(holder), 1);
  // The dead worker's CLI is stopped by its watchdog; the survivor takes the run again and ends it.
  await reading;
  expect(seen.at(-2)?.event).toMatchObject({ kind: 'error', payload: { code: 'worker_lost', severity: 'fatal' } });
  expect(seen.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'failed', stop_reason: 'worker_lost' } });
  await waitFor("the dead worker's CLI to be gone", () => !(started.cli && isRunning(started.cli)), 10_000);
  expect(standIns()).toHaveLength(1); // not run again
  workers.push(await startWorker(redis.url, WORKER));

  const retried = await store.enqueueRun(replayJob(dir, 'plain', { REPLAY_DELAY_MS: '300' }, { retry: true }));
  const { seen: again, done: rereading } = follow(store.readRunEvents(retried));
  await waitFor('the retried run to start', () => again.some((entry) => entry.event.kind === 'run_started'));
  const holderOfRetry = workers.find((worker) => worker.child.pid === standIns().at(-1)?.worker) as WorkerProcess;
  holderOfRetry.child.kill('SIGKILL');
  await holderOfRetry.exited;
  workers.splice(workers.indexOf(holderOfRetry), 1);
  await rereading;
  expect(again.find((entry) => entry.event.kind === 'error')?.event).toMatchObject({
    payload: { code: 'worker_lost', severity: 'warning', metadata: { attempt: 2 } },
  });
  expect(again.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'completed' } });
  workers.push(await startWorker(redis.url, WORKER));
});

it('SSE from another process: the ids are entry ids, a reconnect with Last-Event-ID gets exactly the rest, leaving does not stop the run', async () => {
  const token = 'scale-test-token-0123456789';
  const handle = createRunsHandler(store, { token });
  const server: Server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    // The default principal's run: the token's.
    const runId = await store.enqueueRun(replayJob(dir, 'thinking', { REPLAY_DELAY_MS: '100' }), { owner: 'default' });
    // Three messages, then the client leaves.
    // ?raw=1: every entry of the stream, the CLI's raw lines too.
    const first = await sse(`${base}/runs/${runId}/events?raw=1`, { authorization: `Bearer ${token}` }, 3);
    const rest = await sse(`${base}/runs/${runId}/events?raw=1`, {
      authorization: `Bearer ${token}`,
      'last-event-id': first.at(-1) as string,
    });
    const stream = await readAll(store.readRunEvents(runId, { follow: false }));
    expect([...first, ...rest]).toEqual(stream.map((entry) => entry.id));
    expect(stream.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'completed' } });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** The ids of an SSE stream's messages: the first `take` (then the client leaves), or all to its end. */
async function sse(url: string, headers: Record<string, string>, take?: number): Promise<string[]> {
  const client = new SseClient(url, headers);
  if (take === undefined) await client.ended;
  else {
    await client.received(take);
    client.disconnect();
  }
  const ids = client.frames.flatMap((frame) => (frame.id === undefined ? [] : [frame.id]));
  return take === undefined ? ids : ids.slice(0, take);
}
