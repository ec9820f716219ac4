/*
 * The load rig shared by the scale bench (bench/scale.ts: what it measures) and the load spec
 * (e2e/test/scale-load.spec.ts: what must hold under load and faults). Everything runs on this
 * machine, on 127.0.0.1: a redis-server on a free port (in memory), worker processes (the `worker`
 * command, from the sources), and this process as the web process (`createRunsHandler` over the same
 * store) and as the SSE clients, one per run. The CLIs are the replay stand-in
 * (test/sessions/replay-agent.js) of a capture built from the real Gemini ACP capture
 * wire-allow.jsonl (its handshake, its permission request, its tool call and its usage), lengthened
 * to the events a run asks for and replayed at full speed.
 *
 * Processes are told apart by an environment variable given to the workers (and so to everything
 * they start): what the rig started is found in the process table by it (src/runner/process-table.ts),
 * and stopped by pid when the rig closes, as are redis-server and the workers.
 */
import 'reflect-metadata';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Event, createRunsHandler, openRunStore, type RunJob, type RunStore } from '../../src';
import { isRunning, listProcesses, type ProcStat } from '../../src/runner/process-table';
import { SseClient } from '../../test/nest/sse-client';
import { startRedis, type RedisServer } from './redis-server';
import { startWorker, type WorkerProcess } from './worker-process';

export type { WorkerProcess } from './worker-process';

const ROOT = join(__dirname, '..', '..');
const AGENT = join(ROOT, 'test', 'sessions', 'replay-agent.js');
const CAPTURE = join(ROOT, 'test', 'fixtures', 'sessions', 'gemini', 'wire-allow.jsonl');
const TAG_ENV = 'CSC_LOAD_TAG';
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---- the capture -------------------------------------------------------------------------------

type WireEntry = { from: 'host' | 'cli' | 'stderr'; at_ms: number; line: unknown };

/** Events per run besides the text chunks: two raw lines, run_started, two assistant messages, tool_use, approval_requested and approval_resolved, tool_result, cost_update, result. */
export const EVENTS_BESIDES_CHUNKS = 11;

/**
 * A capture of Gemini CLI's ACP exchange with `chunks` text chunks around its tool call: the real
 * capture's handshake (initialize, session/new, the commands update), the prompt, half the chunks,
 * its permission request and the host's answer, the tool's completion, the other half, and the
 * prompt's answer with its usage. The host writes four lines, as a session with `approvals: 'allow'`
 * does.
 */
export function writeCapture(path: string, chunks: number): void {
  const real = readFileSync(CAPTURE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as WireEntry);
  const [init, initAnswer, newSession, newAnswer, commands, prompt, permission, allow, toolDone] = real;
  const answer = real.find(
    (entry) =>
      entry.from === 'cli' && (entry.line as { id?: number; result?: unknown }).id === 2 && (entry.line as { result?: unknown }).result,
  );
  if (
    [
      init.from,
      initAnswer.from,
      newSession.from,
      newAnswer.from,
      commands.from,
      prompt.from,
      permission.from,
      allow.from,
      toolDone.from,
    ].join() !== 'host,cli,host,cli,cli,host,cli,host,cli' ||
    !answer
  ) {
    throw new Error(`${CAPTURE} is not the exchange this rig builds on`);
  }
  const sessionId = (newAnswer.line as { result: { sessionId: string } }).result.sessionId;
  const prose = 'Scaling out means more than one process: a queue of runs, a stream of events per run, and clients that come and go. ';
  const chunk = (i: number, at: number): WireEntry => {
    const from = (i * 7) % prose.length;
    const text = `${prose}${prose}`.slice(from, from + 7);
    return {
      from: 'cli',
      at_ms: at,
      line: {
        jsonrpc: '2.0',
        method: 'session/update',
        params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
      },
    };
  };
  const before = Math.floor(chunks / 2);
  const out: WireEntry[] = [init, initAnswer, newSession, newAnswer, commands, prompt];
  for (let i = 0; i < before; i++) out.push(chunk(i, prompt.at_ms + 1));
  out.push(permission, allow, toolDone);
  for (let i = before; i < chunks; i++) out.push(chunk(i, toolDone.at_ms + 1));
  out.push(answer);
  writeFileSync(path, `${out.map((entry) => JSON.stringify(entry)).join('\n')}\n`);
}

// ---- the rig -------------------------------------------------------------------------------------

