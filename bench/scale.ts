/**
 * Scaling out under load and faults (#21): runs queued over HTTP on a real Redis, run by worker
 * processes, read back by SSE clients.
 *   node -r ts-node/register/transpile-only bench/scale.ts [--json]
 * Everything runs on this machine, on 127.0.0.1: a redis-server on a free port (in memory, stopped at
 * the end), BENCH_WORKERS worker processes (`cli-subprocess-core worker --concurrency
 * BENCH_CONCURRENCY --lock BENCH_LOCK_MS/1000`, from the sources), and this process as the web
 * process (`createRunsHandler` over the same store) and as the SSE clients, one per run. The CLIs
 * are the replay stand-in (test/sessions/replay-agent.js) of a capture built at run time from the
 * real Gemini ACP capture wire-allow.jsonl (its handshake, its permission request, its tool call and
 * its usage), with BENCH_EVENTS_PER_RUN events per run (default 2,000) replayed at full speed.
 * Phases:
 * 1. unloaded: a few runs of a short capture printed one line every 2 ms: the latency of the
 *    pipeline without a backlog;
 * 2. load: BENCH_RUNS runs (default 50) posted at once, one SSE client each to `event: end`:
 *    events/s end to end, latency from a CLI's line (its event's `timestamp`, stamped by the worker
 *    when it read the line) to the client, Redis memory per event, CPU per event of each process;
 *    then, the workers idle, its raw floor: the same events' JSON XADDed and read back with plain
 *    ioredis, batched as the store does (rawFloor), and the rate end to end over the floor's;
 * 3. faults: the same load, a worker SIGKILLed at KILL_AT of it (its runs are ended by the other
 *    worker, `worker_lost`), and reconnect storms: at each of DROP_AT every client still reading
 *    drops its connection and reconnects at once with Last-Event-ID.
 * After each loaded phase every run's stream is read whole with XRANGE and compared with what its
 * client received: events lost and duplicated at the client, and upstream (the CLI's lines against
 * the stream: a completed run holds all of them, a worker_lost run a gapless prefix, nothing follows
 * an end marker); then the CLIs, the SSE handlers and the Redis readers left over, and at the end
 * the processes left once the workers are stopped. Those counts must be 0 (the exit code is 1 when
 * one is not); the timings are reported, never asserted (a shared machine's absolute figures are
 * noisy). Each worker also reports its longest event-loop delay per phase (a preloaded monitor): a
 * delay near the lock lets its hold on a run lapse.
 * BENCH_RUNS, BENCH_EVENTS_PER_RUN, BENCH_WORKERS (2), BENCH_CONCURRENCY (25), BENCH_LOCK_MS (5000)
 * and BENCH_PHASE_TIMEOUT_MS (300,000) adjust a run. Needs redis-server (skipped without it) and
 * /proc (Linux).
 * Processes are told apart by an environment variable given to the workers (and so to everything
 * they start): what this bench started is found in /proc by it, and stopped by pid at the end, as
 * are redis-server and the workers, however the bench ends.
 */
import 'reflect-metadata';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, get, request as httpRequest, type ClientRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Event, createRunsHandler, openRunStore, type RunJob, type RunStore } from '../src';
import { median } from './measure';
import { startRedis, type RedisServer } from '../e2e/test/redis-server';

const asJson = process.argv.includes('--json');
const RUNS = Number(process.env.BENCH_RUNS) || 50;
const EVENTS_PER_RUN = Number(process.env.BENCH_EVENTS_PER_RUN) || 2000;
const WORKERS = Number(process.env.BENCH_WORKERS) || 2;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY) || 25;
/** A worker's hold on a run: a dead worker's runs are noticed about this long after (the store's default is 15 s). */
const LOCK_MS = Number(process.env.BENCH_LOCK_MS) || 5000;
/** The faults phase: the fractions of its expected events received at which every client drops and reconnects, and at which a worker is killed. */
const DROP_AT = [0.05, 0.15, 0.25, 0.4, 0.5];
const KILL_AT = 0.3;
/** A phase that does not end within this long is a failure (its figures are reported as they are). */
const PHASE_TIMEOUT_MS = Number(process.env.BENCH_PHASE_TIMEOUT_MS) || 300_000;

const ROOT = join(__dirname, '..');
const AGENT = join(ROOT, 'test', 'sessions', 'replay-agent.js');
const CAPTURE = join(ROOT, 'test', 'fixtures', 'sessions', 'gemini', 'wire-allow.jsonl');
const TAG_ENV = 'CSC_BENCH_SCALE_TAG';
const TAG = randomUUID();
const log = (text: string) => process.stderr.write(`${text}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---- the capture -------------------------------------------------------------------------------

type WireEntry = { from: 'host' | 'cli' | 'stderr'; at_ms: number; line: unknown };

/**
 * A capture of Gemini CLI's ACP exchange with `chunks` text chunks around its tool call: the real
 * capture's handshake (initialize, session/new, the commands update), the prompt, half the chunks,
 * its permission request and the host's answer, the tool's completion, the other half, and the
 * prompt's answer with its usage. The host writes four lines, as a session with `approvals: 'allow'`
 * does. Events per run: the chunks + 11 (two raw lines, run_started, two assistant messages, tool_use,
 * approval_requested and approval_resolved, tool_result, cost_update, result).
 */
function writeCapture(path: string, chunks: number): void {
  const real = readFileSync(CAPTURE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as WireEntry);
  const [init, initAnswer, newSession, newAnswer, commands, prompt, permission, allow, toolDone] = real;
  const answer = real.find((entry) => entry.from === 'cli' && (entry.line as { id?: number; result?: unknown }).id === 2 && (entry.line as { result?: unknown }).result);
  if ([init.from, initAnswer.from, newSession.from, newAnswer.from, commands.from, prompt.from, permission.from, allow.from, toolDone.from].join() !== 'host,cli,host,cli,cli,host,cli,host,cli' || !answer) {
    throw new Error(`${CAPTURE} is not the exchange this bench builds on`);
  }
  const sessionId = (newAnswer.line as { result: { sessionId: string } }).result.sessionId;
  const prose = 'Scaling out means more than one process: a queue of runs, a stream of events per run, and clients that come and go. ';
  const chunk = (i: number, at: number): WireEntry => {
    const from = (i * 7) % prose.length;
    const text = `${prose}${prose}`.slice(from, from + 7);
    return { from: 'cli', at_ms: at, line: { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } } };
  };
  const before = Math.floor(chunks / 2);
  const out: WireEntry[] = [init, initAnswer, newSession, newAnswer, commands, prompt];
  for (let i = 0; i < before; i++) out.push(chunk(i, prompt.at_ms + 1));
  out.push(permission, allow, toolDone);
  for (let i = before; i < chunks; i++) out.push(chunk(i, toolDone.at_ms + 1));
  out.push(answer);
  writeFileSync(path, `${out.map((entry) => JSON.stringify(entry)).join('\n')}\n`);
}
const EVENTS_BESIDES_CHUNKS = 11;

// ---- processes this bench starts -----------------------------------------------------------------

/** The bench's temporary directory (captures, pid files, Redis's dir), removed on any way out. */
let tempDir: string | null = null;

/** Every process started here, by pid, with how to tell it is still ours (an unreaped child). */
const owned = new Map<number, { name: string; child: ChildProcess }>();
const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** SIGKILL to every process started here that still runs: on any way out of this process. */
function killOwned(): void {
  for (const [pid, { child }] of owned) if (alive(child)) process.kill(pid, 'SIGKILL');
}
process.on('exit', killOwned);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    log(`bench/scale: ${signal}: stopping what it started`);
    killOwned();
    killTagged();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    process.exit(130);
  });
}

function track(name: string, child: ChildProcess): ChildProcess {
  if (child.pid !== undefined) owned.set(child.pid, { name, child });
  return child;
}

const exitOf = (child: ChildProcess): Promise<void> => (alive(child) ? new Promise((resolve) => child.once('exit', () => resolve())) : Promise.resolve());

/** SIGTERM, then SIGKILL after `graceMs`; answers whether it exited of the SIGTERM. */
async function stop(child: ChildProcess, graceMs: number): Promise<boolean> {
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

/** A process that the workers started (found by the tag in its environment), still there. */
interface Tagged {
  pid: number;
  startTime: number;
  state: string;
  command: string;
}

function taggedProcesses(): Tagged[] {
  const found: Tagged[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`${TAG_ENV}=${TAG}`)) continue;
      const stat = statOf(Number(name));
      if (!stat) continue;
      found.push({ pid: Number(name), startTime: stat.startTime, state: stat.state, command: readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

const isCli = (found: Tagged) => found.command.includes('replay-agent.js');
const running = (processes: Tagged[]) => processes.filter((found) => found.state !== 'Z' && found.state !== 'X');
const workerPids = () => workers.map((worker) => worker.pid);

/** SIGKILL to every tagged process still there that is not one of the workers (a left-over CLI, a watchdog), by pid and start time. */
function killTagged(): number {
  let killed = 0;
  for (const process_ of running(taggedProcesses())) {
    if (workerPids().includes(process_.pid)) continue;
    if (statOf(process_.pid)?.startTime !== process_.startTime) continue;
    try {
      process.kill(process_.pid, 'SIGKILL');
      killed++;
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}

let ticksPerSecond = 100;
try {
  ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // the usual value
}

/** The fields of /proc/<pid>/stat this bench reads; CPU in ms. */
function statOf(pid: number): { state: string; ppid: number; startTime: number; cpuMs: number; childrenCpuMs: number } | null {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // After the command name's closing parenthesis: state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17) … starttime(22).
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  const ms = (ticks: number) => (ticks * 1000) / ticksPerSecond;
  return { state: fields[0], ppid: Number(fields[1]), startTime: Number(fields[19]), cpuMs: ms(Number(fields[11]) + Number(fields[12])), childrenCpuMs: ms(Number(fields[13]) + Number(fields[14])) };
}

// ---- redis-server and the workers ----------------------------------------------------------------

function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly stderr: string[];
}
const workers: WorkerProcess[] = [];

/**
 * Preloaded into each worker (`node -r`): every 250 ms it appends `<time> <longest event-loop
 * delay in that window, ms>` to $CSC_BENCH_LOOP_DIR/<pid>. A worker's hold on a run is renewed
 * from a timer every lockMs/2 or so: a delay near lockMs (a busy loop, or a process starved of CPU)
 * lets the hold lapse, and another worker takes the run as if this one had died.
 */
const LOOP_MONITOR = `
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { appendFileSync } = require('node:fs');
const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
const file = require('node:path').join(process.env.CSC_BENCH_LOOP_DIR, String(process.pid));
const save = () => {
  try { appendFileSync(file, Date.now() + ' ' + (histogram.max / 1e6).toFixed(1) + '\\n'); } catch {}
  histogram.reset();
};
setInterval(save, 250).unref();
process.on('exit', save);
`;

/** The longest event-loop delay of each worker (by pid) within [from, to], ms: from its monitor's windows ending then. */
function loopDelays(dir: string, from: number, to: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pid of readdirSync(dir)) {
    const windows = readFileSync(join(dir, pid), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ').map(Number))
      .filter(([at]) => at >= from && at <= to + 250);
    if (windows.length > 0) out[pid] = Math.max(...windows.map(([, ms]) => ms));
  }
  return out;
}

/** A worker process: the `worker` command from the sources, its stderr kept (a worker that complains is reported). */
function startWorker(url: string, dir: string): Promise<WorkerProcess> {
  const args = ['-r', join(dir, 'loop-monitor.js'), '-r', require.resolve('ts-node/register/transpile-only'), join(ROOT, 'src', 'cli', 'main.ts'), 'worker', '--redis', url, '--concurrency', String(CONCURRENCY), '--lock', String(LOCK_MS / 1000), '--workspace', 'shared', '--pass-env', TAG_ENV];
  const child = track('worker', spawn(process.execPath, args, { cwd: dir, env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), [TAG_ENV]: TAG, CSC_BENCH_LOOP_DIR: join(dir, 'loop') }, stdio: ['ignore', 'pipe', 'pipe'] }));
  const worker: WorkerProcess = { child, pid: child.pid as number, stderr: [] };
  child.stderr?.setEncoding('utf8').on('data', (text: string) => worker.stderr.push(text));
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', () => resolve(worker));
    child.once('exit', (code, signal) => reject(new Error(`a worker exited before it started (${code ?? signal}): ${worker.stderr.join('')}`)));
  });
}

// ---- the web process and its SSE clients --------------------------------------------------------

interface Web {
  server: Server;
  base: string;
  /** The handler of the current phase (each phase says which capture its runs replay). */
  use(jobDefaults: Omit<RunJob, 'provider' | 'prompt'>): void;
  /** SSE requests whose handler has not finished (it should, once the run ended or the client left). */
  readonly pendingSse: Map<number, { runId: string; response: ServerResponse }>;
  errors: string[];
}

function startWeb(store: RunStore): Promise<Web> {
  // The bench measures the data path from 127.0.0.1: auth and its refusals are tested in test/scale/http-security.spec.ts.
  // Its runs ask for `approvals: 'allow'` (the capture's permission request is answered): the operator allows it here.
  const open = { noAuth: true, maxQueued: 100_000, maxRunsPerPrincipal: 100_000, allow: { approvals: ['allow'] } } as const;
  let handle = createRunsHandler(store, open);
  const pendingSse = new Map<number, { runId: string; response: ServerResponse }>();
  let next = 0;
  const errors: string[] = [];
  const server = createServer((request, response) => {
    const sse = request.method === 'GET' && /\/events$/.test(request.url ?? '');
    const key = next++;
    if (sse) pendingSse.set(key, { runId: (request.url ?? '').split('/')[2] ?? '', response });
    handle(request, response).then(
      (handled) => {
        pendingSse.delete(key);
        if (handled) return;
        response.writeHead(404);
        response.end();
      },
      (error: unknown) => {
        pendingSse.delete(key);
        errors.push(String((error as Error)?.stack ?? error));
        if (!response.headersSent) response.writeHead(500);
        response.end();
      },
    );
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, base: `http://127.0.0.1:${port}`, use: (jobDefaults) => (handle = createRunsHandler(store, { ...open, jobDefaults })), pendingSse, errors });
    }),
  );
}