/** Claude Code's two-turn session, captured (its second turn is played again for the later ones). */
const CONVERSATION = join(ROOT, 'test', 'fixtures', 'sessions', 'claude', 'wire-two-turns.jsonl');

/**
 * A capture of a Claude Code session of `turns` turns, for the replay stand-in: the real two-turn
 * capture (the handshake, then each user message and the CLI's lines up to its result), its second
 * turn played again for each turn after it (a Claude turn carries no request id to renumber).
 */
export function writeConversationWire(path: string, turns: number): void {
  const lines = readFileSync(CONVERSATION, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const users = lines.flatMap((line, index) => {
    const entry = JSON.parse(line) as WireEntry;
    return entry.from === 'host' && (entry.line as { type?: string }).type === 'user' ? [index] : [];
  });
  const secondTurn = lines.slice(users[1]);
  const out = [...lines];
  for (let turn = 3; turn <= turns; turn++) out.push(...secondTurn);
  writeFileSync(path, `${out.join('\n')}\n`);
}

export interface RigOptions {
  workers: number;
  concurrency: number;
  /** A worker's hold on a run, ms: a dead worker's runs are noticed about this long after. */
  lockMs: number;
  /** Preloaded into each worker (`node -r`), when given: a monitor of its own. */
  preload?: string;
}

/** A process the workers started (found by the rig's tag in its environment), still there. */
export interface Tagged extends ProcStat {
  readonly command: string;
}

export interface Rig {
  readonly dir: string;
  readonly redis: RedisServer;
  /** A plain connection to the rig's Redis, for reading what the store holds. */
  readonly client: Redis;
  readonly store: RunStore;
  readonly base: string;
  readonly workers: WorkerProcess[];
  /** SSE requests whose handler has not finished (it should, once the run ended or the client left). */
  readonly pendingSse: Map<number, { runId: string; response: ServerResponse }>;
  readonly webErrors: string[];
  /** The job of the next runs: they replay `wire`, the stand-in writes each CLI's `pid ppid` to `pids`. */
  use(wire: string, pids: string, env?: Record<string, string>): void;
  /** The processes the workers started that are still there (the workers themselves left out). */
  tagged(): Tagged[];
  /** SIGTERM to each worker (SIGKILL after `graceMs`); answers, per worker, whether it exited of the SIGTERM. */
  stopWorkers(graceMs: number): Promise<boolean[]>;
  /** Stops everything the rig started, by pid, and removes its directory. */
  close(): Promise<void>;
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
const exitOf = (child: ChildProcess): Promise<void> =>
  alive(child) ? new Promise((resolve) => child.once('exit', () => resolve())) : Promise.resolve();

/** SIGTERM, then SIGKILL after `graceMs`; answers whether it exited of the SIGTERM. */
export async function stop(child: ChildProcess, graceMs: number): Promise<boolean> {
  if (!alive(child)) return true;
  const exited = exitOf(child);
  child.kill('SIGTERM');
  const inTime = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!inTime) {
    child.kill('SIGKILL');
    await exited;
  }
  return inTime;
}

/** Whether `stat` is a live process, not a zombie. */
export const running = (stat: ProcStat | null): stat is ProcStat => stat !== null && stat.state !== 'Z' && stat.state !== 'X';

/** A worker of the rig: its options, and the tag that finds what it starts. */
function startRigWorker(url: string, dir: string, options: RigOptions, tag: string): Promise<WorkerProcess> {
  return startWorker(url, {
    args: [
      '--concurrency',
      String(options.concurrency),
      '--lock',
      String(options.lockMs / 1000),
      '--workspace',
      'shared',
      '--pass-env',
      TAG_ENV,
    ],
    preload: options.preload,
    cwd: dir,
    env: { [TAG_ENV]: tag },
  });
}

/** Starts redis-server, the workers and the web process; `rig.close()` stops them whatever happened. */
export async function startRig(options: RigOptions): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'csc-load-'));
  const tag = randomUUID();
  const workers: WorkerProcess[] = [];
  let redis: RedisServer | null = null;
  let client: Redis | null = null;
  let store: RunStore | null = null;
  let server: Server | null = null;
  const tagged = (): Tagged[] =>
    listProcesses()
      .filter(running)
      .filter((stat) => !workers.some((worker) => worker.pid === stat.pid))
      .flatMap((stat) => {
        try {
          if (!readFileSync(`/proc/${stat.pid}/environ`, 'latin1').split('\0').includes(`${TAG_ENV}=${tag}`)) return [];
          return [{ ...stat, command: readFileSync(`/proc/${stat.pid}/cmdline`, 'utf8').split('\0').join(' ').trim() }];
        } catch {
          return []; // gone meanwhile, or not ours to read
        }
      });
  const close = async () => {
    server?.closeAllConnections();
    server?.close();
    await store?.close().catch(() => {});
    for (const worker of workers) await stop(worker.child, 5000);
    // What the workers left (a CLI, a watchdog): by pid, still the same process.
    for (const left of tagged()) if (isRunning(left)) process.kill(left.pid, 'SIGKILL');
    client?.disconnect();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    redis = await startRedis();
    client = new Redis(redis.url, { maxRetriesPerRequest: null });
    for (let i = 0; i < options.workers; i++) workers.push(await startRigWorker(redis.url, dir, options, tag));
    store = openRunStore({ redis: redis.url, lockMs: options.lockMs });
    // The data path from 127.0.0.1: auth and its refusals are tested in test/scale/http-security.spec.ts.
    // Its runs ask for `approvals: 'allow'` (the capture's permission request is answered): the operator allows it here.
    const open = { noAuth: true, maxQueued: 100_000, maxRunsPerPrincipal: 100_000, allow: { approvals: ['allow'] } } as const;
    const runStore = store;
    let handle = createRunsHandler(runStore, open);
    const pendingSse = new Map<number, { runId: string; response: ServerResponse }>();
    const webErrors: string[] = [];
    let next = 0;
    const web = createServer((request, response) => {
      const key = next++;
      if (request.method === 'GET' && /\/events$/.test(request.url ?? ''))
        pendingSse.set(key, { runId: (request.url ?? '').split('/')[2] ?? '', response });
      handle(request, response).then(
        (handled) => {
          pendingSse.delete(key);
          if (!handled) response.writeHead(404).end();
        },
        (error: unknown) => {
          pendingSse.delete(key);
          webErrors.push(String((error as Error)?.stack ?? error));
          if (!response.headersSent) response.writeHead(500);
          response.end();
        },
      );
    });
    server = web;
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const rig: Rig = {
      dir,
      redis,
      client,
      store: runStore,
      base: `http://127.0.0.1:${(web.address() as AddressInfo).port}`,
      workers,
      pendingSse,
      webErrors,
      use: (wire, pids, env = {}) => {
        const jobDefaults: Omit<RunJob, 'provider' | 'prompt'> = {
          cwd: dir,
          executable: AGENT,
          env: { REPLAY_WIRE: wire, REPLAY_PIDS: pids, ...env },
        };
        handle = createRunsHandler(runStore, { ...open, jobDefaults });
      },
      tagged,
      stopWorkers: async (graceMs) => {
        const exited: boolean[] = [];
        for (const worker of workers) exited.push(await stop(worker.child, graceMs));
        return exited;
      },
      close,
    };
    return rig;
  } catch (error) {
    await close();
    throw error;
  }
}

/** A directory of the rig's for a phase's files (its captures, its pid files). */
export function rigFile(rig: Rig, name: string): string {
  mkdirSync(rig.dir, { recursive: true });
  return join(rig.dir, name);
}

// ---- SSE clients and phases ------------------------------------------------------------------------

/** As EventSource waits before reconnecting when the server closed without `event: end` (the server's `retry:`). */
const RETRY_MS = 1000;

/**
 * The client of one run, as EventSource is (over the tests' SseClient, one per connection): it keeps
 * the last id, and reconnects with Last-Event-ID when a connection goes before `event: end`.
 * `drop()` closes the connection as a client that goes away does, and reconnects at once (a reloaded
 * page, a network flap).
 */
export class RunClient {
  readonly ids: string[] = [];
  readonly data: string[] = [];
  readonly receivedAt: number[] = [];
  connections = 0;
  drops = 0;
  /** Connections that ended without `event: end` and were not dropped by this client. */
  unexpected = 0;
  readonly problems: string[] = [];
  ended = false;
  endedAt = 0;
  readonly done: Promise<void>;
  private finish!: () => void;
  private current: SseClient | null = null;

  constructor(
    readonly runId: string,
    private readonly url: string,
    private readonly onEvent: () => void,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
    this.open();
  }

  private open(): void {
    if (this.ended) return;
    this.connections++;
    const last = this.ids.at(-1);
    const connection: SseClient = new SseClient(this.url, last === undefined ? {} : { 'last-event-id': last }, (frame) => {
      // A frame may drop this very connection (a storm triggered by its event): the rest is the old connection's, never read.
      if (this.current !== connection) return;
      if (frame.event === 'end') {
        this.ended = true;
        this.endedAt = Date.now();
        this.current = null;
        connection.disconnect();
        this.finish();
        return;
      }
      if (frame.id === undefined) this.problems.push('a message without an id');
      this.ids.push(frame.id ?? '');
      this.data.push(frame.data);
      this.receivedAt.push(Date.now());
      this.onEvent();
    });
    this.current = connection;
    void connection.status.then((status) => status !== 200 && this.problems.push(`status ${status}`));
    void connection.ended.then(() => {
      // The connection went without `event: end`, not by `drop()`: reconnect as EventSource does.
      if (this.current !== connection || this.ended) return;
      this.current = null;
      this.unexpected++;
      if (this.problems.length < 5) this.problems.push('the server closed the stream before event: end');
      setTimeout(() => this.open(), RETRY_MS);
    });
  }