const agent = new Agent({ keepAlive: false, maxSockets: Infinity });

function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const request = httpRequest(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (response) => {
      let answer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (answer += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: answer ? (JSON.parse(answer) as Record<string, unknown>) : {} }));
    });
    request.on('error', reject);
    request.end(text);
  });
}

/** What every client of a phase adds to: events received (for the phase's triggers). */
interface Tally {
  received: number;
  onEvent(): void;
}

/** As EventSource waits before reconnecting when the server closed without `event: end` (the server's `retry:`). */
const RETRY_MS = 1000;

/**
 * An SSE client of one run, as EventSource is: it reads `/runs/:id/events`, keeps the last id, and
 * reconnects with Last-Event-ID when the connection goes before `event: end`. `drop()` closes the
 * connection as a client that goes away does, and reconnects at once (a reloaded page, a network
 * flap).
 */
class SseClient {
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
  private current: ClientRequest | null = null;

  constructor(
    readonly runId: string,
    private readonly url: string,
    private readonly tally: Tally,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
    this.open();
  }

  private open(): void {
    if (this.ended) return;
    this.connections++;
    const last = this.ids.at(-1);
    const request = get(this.url, { agent, headers: last === undefined ? {} : { 'last-event-id': last } }, (response) => {
      if (response.statusCode !== 200) this.problems.push(`status ${response.statusCode}`);
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (this.current !== request) return;
        text += chunk;
        let end: number;
        // A frame may drop this very connection (a storm triggered by its event): the rest of the chunk is then the old connection's, never read.
        while (this.current === request && (end = text.indexOf('\n\n')) >= 0) {
          const frame = text.slice(0, end);
          text = text.slice(end + 2);
          this.frame(frame);
        }
      });
      response.on('end', () => this.lost(request, 'the server closed the stream before event: end'));
      response.on('error', (error) => this.lost(request, error.message));
    });
    request.on('error', (error) => this.lost(request, error.message));
    this.current = request;
  }

  private frame(frame: string): void {
    let id: string | undefined;
    let data: string | undefined;
    let event: string | undefined;
    for (const line of frame.split('\n')) {
      if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data = line.slice(6);
      else if (line.startsWith('event: ')) event = line.slice(7);
    }
    if (event === 'end') {
      this.ended = true;
      this.endedAt = Date.now();
      this.current = null;
      this.finish();
      return;
    }
    if (data === undefined) return; // retry: and keep-alive comments
    if (id === undefined) this.problems.push('a message without an id');
    this.ids.push(id ?? '');
    this.data.push(data);
    this.receivedAt.push(Date.now());
    this.tally.received++;
    this.tally.onEvent();
  }

  /** The connection went without `event: end`, not by `drop()`: reconnect as EventSource does. */
  private lost(request: ClientRequest, why: string): void {
    if (this.current !== request || this.ended) return;
    this.current = null;
    this.unexpected++;
    if (this.problems.length < 5) this.problems.push(why);
    setTimeout(() => this.open(), RETRY_MS);
  }

  /** Leaves (the connection closed mid-stream) and reconnects at once with Last-Event-ID. */
  drop(): void {
    if (this.ended || this.current === null) return;
    const request = this.current;
    this.current = null;
    request.destroy();
    this.drops++;
    this.open();
  }
}

// ---- one loaded phase ----------------------------------------------------------------------------

/** The worker killed in the faults phase. */
interface Kill {
  pid: number;
  /** Events received by the clients when it was killed. */
  at: number;
  /** Its CLIs that ran then. */
  clis: { pid: number; startTime: number }[];
  /** Runs (of every worker) not over just after. */
  open: number | null;
  /** How long after the kill its CLIs were all gone (stopped by its watchdog); NaN when not within 30 s. */
  clisGone: Promise<number>;
}

interface Phase {
  name: string;
  clients: SseClient[];
  /** From the first POST to the last client's `event: end`, ms. */
  wallMs: number;
  startedAt: number;
  timedOut: boolean;
}

/** Posts `runs` runs at once and reads each with a client to its end; `progress` is called on every event received. */
async function runPhase(name: string, web: Web, runs: number, onProgress: (received: number, clients: SseClient[]) => void): Promise<Phase> {
  const clients: SseClient[] = [];
  const tally: Tally = { received: 0, onEvent: () => onProgress(tally.received, clients) };
  const startedAt = Date.now();
  await Promise.all(
    Array.from({ length: runs }, async (_, index) => {
      const answer = await postJson(`${web.base}/runs`, { provider: 'gemini', prompt: `Run ${index + 1} of the ${name} phase.`, approvals: 'allow' });
      if (answer.status !== 201 || typeof answer.body.id !== 'string') throw new Error(`POST /runs answered ${answer.status} ${JSON.stringify(answer.body)}`);
      clients.push(new SseClient(answer.body.id, `${web.base}/runs/${answer.body.id}/events`, tally));
    }),
  );
  const all = Promise.all(clients.map((client) => client.done)).then(() => false);
  const timedOut = await Promise.race([all, sleep(PHASE_TIMEOUT_MS).then(() => true)]);
  const lastEnd = Math.max(...clients.map((client) => client.endedAt));
  return { name, clients, wallMs: (timedOut ? Date.now() : lastEnd) - startedAt, startedAt, timedOut };
}