  /** Leaves (the connection closed mid-stream) and reconnects at once with Last-Event-ID. */
  drop(): void {
    if (this.ended || this.current === null) return;
    const connection = this.current;
    this.current = null;
    connection.disconnect();
    this.drops++;
    this.open();
  }
}

function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const request = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
      (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (answer += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: answer ? (JSON.parse(answer) as Record<string, unknown>) : {} }),
        );
      },
    );
    request.on('error', reject);
    request.end(text);
  });
}

export interface Phase {
  clients: RunClient[];
  /** From the first POST to the last client's `event: end`, ms. */
  wallMs: number;
  startedAt: number;
  timedOut: boolean;
}

/** Posts `runs` runs at once and reads each with a client to its end; `onProgress` is called on every event received. */
export async function runPhase(
  rig: Rig,
  name: string,
  runs: number,
  timeoutMs: number,
  onProgress: (received: number, clients: RunClient[]) => void = () => {},
): Promise<Phase> {
  const clients: RunClient[] = [];
  let received = 0;
  const startedAt = Date.now();
  await Promise.all(
    Array.from({ length: runs }, async (_, index) => {
      const answer = await postJson(`${rig.base}/runs`, {
        provider: 'gemini',
        prompt: `Run ${index + 1} of the ${name} phase.`,
        approvals: 'allow',
      });
      if (answer.status !== 201 || typeof answer.body.id !== 'string')
        throw new Error(`POST /runs answered ${answer.status} ${JSON.stringify(answer.body)}`);
      clients.push(new RunClient(answer.body.id, `${rig.base}/runs/${answer.body.id}/events?raw=1`, () => onProgress(++received, clients)));
    }),
  );
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    Promise.all(clients.map((client) => client.done)).then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
  ]);
  clearTimeout(timer);
  const lastEnd = Math.max(...clients.map((client) => client.endedAt));
  return { clients, wallMs: (timedOut ? Date.now() : lastEnd) - startedAt, startedAt, timedOut };
}

/** A conversations phase: one client per session, and how long each turn took (its message posted → its result received). */
export interface ConversationPhase {
  clients: RunClient[];
  turnMs: number[];
  wallMs: number;
  timedOut: boolean;
}

function deleteUrl(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'DELETE' }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end();
  });
}

/**
 * Opens `sessions` sessions at once (`POST /sessions`, Claude Code: the rig's job replays a
 * conversation capture), each followed by a client from its start; sends each one `turns` messages,
 * one after the other (the next once the last one's result reached the client), then closes it
 * (`DELETE`), and waits for every client's `event: end`.
 */
export async function runConversations(rig: Rig, sessions: number, turns: number, timeoutMs: number): Promise<ConversationPhase> {
  const clients: RunClient[] = [];
  const turnMs: number[] = [];
  const startedAt = Date.now();
  const converse = async (index: number) => {
    const opened = await postJson(`${rig.base}/sessions`, { provider: 'claude' });
    if (opened.status !== 201 || typeof opened.body.id !== 'string')
      throw new Error(`POST /sessions answered ${opened.status} ${JSON.stringify(opened.body)}`);
    const id = opened.body.id;
    const results = new Set<string>();
    let wake = () => {};
    const client: RunClient = new RunClient(id, `${rig.base}/sessions/${id}/events?raw=1`, () => {
      if ((JSON.parse(client.data.at(-1) as string) as { kind: string }).kind === 'result') results.add(client.ids.at(-1) as string);
      wake();
    });
    clients.push(client);
    for (let turn = 1; turn <= turns; turn++) {
      const sentAt = Date.now();
      const sent = await postJson(`${rig.base}/sessions/${id}/messages`, { text: `Turn ${turn} of conversation ${index + 1}.` });
      if (sent.status !== 202) throw new Error(`POST /sessions/${id}/messages answered ${sent.status} ${JSON.stringify(sent.body)}`);
      while (results.size < turn) await new Promise<void>((resolve) => (wake = resolve));
      turnMs.push(Date.now() - sentAt);
    }
    const closed = await deleteUrl(`${rig.base}/sessions/${id}`);
    if (closed !== 204) throw new Error(`DELETE /sessions/${id} answered ${closed}`);
    await client.done;
  };
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    Promise.all(Array.from({ length: sessions }, (_, index) => converse(index))).then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
  ]);
  clearTimeout(timer);
  return { clients, turnMs: turnMs.sort((a, b) => a - b), wallMs: Date.now() - startedAt, timedOut };
}