/** What the store holds of one run, read whole with XRANGE. */
interface StoredRun {
  /** The entries before the end marker. */
  entries: { id: string; json: string }[];
  ended: boolean;
  /** Entries after the end marker (appended once the run was over): never read by anyone. */
  afterEnd: number;
}

async function readStored(redis: Redis, runId: string): Promise<StoredRun> {
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

interface Check {
  runs: number;
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
  /** Runs by how their stream ends. */
  completed: number;
  worker_lost: number;
  other_ending: number;
  /** Completed runs whose events are not the capture's, in order (the CLI's lines against the stream). */
  completed_not_whole: number;
  /** worker_lost runs whose CLI events before the ending are not a gapless prefix of the capture's. */
  lost_with_gaps: number;
  /** CLI events the completed runs' streams miss against the capture's. */
  lost_upstream: number;
  /** How the first runs that are not clean look: their last events before the end marker, and what follows it. */
  anomalies: string[];
}

/**
 * Every run's stream (XRANGE) against what its client received: the same entry ids, in order, each
 * once, with the same event. And the stream against the CLI: a completed run holds exactly the
 * reference kinds (the capture's events), a run ended `worker_lost` a gapless prefix of them then
 * the fatal error and the failed result.
 */
async function check(redis: Redis, clients: SseClient[], referenceKinds: readonly string[] | null): Promise<Check & { stored_runs: Map<string, StoredRun> }> {
  const result: Check = { runs: clients.length, stored: 0, received: 0, lost_at_client: 0, duplicated_at_client: 0, different_at_client: 0, streams_not_ended: 0, entries_after_end: 0, completed: 0, worker_lost: 0, other_ending: 0, completed_not_whole: 0, lost_with_gaps: 0, lost_upstream: 0, anomalies: [] };
  const storedRuns = new Map<string, StoredRun>();
  for (const client of clients) {
    const stored = await readStored(redis, client.runId);
    const before = result.completed_not_whole + result.lost_with_gaps + result.other_ending + result.entries_after_end;
    storedRuns.set(client.runId, stored);
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
    const events = stored.entries.map((entry) => JSON.parse(entry.json) as { kind: string; sequence: number; payload: { status?: string; code?: string; severity?: string; stop_reason?: string } });
    const last = events.at(-1);
    const beforeLast = events.at(-2);
    if (last?.kind === 'result' && last.payload.status === 'completed') {
      result.completed++;
      if (referenceKinds) {
        const kinds = events.map((event) => event.kind);
        if (kinds.join() !== referenceKinds.join()) result.completed_not_whole++;
        result.lost_upstream += Math.max(0, referenceKinds.length - kinds.length);
      }
    } else if (last?.kind === 'result' && last.payload.status === 'failed' && last.payload.stop_reason === 'worker_lost' && beforeLast?.kind === 'error' && beforeLast.payload.code === 'worker_lost' && beforeLast.payload.severity === 'fatal') {
      result.worker_lost++;
      const cli = events.slice(0, -2);
      const gapless = cli.every((event, index) => event.sequence === index && (!referenceKinds || referenceKinds[index] === event.kind));
      if (!gapless) result.lost_with_gaps++;
    } else result.other_ending++;
    if (result.completed_not_whole + result.lost_with_gaps + result.other_ending + result.entries_after_end > before && result.anomalies.length < 5) {
      const describe = (event: { kind: string; sequence: number; payload: { status?: string; code?: string; severity?: string } }) =>
        `${event.kind}#${event.sequence}${event.payload.code ? `(${event.payload.code} ${event.payload.severity})` : ''}${event.kind === 'result' ? `(${event.payload.status})` : ''}`;
      const after = (await redis.xrange(`csc:run:${client.runId}:events`, '-', '+')) as [string, string[]][];
      const tail = after.slice(after.findIndex(([, fields]) => fields[0] === 'end') + 1).map(([, fields]) => describe(JSON.parse(fields[1]) as Parameters<typeof describe>[0]));
      const shown = tail.length <= 3 ? tail : [...tail.slice(0, 2), '…', tail[tail.length - 1]];
      result.anomalies.push(`run ${client.runId.slice(0, 8)}: ${events.length} events, ending … ${events.slice(-4).map(describe).join(', ')} | end marker | ${stored.afterEnd} after it${shown.length ? `: ${shown.join(', ')}` : ''}`);
    }
  }
  return { ...result, stored_runs: storedRuns };
}

function compareIds(a: string, b: string): number {
  const [aMs, aSeq] = a.split('-').map(Number);
  const [bMs, bSeq] = b.split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}

/** Latency of each event's first delivery: the client's receive time minus the event's timestamp (the worker's read of the line). */
function latencies(clients: SseClient[]): number[] {
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

const percentile = (sorted: number[], p: number): number => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);

async function redisInfo(redis: Redis, section: string, field: string): Promise<number> {
  const info = (await redis.info(section)) as string;
  const line = info.split('\r\n').find((entry) => entry.startsWith(`${field}:`));
  return Number(line?.slice(field.length + 1));
}

/** The CLIs (by pid) each worker started in a phase, from the stand-in's REPLAY_PIDS file. */
function startedClis(file: string): { pid: number; ppid: number }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split(' ').map(Number))
    .map(([pid, ppid]) => ({ pid, ppid }));
}

/** Waits until `done()` or `ms` passed; answers how long it took (NaN when it never happened). */
async function waitUntil(done: () => boolean, ms: number, everyMs = 100): Promise<number> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > ms) return NaN;
    await sleep(everyMs);
  }
  return Date.now() - start;
}

/**
 * SSE handlers still running once every run of the phase ended and its client got `event: end`
 * (each should finish at once), after a short wait: how many, how many of them had lost their
 * client, and how many were waiting for a 'drain' of their response.
 */
async function hangingSse(web: Web): Promise<{ count: number; client_gone: number; waiting_for_drain: number }> {
  await waitUntil(() => web.pendingSse.size === 0, 3000);
  const hanging = [...web.pendingSse.values()];
  return { count: hanging.length, client_gone: hanging.filter(({ response }) => response.destroyed).length, waiting_for_drain: hanging.filter(({ response }) => response.writableNeedDrain).length };
}

/** Redis connections blocked in XREAD: SSE readers still following a stream. */
async function blockedReaders(redis: Redis): Promise<number> {
  const list = (await redis.client('LIST')) as string;
  return list.split('\n').filter((line) => / cmd=xread( |$)/.test(line)).length;
}

// ---- the raw floor -----------------------------------------------------------------------------

/** The raw floor of the load phase: its events through Redis alone. */
interface RawFloor {
  events: number;
  wall_s: number;
  events_per_s: number;
}