/** What a conversations phase delivered: the delivery check of every session's stream, and its turns. */
export interface ConversationCheck extends Delivery {
  sessions: number;
  /** Results in the streams: a completed turn each. */
  turns_completed: number;
  /** Turns whose result is not `completed`. */
  turns_not_completed: number;
}

/** Every session's stream against what its client received (`delivery`), and its turns' results. */
export async function checkConversations(redis: Redis, clients: readonly RunClient[]): Promise<ConversationCheck> {
  const result: ConversationCheck = { sessions: clients.length, ...emptyDelivery(), turns_completed: 0, turns_not_completed: 0 };
  for (const client of clients) {
    const stored = await readStored(redis, client.runId);
    addDelivery(result, stored, client);
    for (const entry of stored.entries) {
      const event = JSON.parse(entry.json) as StoredEvent;
      if (event.kind !== 'result') continue;
      if (event.payload.status === 'completed') result.turns_completed++;
      else result.turns_not_completed++;
    }
  }
  return result;
}

/** Latency of each event's first delivery: the client's receive time minus the event's timestamp (the worker's read of the line). */
export function latencies(clients: readonly RunClient[]): number[] {
  const out: number[] = [];
  for (const client of clients) {
    const seen = new Set<string>();
    client.ids.forEach((id, i) => {
      if (seen.has(id)) return;
      seen.add(id);
      const { timestamp } = JSON.parse(client.data[i]) as { timestamp: string };
      out.push(client.receivedAt[i] - Date.parse(timestamp));
    });
  }
  return out.sort((a, b) => a - b);
}

/** Events delivered to the clients, each counted once. */
export const delivered = (clients: readonly RunClient[]) => clients.reduce((sum, client) => sum + new Set(client.ids).size, 0);

// ---- what the store holds, against what the clients received ------------------------------------------

/** What the store holds of one run, read whole with XRANGE. */
export interface StoredRun {
  /** The entries before the end marker. */
  entries: { id: string; json: string }[];
  ended: boolean;
  /** Entries after the end marker (appended once the run was over): never read by anyone. */
  afterEnd: number;
}

export async function readStored(redis: Redis, runId: string): Promise<StoredRun> {
  const raw = (await redis.xrange(`csc:run:${runId}:events`, '-', '+')) as [string, string[]][];
  const entries: { id: string; json: string }[] = [];
  let ended = false;
  let afterEnd = 0;
  for (const [id, fields] of raw) {
    if (ended) afterEnd++;
    else if (fields[0] === 'end') ended = true;
    else entries.push({ id, json: fields[1] });
  }
  return { entries, ended, afterEnd };
}

/** What a stream's client received against what the stream holds. */
export interface Delivery {
  /** Events the streams hold (before their end markers). */
  stored: number;
  /** Events received by the clients, duplicates included. */
  received: number;
  /** Stream entries a client never received. */
  lost_at_client: number;
  /** Entries a client received more than once (or out of order). */
  duplicated_at_client: number;
  /** Entries a client received that the stream does not hold, or whose content differs from it. */
  different_at_client: number;
  streams_not_ended: number;
  entries_after_end: number;
}

function emptyDelivery(): Delivery {
  return {
    stored: 0,
    received: 0,
    lost_at_client: 0,
    duplicated_at_client: 0,
    different_at_client: 0,
    streams_not_ended: 0,
    entries_after_end: 0,
  };
}

/** Adds one stream and its client to `result`: the same entry ids, in order, each once, with the same event. */
function addDelivery(result: Delivery, stored: StoredRun, client: RunClient): void {
  result.stored += stored.entries.length;
  result.received += client.ids.length;
  if (!stored.ended) result.streams_not_ended++;
  result.entries_after_end += stored.afterEnd;
  const byId = new Map(stored.entries.map((entry) => [entry.id, entry.json]));
  const seen = new Set<string>();
  for (let i = 0; i < client.ids.length; i++) {
    const id = client.ids[i];
    if (seen.has(id) || (i > 0 && !(compareIds(id, client.ids[i - 1]) > 0))) {
      result.duplicated_at_client++;
      continue;
    }
    seen.add(id);
    const json = byId.get(id);
    // What the server sends of an entry: the event read back, serialized again.
    if (json === undefined || JSON.stringify(Event.fromJSON(json)) !== client.data[i]) result.different_at_client++;
  }
  for (const entry of stored.entries) if (!seen.has(entry.id)) result.lost_at_client++;
}

export interface Check extends Delivery {
  runs: number;
  /** Runs by how their stream ends. */
  completed: number;
  worker_lost: number;
  other_ending: number;
  /** Completed runs whose events are not the capture's, in order (the CLI's lines against the stream). */
  completed_not_whole: number;
  /** worker_lost runs whose CLI events before the ending are not a gapless prefix of the capture's. */
  lost_with_gaps: number;
}

type StoredEvent = { kind: string; sequence: number; payload: { status?: string; code?: string; severity?: string; stop_reason?: string } };

function compareIds(a: string, b: string): number {
  const [aMs, aSeq] = a.split('-').map(Number);
  const [bMs, bSeq] = b.split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}

/**
 * Every run's stream (XRANGE) against what its client received: the same entry ids, in order, each
 * once, with the same event. And the stream against the CLI: a completed run holds exactly
 * `referenceKinds` (the capture's events), a run ended `worker_lost` a gapless prefix of them then
 * the fatal error and the failed result.
 */
export async function check(redis: Redis, clients: readonly RunClient[], referenceKinds: readonly string[]): Promise<Check> {
  const result: Check = {
    runs: clients.length,
    ...emptyDelivery(),
    completed: 0,
    worker_lost: 0,
    other_ending: 0,
    completed_not_whole: 0,
    lost_with_gaps: 0,
  };
  for (const client of clients) {
    const stored = await readStored(redis, client.runId);
    addDelivery(result, stored, client);
    const events = stored.entries.map((entry) => JSON.parse(entry.json) as StoredEvent);
    const last = events.at(-1);
    const beforeLast = events.at(-2);
    if (last?.kind === 'result' && last.payload.status === 'completed') {
      result.completed++;
      if (events.map((event) => event.kind).join() !== referenceKinds.join()) result.completed_not_whole++;
    } else if (
      last?.kind === 'result' &&
      last.payload.status === 'failed' &&
      last.payload.stop_reason === 'worker_lost' &&
      beforeLast?.kind === 'error' &&
      beforeLast.payload.code === 'worker_lost' &&
      beforeLast.payload.severity === 'fatal'
    ) {
      result.worker_lost++;
      if (!events.slice(0, -2).every((event, index) => event.sequence === index && referenceKinds[index] === event.kind))
        result.lost_with_gaps++;
    } else result.other_ending++;
  }
  return result;
}

/** The CLIs (by pid) the workers started in a phase, from the stand-in's REPLAY_PIDS file. */
export function startedClis(file: string): { pid: number; ppid: number }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split(' ').map(Number))
    .map(([pid, ppid]) => ({ pid, ppid }));
}

/** Waits until `done()` or `ms` passed; answers how long it took (NaN when it never happened). */
export async function waitUntil(done: () => boolean, ms: number, everyMs = 100): Promise<number> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > ms) return NaN;
    await sleep(everyMs);
  }
  return Date.now() - start;
}

/** SSE handlers still running once every run of the phase ended and its client got `event: end` (each should finish at once), after a short wait. */
export async function hangingSse(rig: Rig): Promise<number> {
  await waitUntil(() => rig.pendingSse.size === 0, 3000);
  return rig.pendingSse.size;
}

/** Redis connections blocked in XREAD: SSE readers still following a stream. */
export async function blockedReaders(redis: Redis): Promise<number> {
  const list = (await redis.client('LIST')) as string;
  return list.split('\n').filter((line) => / cmd=xread( |$)/.test(line)).length;
}

/** Whether the CLI `pid` (started at `startTime`) is gone: exited, reaped or a zombie. */
export const gone = (cli: { pid: number; startTime: number }): boolean => !isRunning(cli);