/**
 * The load phase's events with nothing but Redis: each run's stored JSON XADDed with plain ioredis
 * to a stream of its own as the store writes them (one XADD per event, awaited in order; the runs
 * spread over one connection per worker; then the end marker), and read back by one reader per run
 * on a connection of its own as the store's readers do (XREAD BLOCK 1000 COUNT 500, to the end
 * marker). No CLI, no decoding, no parsing, no HTTP: the rate end to end cannot beat on this Redis.
 */
async function rawFloor(url: string, runs: readonly (readonly { json: string }[])[]): Promise<RawFloor> {
  const writers = Array.from({ length: WORKERS }, () => new Redis(url, { maxRetriesPerRequest: null }));
  const readers = runs.map(() => new Redis(url, { maxRetriesPerRequest: null }));
  const keys = runs.map(() => `csc-floor:${randomUUID()}:events`);
  try {
    await Promise.all([...writers, ...readers].map((connection) => connection.ping()));
    const startedAt = process.hrtime.bigint();
    const read = keys.map(async (key, i) => {
      let cursor = '0-0';
      for (;;) {
        const reply = (await readers[i].xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', key, cursor)) as [string, [string, string[]][]][] | null;
        for (const [id, fields] of reply?.[0]?.[1] ?? []) {
          if (fields[0] === 'end') return;
          cursor = id;
        }
      }
    });
    const written = runs.map(async (entries, i) => {
      const writer = writers[i % writers.length];
      for (const entry of entries) await writer.xadd(keys[i], '*', 'e', entry.json);
      await writer.xadd(keys[i], '*', 'end', '1');
    });
    await Promise.all([...written, ...read]);
    const wallS = Number(process.hrtime.bigint() - startedAt) / 1e9;
    const events = runs.reduce((total, entries) => total + entries.length, 0);
    return { events, wall_s: wallS, events_per_s: events / wallS };
  } finally {
    if (keys.length > 0) await writers[0].del(...keys);
    for (const connection of [...writers, ...readers]) connection.disconnect();
  }
}

// ---- the bench -------------------------------------------------------------------------------------

async function main(): Promise<number> {
  if (!hasRedisServer()) {
    const why = 'redis-server is not installed (apt-get install -y redis-server): the scale bench is skipped';
    if (asJson) process.stdout.write(`${JSON.stringify({ skipped: why })}\n`);
    else log(why);
    return 0;
  }
  const dir = mkdtempSync(join(tmpdir(), 'csc-bench-scale-'));
  tempDir = dir;
  const machine = { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? 'unknown', memory_gb: Math.round(totalmem() / 2 ** 30), loadavg_at_start: loadavg().map((value) => Number(value.toFixed(2))), node: process.version, platform: `${process.platform} ${process.arch}` };
  const chunks = Math.max(2, EVENTS_PER_RUN - EVENTS_BESIDES_CHUNKS);
  const capture = join(dir, 'wire-load.jsonl');
  writeCapture(capture, chunks);
  const shortCapture = join(dir, 'wire-short.jsonl');
  writeCapture(shortCapture, 200);
  let redis: RedisServer | null = null;
  let store: RunStore | null = null;
  let web: Web | null = null;
  let client: Redis | null = null;
  const violations: string[] = [];
  try {
    writeFileSync(join(dir, 'loop-monitor.js'), LOOP_MONITOR);
    mkdirSync(join(dir, 'loop'));
    redis = await startRedis();
    track('redis-server', redis.child);
    client = new Redis(redis.url, { maxRetriesPerRequest: null });
    const redisVersion = String((await client.info('server')).match(/redis_version:(\S+)/)?.[1]);
    log(`redis-server ${redisVersion} at ${redis.url}; starting ${WORKERS} workers (concurrency ${CONCURRENCY}, lock ${LOCK_MS} ms)`);
    for (let i = 0; i < WORKERS; i++) workers.push(await startWorker(redis.url, dir));
    store = openRunStore({ redis: redis.url, lockMs: LOCK_MS });
    web = await startWeb(store);
    const jobDefaults = (wire: string, pids: string, env: Record<string, string> = {}) => ({ cwd: dir, executable: AGENT, env: { REPLAY_WIRE: wire, REPLAY_PIDS: pids, ...env } });

    // 1. Unloaded: a few runs printing a line every 2 ms, one after another.
    log('phase 1/3: unloaded latency (one run at a time, a line every 2 ms)');
    web.use(jobDefaults(shortCapture, join(dir, 'pids-unloaded'), { REPLAY_DELAY_MS: '2' }));
    const quiet: SseClient[] = [];
    for (let i = 0; i < 4; i++) {
      const phase = await runPhase('unloaded', web, 1, () => {});
      quiet.push(...phase.clients);
    }
    const quietLatency = latencies(quiet);
    const quietCheck = await check(client, quiet, null);

    // 2. Load.
    log(`phase 2/3: load: ${RUNS} runs of ${EVENTS_PER_RUN} events at full speed`);
    const loadPids = join(dir, 'pids-load');
    web.use(jobDefaults(capture, loadPids));
    const memoryBefore = await redisInfo(client, 'memory', 'used_memory');
    const cpuBefore = { workers: workers.map((worker) => statOf(worker.pid)), redis: statOf(redis.child.pid as number), self: process.cpuUsage() };
    const load = await runPhase('load', web, RUNS, () => {});
    const cpuAfter = { workers: workers.map((worker) => statOf(worker.pid)), redis: statOf(redis.child.pid as number), self: process.cpuUsage() };
    await sleep(200);
    const memoryAfter = await redisInfo(client, 'memory', 'used_memory');
    const loadLatency = latencies(load.clients);
    // The reference: the events one run's CLI lines make, the kinds most completed runs hold (the
    // capture's chunks and 11 more: checked below).
    const completedKinds = new Map<string, string[]>();
    const votes = new Map<string, number>();
    for (const c of load.clients) {
      const events = (await readStored(client, c.runId)).entries.map((entry) => JSON.parse(entry.json) as { kind: string; payload: { status?: string } });
      if (events.at(-1)?.kind !== 'result' || events.at(-1)?.payload.status !== 'completed') continue;
      const kinds = events.map((event) => event.kind);
      completedKinds.set(kinds.join(), kinds);
      votes.set(kinds.join(), (votes.get(kinds.join()) ?? 0) + 1);
    }
    const mostCommon = [...votes].sort((a, b) => b[1] - a[1])[0]?.[0];
    const referenceKinds = mostCommon === undefined ? null : (completedKinds.get(mostCommon) ?? null);
    if (referenceKinds?.length !== chunks + EVENTS_BESIDES_CHUNKS) violations.push(`load: no reference run of ${chunks + EVENTS_BESIDES_CHUNKS} events (the completed runs hold ${referenceKinds?.length ?? 'none'})`);
    const loadCheck = await check(client, load.clients, referenceKinds);
    let streamBytes = 0;
    for (const c of load.clients) streamBytes += Number(await client.memory('USAGE', `csc:run:${c.runId}:events`, 'SAMPLES', '0')) || 0;
    const eventJsonBytes = [...loadCheck.stored_runs.values()].reduce((sum, run) => sum + run.entries.reduce((s, entry) => s + Buffer.byteLength(entry.json), 0), 0);
    const runsPerWorker = workers.map((worker) => startedClis(loadPids).filter((cli) => cli.ppid === worker.pid).length);
    const loadHanging = await hangingSse(web);
    const loadClis = running(taggedProcesses()).filter(isCli).length;
    const loadReaders = await blockedReaders(client);
    const cpu = {
      workers_ms: cpuAfter.workers.reduce((sum, after, i) => sum + (after?.cpuMs ?? 0) - (cpuBefore.workers[i]?.cpuMs ?? 0), 0),
      clis_ms: cpuAfter.workers.reduce((sum, after, i) => sum + (after?.childrenCpuMs ?? 0) - (cpuBefore.workers[i]?.childrenCpuMs ?? 0), 0),
      redis_ms: (cpuAfter.redis?.cpuMs ?? 0) - (cpuBefore.redis?.cpuMs ?? 0),
      web_and_clients_ms: (cpuAfter.self.user + cpuAfter.self.system - cpuBefore.self.user - cpuBefore.self.system) / 1000,
    };
    const delivered = load.clients.reduce((sum, c) => sum + new Set(c.ids).size, 0);
    // The raw floor, in the same run (the workers idle): the load phase's stored events through Redis alone.
    log('raw floor: the load phase\'s events XADDed and read back with plain ioredis');
    const floor = await rawFloor(redis.url, [...loadCheck.stored_runs.values()].map((run) => run.entries));

    // 3. Faults.
    log(`phase 3/3: faults: ${RUNS} runs, a worker SIGKILLed at ${KILL_AT * 100}% of the events, every client reconnecting at ${DROP_AT.map((at) => `${at * 100}%`).join(', ')}`);
    const faultPids = join(dir, 'pids-faults');
    web.use(jobDefaults(capture, faultPids));
    const expected = RUNS * (referenceKinds?.length ?? EVENTS_PER_RUN);
    const waves: { at: number; dropped: number }[] = [];
    const victim = workers[0];
    let kill: Kill | null = null;
    const faults = await runPhase('faults', web, RUNS, (received, clients) => {
      if (!kill && received >= KILL_AT * expected) {
        const its = startedClis(faultPids)
          .filter((cli) => cli.ppid === victim.pid)
          .map((cli) => ({ pid: cli.pid, stat: statOf(cli.pid) }))
          .filter((cli) => cli.stat && cli.stat.state !== 'Z');
        victim.child.kill('SIGKILL');
        const runIds = clients.map((c) => c.runId);
        const clis = its.map((cli) => ({ pid: cli.pid, startTime: cli.stat?.startTime ?? 0 }));
        const gone = () => clis.every((cli) => {
          const stat = statOf(cli.pid);
          return stat === null || stat.startTime !== cli.startTime || stat.state === 'Z';
        });
        const done: Kill = { pid: victim.pid, at: received, clis, open: null, clisGone: waitUntil(gone, 30_000, 20) };
        kill = done;
        // Which runs were not over yet when it died (read just after: a run the survivor completes meanwhile counts as over).
        void Promise.all(runIds.map((runId) => client?.exists(`csc:run:${runId}:ended`))).then((ended) => (done.open = ended.filter((flag) => flag === 0).length));
        log(`  SIGKILL to worker ${victim.pid} at ${received.toLocaleString('en-US')} events (${its.length} of its CLIs running)`);
      }
      const wave = DROP_AT[waves.length];
      if (wave !== undefined && received >= wave * expected) {
        let dropped = 0;
        for (const c of clients) {
          if (c.ended) continue;
          c.drop();
          dropped++;
        }
        waves.push({ at: received, dropped });
        log(`  reconnect storm ${waves.length}: ${dropped} clients dropped and reconnected at ${received.toLocaleString('en-US')} events`);
      }
    });
    workers.splice(workers.indexOf(victim), 1);
    const killed = kill as Kill | null;
    const faultClisStarted = startedClis(faultPids);
    const victimRuns = faultClisStarted.filter((cli) => cli.ppid === victim.pid).length;
    // The dead worker's CLIs are stopped by its watchdog; how long they outlived it.
    const victimClisGoneMs = killed ? await killed.clisGone : NaN;
    const faultCheck = await check(client, faults.clients, referenceKinds);
    const faultHanging = await hangingSse(web);
    const faultClis = running(taggedProcesses()).filter(isCli).length;
    const faultReaders = await blockedReaders(client);

    // Everything stops: the web process, the workers (SIGTERM), then what is left of theirs.
    web.server.closeAllConnections();
    await new Promise<void>((resolve) => web?.server.close(() => resolve()));
    await store.close();
    const workersExitedOnSigterm = [];
    for (const worker of workers) workersExitedOnSigterm.push(await stop(worker.child, 15_000));
    const settledMs = await waitUntil(() => running(taggedProcesses()).length === 0, 10_000);
    const left = running(taggedProcesses());
    const cliLeft = left.filter(isCli);
    const otherLeft = left.filter((process_) => !isCli(process_));
    const workerStderr = [victim, ...workers].flatMap((worker) => worker.stderr.join('').split('\n').filter((line) => line.trim() !== ''));

    const result = {
      machine: { ...machine, redis: redisVersion },
      config: { runs: RUNS, events_per_run: referenceKinds?.length ?? null, workers: WORKERS, concurrency: CONCURRENCY, lock_ms: LOCK_MS, drop_at: DROP_AT, kill_at: KILL_AT },
      unloaded: {
        runs: quiet.length,
        events: quietLatency.length,
        latency_ms: { p50: percentile(quietLatency, 50), p99: percentile(quietLatency, 99), max: quietLatency.at(-1) ?? NaN },
        lost_at_client: quietCheck.lost_at_client,
        duplicated_at_client: quietCheck.duplicated_at_client,
      },
      load: {
        runs: RUNS,
        events_delivered: delivered,
        wall_s: load.wallMs / 1000,
        events_per_s: delivered / (load.wallMs / 1000),
        raw_floor: floor,
        // events/s end to end over events/s of the raw floor (1 would be Redis's own rate).
        rate_vs_raw_floor: delivered / (load.wallMs / 1000) / floor.events_per_s,
        latency_ms: { p50: percentile(loadLatency, 50), p90: percentile(loadLatency, 90), p99: percentile(loadLatency, 99), max: loadLatency.at(-1) ?? NaN, median_of_run_medians: median(load.clients.map((c) => percentile(latencies([c]), 50))) },
        redis: {
          used_memory_delta_bytes: memoryAfter - memoryBefore,
          bytes_per_event: (memoryAfter - memoryBefore) / loadCheck.stored,
          streams_memory_usage_bytes_per_event: streamBytes / loadCheck.stored,
          event_json_bytes_per_event: eventJsonBytes / loadCheck.stored,
        },
        cpu_ms_per_1000_events: Object.fromEntries(Object.entries(cpu).map(([name, ms]) => [name.replace(/_ms$/, ''), Number(((ms * 1000) / delivered).toFixed(1))])),
        runs_per_worker: runsPerWorker,
        worker_loop_delay_max_ms: loopDelays(join(dir, 'loop'), load.startedAt, load.startedAt + load.wallMs),
        timed_out: load.timedOut,
        check: withoutRuns(loadCheck),
        clis_running_after: loadClis,
        sse_handlers_hanging: loadHanging,
        readers_left_blocked: loadReaders,
        unexpected_closes: sum(load.clients.map((c) => c.unexpected)),
      },
      faults: {
        runs: RUNS,
        wall_s: faults.wallMs / 1000,
        timed_out: faults.timedOut,
        killed_worker: killed ? { pid: killed.pid, at_event: killed.at, runs_it_took: victimRuns, its_clis_running: killed.clis.length, runs_not_over: killed.open, clis_gone_after_ms: victimClisGoneMs } : null,
        clis_started: faultClisStarted.length,
        storms: waves,
        worker_loop_delay_max_ms: loopDelays(join(dir, 'loop'), faults.startedAt, faults.startedAt + faults.wallMs),
        drops_per_client: { min: Math.min(...faults.clients.map((c) => c.drops)), median: median(faults.clients.map((c) => c.drops)), max: Math.max(...faults.clients.map((c) => c.drops)) },
        connections: sum(faults.clients.map((c) => c.connections)),
        unexpected_closes: sum(faults.clients.map((c) => c.unexpected)),
        client_problems: [...new Set(faults.clients.flatMap((c) => c.problems))].slice(0, 5),
        check: withoutRuns(faultCheck),
        clis_running_after: faultClis,
        sse_handlers_hanging: faultHanging,
        readers_left_blocked: faultReaders,
      },
      cleanup: {
        workers_exited_on_sigterm: workersExitedOnSigterm,
        settled_ms: settledMs,
        clis_left_running: cliLeft.length,
        other_processes_left: otherLeft.map((process_) => process_.command.slice(0, 120)),
        worker_stderr_lines: workerStderr.length,
        // The errors the workers printed, by message (job ids left out): BullMQ's own among them.
        worker_errors: Object.fromEntries(
          [...workerStderr.filter((line) => /^\S*Error\b/.test(line)).reduce((counts, line) => {
            const message = line.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>').slice(0, 160);
            return counts.set(message, (counts.get(message) ?? 0) + 1);
          }, new Map<string, number>())],
        ),
        web_errors: web.errors.slice(0, 5),
      },
    };

    // The counts that must be 0.
    const must = (name: string, value: number) => value !== 0 && violations.push(`${name}: ${value}`);
    must('unloaded: lost at the client', quietCheck.lost_at_client + quietCheck.different_at_client);
    must('unloaded: duplicated at the client', quietCheck.duplicated_at_client);
    for (const [name, c] of [['load', loadCheck], ['faults', faultCheck]] as const) {
      must(`${name}: lost at the client`, c.lost_at_client);
      must(`${name}: duplicated at the client`, c.duplicated_at_client);
      must(`${name}: different at the client`, c.different_at_client);
      must(`${name}: streams not ended`, c.streams_not_ended);
      must(`${name}: entries after a stream's end`, c.entries_after_end);
      must(`${name}: runs with another ending`, c.other_ending);
      must(`${name}: completed runs not whole`, c.completed_not_whole);
      must(`${name}: worker_lost runs with gaps`, c.lost_with_gaps);
    }
    must('load: runs not completed', RUNS - loadCheck.completed);
    must('load: timed out', Number(load.timedOut));
    must('faults: timed out', Number(faults.timedOut));
    must('faults: runs ended worker_lost beyond those the killed worker took', Math.max(0, faultCheck.worker_lost - victimRuns));
    // Without retry a run's CLI starts once: on the worker that took it first.
    must('faults: CLIs started other than one per run (a run run twice, or never)', Math.abs(faultClisStarted.length - RUNS));
    must('load: CLIs started other than one per run', Math.abs(startedClis(loadPids).length - RUNS));
    must('CLIs running after the load', loadClis);
    must('CLIs running after the faults', faultClis);
    must('CLIs left running after everything stopped', cliLeft.length);
    must('other processes left after everything stopped', otherLeft.length);
    must('SSE handlers hanging', loadHanging.count + faultHanging.count);
    must('Redis readers left blocked', loadReaders + faultReaders);
    if (!killed) violations.push('faults: the worker was never killed (the phase ended before KILL_AT)');
    else if (faultCheck.worker_lost === 0) violations.push('faults: the kill ended no run (all of its runs were over): not a fault under load');
    Object.assign(result, { violations });

    if (asJson) process.stdout.write(`${JSON.stringify(result)}\n`);
    else process.stdout.write(report(result, violations));
    return violations.length === 0 ? 0 : 1;
  } finally {
    // Whatever happened: what this bench started is stopped, by pid.
    if (web) {
      web.server.closeAllConnections();
      web.server.close();
    }
    await store?.close().catch(() => {});
    for (const worker of workers) await stop(worker.child, 5000);
    const stray = killTagged();
    if (stray > 0) log(`bench/scale: killed ${stray} left-over process(es) the workers had started`);
    client?.disconnect();
    if (redis) await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const withoutRuns = ({ stored_runs: _, ...rest }: Check & { stored_runs: unknown }) => rest;

 
function report(r: any, violations: string[]): string {
  const n = (value: number, digits = 0) => (Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a');
  const zero = (value: number) => `${value}${value === 0 ? '' : '  ← must be 0'}`;
  const hanging = (h: { count: number; client_gone: number; waiting_for_drain: number }) => `${zero(h.count)}${h.count ? ` (client gone: ${h.client_gone}, waiting for 'drain': ${h.waiting_for_drain})` : ''}`;
  const c = (check: Check) => [
    `  events lost at the client: ${zero(check.lost_at_client)}; duplicated: ${zero(check.duplicated_at_client)}; different from the stream: ${zero(check.different_at_client)} (${n(check.received)} received, ${n(check.stored)} stored)`,
    `  streams: ${check.completed} completed (${zero(check.completed_not_whole)} not whole, ${zero(check.lost_upstream)} CLI events missing), ${check.worker_lost} worker_lost (${zero(check.lost_with_gaps)} with gaps), ${zero(check.other_ending)} other; not ended: ${zero(check.streams_not_ended)}; entries after the end: ${zero(check.entries_after_end)}`,
  ];
  const { machine: m, load, faults, unloaded, cleanup } = r;
  return [
    `scaling out on Redis: ${r.config.runs} runs × ${n(r.config.events_per_run)} events, ${r.config.workers} worker processes × ${r.config.concurrency}, lock ${r.config.lock_ms} ms`,
    `machine: ${m.cpus} × ${m.cpu_model}, ${m.memory_gb} GB, load average ${m.loadavg_at_start.join(' ')} at the start; node ${m.node}, redis ${m.redis}. Shared cores: absolute figures are noisy; the counts are the point.`,
    '',
    `unloaded (${unloaded.runs} runs one at a time, a line every 2 ms, ${n(unloaded.events)} events): latency CLI line → SSE client p50 ${n(unloaded.latency_ms.p50)} ms, p99 ${n(unloaded.latency_ms.p99)} ms, max ${n(unloaded.latency_ms.max)} ms; lost ${zero(unloaded.lost_at_client)}, duplicated ${zero(unloaded.duplicated_at_client)}`,
    '',
    `load (all runs posted at once, CLIs printing at full speed):`,
    `  ${n(load.events_delivered)} events in ${n(load.wall_s, 1)} s: ${n(load.events_per_s)} events/s end to end (CLI stdout → worker → Redis → web → SSE client)`,
    `  raw floor: the same ${n(load.raw_floor.events)} events' JSON XADDed and read back with plain ioredis (as the store batches them) in ${n(load.raw_floor.wall_s, 2)} s: ${n(load.raw_floor.events_per_s)} events/s; end to end / raw floor: ${n(load.rate_vs_raw_floor, 2)}×`,
    `  latency CLI line → SSE client: p50 ${n(load.latency_ms.p50)} ms, p90 ${n(load.latency_ms.p90)} ms, p99 ${n(load.latency_ms.p99)} ms, max ${n(load.latency_ms.max)} ms (a backlog: every CLI prints its whole run at once)`,
    `  Redis: used_memory +${n(load.redis.used_memory_delta_bytes / 2 ** 20, 1)} MB = ${n(load.redis.bytes_per_event)} bytes per event stored; the streams alone (MEMORY USAGE) ${n(load.redis.streams_memory_usage_bytes_per_event)} bytes per event; the events' JSON ${n(load.redis.event_json_bytes_per_event)} bytes`,
    `  CPU ms per 1,000 events: ${Object.entries(load.cpu_ms_per_1000_events).map(([name, ms]) => `${name.replace(/_/g, ' ')} ${ms}`).join(', ')}`,
    `  runs per worker: ${load.runs_per_worker.join(' + ')}; CLIs running after: ${zero(load.clis_running_after)}; SSE handlers hanging: ${hanging(load.sse_handlers_hanging)}; Redis readers left blocked: ${zero(load.readers_left_blocked)}`,
    `  longest event-loop delay of each worker during the phase: ${Object.values(load.worker_loop_delay_max_ms).map((ms) => `${n(ms as number)} ms`).join(', ')} (its hold on a run, ${r.config.lock_ms} ms, is renewed about every ${r.config.lock_ms / 2} ms)`,
    ...c(load.check),
    ...load.check.anomalies.map((line: string) => `    ${line}`),
    '',
    `faults (the same load; ${faults.storms.length} reconnect storms, a worker SIGKILLed): ${n(faults.wall_s, 1)} s`,
    faults.killed_worker
      ? `  worker ${faults.killed_worker.pid} (${faults.killed_worker.runs_it_took} runs taken) SIGKILLed at ${n(faults.killed_worker.at_event)} events received, ${faults.killed_worker.runs_not_over ?? '?'} runs of both workers not over, ${faults.killed_worker.its_clis_running} of its CLIs running: they were gone ${n(faults.killed_worker.clis_gone_after_ms)} ms later (its watchdog); CLIs started in the phase: ${zero(faults.clis_started - r.config.runs)} more or fewer than runs`
      : '  the worker was never killed',
    `  storms: ${faults.storms.map((wave: { at: number; dropped: number }) => `${wave.dropped} clients at ${n(wave.at)}`).join('; ')}; drops per client min ${faults.drops_per_client.min}, median ${faults.drops_per_client.median}, max ${faults.drops_per_client.max}; ${n(faults.connections)} connections; ${faults.unexpected_closes} closed by the server before the end`,
    `  longest event-loop delay of each worker during the phase: ${Object.values(faults.worker_loop_delay_max_ms).map((ms) => `${n(ms as number)} ms`).join(', ')}`,
    ...c(faults.check),
    ...faults.check.anomalies.map((line: string) => `    ${line}`),
    `  CLIs running after: ${zero(faults.clis_running_after)}; SSE handlers hanging: ${hanging(faults.sse_handlers_hanging)}; Redis readers left blocked: ${zero(faults.readers_left_blocked)}`,
    '',
    `after everything stopped (web closed, workers SIGTERMed: exited in time ${cleanup.workers_exited_on_sigterm.join(', ')}): CLIs left running ${zero(cleanup.clis_left_running)}; other processes left ${zero(cleanup.other_processes_left.length)}${cleanup.other_processes_left.length ? ` (${cleanup.other_processes_left.join('; ')})` : ''}`,
    `workers' stderr: ${cleanup.worker_stderr_lines} lines${Object.keys(cleanup.worker_errors).length ? `; errors: ${Object.entries(cleanup.worker_errors).map(([message, count]) => `${count} × ${message}`).join('; ')}` : ''}; web errors: ${cleanup.web_errors.length}`,
    violations.length === 0 ? 'every count that must be 0 is 0' : `NOT 0: ${violations.join('; ')}`,
    '',
  ].join('\n');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`bench/scale failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
