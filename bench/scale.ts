/**
 * Scaling out under load (#21): what the whole path costs, measured. Runs queued over HTTP on a real
 * Redis, run by worker processes, read back by SSE clients: the rig of e2e/test/load-harness.ts.
 *   node -r ts-node/register/transpile-only bench/scale.ts [--json]
 * What must hold under the same load and under faults (no event lost, duplicated or out of order, no
 * process left, a killed worker's runs ended once) is asserted by e2e/test/scale-load.spec.ts; this
 * bench only measures, and reports its figures, never asserting them (a shared machine's absolute
 * figures are noisy: compare the ratio).
 * Phases:
 * 1. unloaded: a few runs of a short capture printed one line every 2 ms, one at a time: the latency
 *    of the pipeline without a backlog;
 * 2. load: BENCH_RUNS runs (default 50) of BENCH_EVENTS_PER_RUN events (default 2,000) posted at once,
 *    their CLIs printing at full speed, one SSE client each to `event: end`: events/s end to end,
 *    latency from a CLI's line (its event's `timestamp`, stamped by the worker when it read the line)
 *    to the client, Redis memory per event, CPU per event of each process, each worker's longest
 *    event-loop delay;
 * 3. the raw floor, in the same run (the workers idle): the load phase's events' JSON XADDed and read
 *    back with plain ioredis, batched as the store does (`rawFloor`); then the rate end to end over the
 *    floor's (`load.rate_vs_raw_floor`);
 * 4. conversations: BENCH_SESSIONS sessions (default 50) of BENCH_TURNS turns (default 5) at once over
 *    the workers, each message sent once the last turn's result reached its client (a Claude Code
 *    two-turn capture played on): turns/s, each turn's time (message posted → its result received),
 *    and what was lost, duplicated or reordered, left running, or played by a worker other than the
 *    one holding its session's CLI (each such turn would have started a CLI there).
 * BENCH_RUNS, BENCH_EVENTS_PER_RUN, BENCH_WORKERS (2), BENCH_CONCURRENCY (25), BENCH_LOCK_MS (5000)
 * and BENCH_PHASE_TIMEOUT_MS (300,000) adjust a run. Needs redis-server (skipped without it) and /proc
 * (Linux). The exit code is 1 only when it could not measure (a phase timed out, a run did not complete).
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { median } from './measure';
import {
  checkConversations,
  delivered,
  EVENTS_BESIDES_CHUNKS,
  latencies,
  readStored,
  rigFile,
  runConversations,
  runPhase,
  startedClis,
  startRig,
  waitUntil,
  writeCapture,
  writeConversationWire,
  type Rig,
} from '../e2e/test/load-harness';

const asJson = process.argv.includes('--json');
const RUNS = Number(process.env.BENCH_RUNS) || 50;
const EVENTS_PER_RUN = Number(process.env.BENCH_EVENTS_PER_RUN) || 2000;
const WORKERS = Number(process.env.BENCH_WORKERS) || 2;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY) || 25;
/** A worker's hold on a run (the store's default is 15 s). */
const LOCK_MS = Number(process.env.BENCH_LOCK_MS) || 5000;
const PHASE_TIMEOUT_MS = Number(process.env.BENCH_PHASE_TIMEOUT_MS) || 300_000;
const SESSIONS = Number(process.env.BENCH_SESSIONS) || 50;
const TURNS = Number(process.env.BENCH_TURNS) || 5;
const log = (text: string) => process.stderr.write(`${text}\n`);

/**
 * Preloaded into each worker (`node -r`): every 250 ms it appends `<time> <longest event-loop delay
 * in that window, ms>` to $CSC_BENCH_LOOP_DIR/<pid>. A delay near the lock lets a worker's hold on
 * a run lapse (it is renewed about every lockMs/2).
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

/** The longest event-loop delay of each worker (by pid) within [from, to], ms. */
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

let ticksPerSecond = 100;
try {
  ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // the usual value
}

/** CPU of a process and of its reaped children, ms (/proc/<pid>/stat utime+stime, cutime+cstime: the process table reads no CPU). */
function cpuOf(pid: number): { own: number; children: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const ms = (a: string, b: string) => ((Number(a) + Number(b)) * 1000) / ticksPerSecond;
    return { own: ms(fields[11], fields[12]), children: ms(fields[13], fields[14]) };
  } catch {
    return { own: 0, children: 0 };
  }
}

async function redisInfo(redis: Redis, section: string, field: string): Promise<number> {
  const line = ((await redis.info(section)) as string).split('\r\n').find((entry) => entry.startsWith(`${field}:`));
  return Number(line?.slice(field.length + 1));
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

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
 * marker). No CLI, no decoding, no parsing, no HTTP: the rate end to end cannot beat it on this Redis.
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
        const reply = (await readers[i].xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', key, cursor)) as
          [string, [string, string[]][]][] | null;
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

function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function measure(rig: Rig, loopDir: string) {
  const chunks = Math.max(2, EVENTS_PER_RUN - EVENTS_BESIDES_CHUNKS);
  const capture = rigFile(rig, 'wire-load.jsonl');
  writeCapture(capture, chunks);
  const shortCapture = rigFile(rig, 'wire-short.jsonl');
  writeCapture(shortCapture, 200);
  const redisVersion = String((await rig.client.info('server')).match(/redis_version:(\S+)/)?.[1]);

  log('phase 1/4: unloaded latency (one run at a time, a line every 2 ms)');
  rig.use(shortCapture, rigFile(rig, 'pids-unloaded'), { REPLAY_DELAY_MS: '2' });
  const quiet = [];
  for (let i = 0; i < 4; i++) quiet.push(...(await runPhase(rig, 'unloaded', 1, PHASE_TIMEOUT_MS)).clients);
  const quietLatency = latencies(quiet);

  log(`phase 2/4: load: ${RUNS} runs of ${EVENTS_PER_RUN} events at full speed`);
  const loadPids = rigFile(rig, 'pids-load');
  rig.use(capture, loadPids);
  const memoryBefore = await redisInfo(rig.client, 'memory', 'used_memory');
  const cpuOfAll = () => ({
    workers: rig.workers.map((worker) => cpuOf(worker.pid)),
    redis: cpuOf(rig.redis.child.pid as number),
    self: process.cpuUsage(),
  });
  const cpuBefore = cpuOfAll();
  const load = await runPhase(rig, 'load', RUNS, PHASE_TIMEOUT_MS);
  const cpuAfter = cpuOfAll();
  const memoryAfter = await redisInfo(rig.client, 'memory', 'used_memory');
  const loadLatency = latencies(load.clients);
  const stored = await Promise.all(load.clients.map((client) => readStored(rig.client, client.runId)));
  const storedEvents = stored.reduce((sum, run) => sum + run.entries.length, 0);
  let streamBytes = 0;
  for (const client of load.clients)
    streamBytes += Number(await rig.client.memory('USAGE', `csc:run:${client.runId}:events`, 'SAMPLES', '0')) || 0;
  const eventJsonBytes = stored.reduce((sum, run) => sum + run.entries.reduce((s, entry) => s + Buffer.byteLength(entry.json), 0), 0);
  const events = delivered(load.clients);
  const sumOf = (pick: (after: { own: number; children: number }, before: { own: number; children: number }) => number) =>
    cpuAfter.workers.reduce((sum, after, i) => sum + pick(after, cpuBefore.workers[i]), 0);
  const cpu = {
    workers: sumOf((after, before) => after.own - before.own),
    clis: sumOf((after, before) => after.children - before.children),
    redis: cpuAfter.redis.own - cpuBefore.redis.own,
    web_and_clients: (cpuAfter.self.user + cpuAfter.self.system - cpuBefore.self.user - cpuBefore.self.system) / 1000,
  };
  const completed = stored.filter((run) => {
    const last = run.entries.at(-1);
    return last !== undefined && (JSON.parse(last.json) as { kind: string; payload: { status?: string } }).payload.status === 'completed';
  }).length;

  log("phase 3/4: the raw floor: the load phase's events XADDed and read back with plain ioredis");
  const floor = await rawFloor(
    rig.redis.url,
    stored.map((run) => run.entries),
  );
  const endToEnd = events / (load.wallMs / 1000);

  log(`phase 4/4: conversations: ${SESSIONS} sessions of ${TURNS} turns at once`);
  const conversationPids = rigFile(rig, 'pids-conversations');
  const conversationWire = rigFile(rig, 'wire-conversation.jsonl');
  writeConversationWire(conversationWire, TURNS);
  rig.use(conversationWire, conversationPids);
  const talk = await runConversations(rig, SESSIONS, TURNS, PHASE_TIMEOUT_MS);
  const talked = await checkConversations(rig.client, talk.clients);
  const isCli = (left: { command: string }) => left.command.includes('replay-agent.js');
  await waitUntil(() => rig.tagged().filter(isCli).length === 0, 10_000);
  const clisStarted = startedClis(conversationPids);

  return {
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? 'unknown',
      memory_gb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      redis: redisVersion,
    },
    config: { runs: RUNS, events_per_run: chunks + EVENTS_BESIDES_CHUNKS, workers: WORKERS, concurrency: CONCURRENCY, lock_ms: LOCK_MS },
    unloaded: {
      runs: quiet.length,
      events: quietLatency.length,
      latency_ms: { p50: percentile(quietLatency, 50), p99: percentile(quietLatency, 99), max: quietLatency.at(-1) ?? NaN },
    },
    load: {
      runs: RUNS,
      completed,
      events_delivered: events,
      wall_s: load.wallMs / 1000,
      events_per_s: endToEnd,
      raw_floor: floor,
      // events/s end to end over events/s of the raw floor (1 would be Redis's own rate).
      rate_vs_raw_floor: endToEnd / floor.events_per_s,
      latency_ms: {
        p50: percentile(loadLatency, 50),
        p90: percentile(loadLatency, 90),
        p99: percentile(loadLatency, 99),
        max: loadLatency.at(-1) ?? NaN,
        median_of_run_medians: median(load.clients.map((c) => percentile(latencies([c]), 50))),
      },
      redis: {
        used_memory_delta_bytes: memoryAfter - memoryBefore,
        bytes_per_event: (memoryAfter - memoryBefore) / storedEvents,
        streams_memory_usage_bytes_per_event: streamBytes / storedEvents,
        event_json_bytes_per_event: eventJsonBytes / storedEvents,
      },
      cpu_ms_per_1000_events: Object.fromEntries(
        Object.entries(cpu).map(([name, ms]) => [name, Number(((ms * 1000) / events).toFixed(1))]),
      ),
      runs_per_worker: rig.workers.map((worker) => startedClis(loadPids).filter((cli) => cli.ppid === worker.pid).length),
      worker_loop_delay_max_ms: loopDelays(loopDir, load.startedAt, load.startedAt + load.wallMs),
      timed_out: load.timedOut,
    },
    conversations: {
      sessions: SESSIONS,
      turns_per_session: TURNS,
      turns_completed: talked.turns_completed,
      wall_s: talk.wallMs / 1000,
      turns_per_s: talked.turns_completed / (talk.wallMs / 1000),
      turn_ms: { p50: percentile(talk.turnMs, 50), p90: percentile(talk.turnMs, 90), max: talk.turnMs.at(-1) ?? NaN },
      events_lost: talked.lost_at_client,
      events_duplicated_or_out_of_order: talked.duplicated_at_client,
      events_different: talked.different_at_client,
      streams_not_ended: talked.streams_not_ended,
      processes_left: rig.tagged().filter(isCli).length,
      // A CLI per session: a turn played by a worker not holding its session's CLI would have started another.
      turns_routed_elsewhere: clisStarted.length - SESSIONS,
      sessions_per_worker: rig.workers.map((worker) => clisStarted.filter((cli) => cli.ppid === worker.pid).length),
      timed_out: talk.timedOut,
    },
  };
}

type Result = Awaited<ReturnType<typeof measure>>;

function report(r: Result): string {
  const n = (value: number, digits = 0) =>
    Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';
  const { machine: m, load, unloaded } = r;
  return [
    `scaling out on Redis: ${r.config.runs} runs × ${n(r.config.events_per_run)} events, ${r.config.workers} worker processes × ${r.config.concurrency}, lock ${r.config.lock_ms} ms`,
    `machine: ${m.cpus} × ${m.cpu_model}, ${m.memory_gb} GB; node ${m.node}, redis ${m.redis}. Shared cores: absolute figures are noisy; compare the ratio.`,
    '',
    `unloaded (${unloaded.runs} runs one at a time, a line every 2 ms, ${n(unloaded.events)} events): latency CLI line → SSE client p50 ${n(unloaded.latency_ms.p50)} ms, p99 ${n(unloaded.latency_ms.p99)} ms, max ${n(unloaded.latency_ms.max)} ms`,
    '',
    `load (all runs posted at once, CLIs printing at full speed; ${load.completed} of ${load.runs} runs completed${load.timed_out ? ', TIMED OUT' : ''}):`,
    `  ${n(load.events_delivered)} events in ${n(load.wall_s, 1)} s: ${n(load.events_per_s)} events/s end to end (CLI stdout → worker → Redis → web → SSE client)`,
    `  raw floor: the same ${n(load.raw_floor.events)} events' JSON XADDed and read back with plain ioredis (as the store batches them) in ${n(load.raw_floor.wall_s, 2)} s: ${n(load.raw_floor.events_per_s)} events/s; end to end / raw floor: ${n(load.rate_vs_raw_floor, 2)}×`,
    `  latency CLI line → SSE client: p50 ${n(load.latency_ms.p50)} ms, p90 ${n(load.latency_ms.p90)} ms, p99 ${n(load.latency_ms.p99)} ms, max ${n(load.latency_ms.max)} ms (a backlog: every CLI prints its whole run at once)`,
    `  Redis: used_memory +${n(load.redis.used_memory_delta_bytes / 2 ** 20, 1)} MB = ${n(load.redis.bytes_per_event)} bytes per event stored; the streams alone (MEMORY USAGE) ${n(load.redis.streams_memory_usage_bytes_per_event)} bytes per event; the events' JSON ${n(load.redis.event_json_bytes_per_event)} bytes`,
    `  CPU ms per 1,000 events: ${Object.entries(load.cpu_ms_per_1000_events)
      .map(([name, ms]) => `${name.replace(/_/g, ' ')} ${ms}`)
      .join(', ')}`,
    `  runs per worker: ${load.runs_per_worker.join(' + ')}; longest event-loop delay of each worker: ${Object.values(
      load.worker_loop_delay_max_ms,
    )
      .map((ms) => `${n(ms)} ms`)
      .join(', ')} (its hold on a run, ${r.config.lock_ms} ms, is renewed about every ${r.config.lock_ms / 2} ms)`,
    '',
    `conversations (${r.conversations.sessions} sessions × ${r.conversations.turns_per_session} turns at once${r.conversations.timed_out ? ', TIMED OUT' : ''}): ${r.conversations.turns_completed} turns completed in ${n(r.conversations.wall_s, 1)} s, ${n(r.conversations.turns_per_s, 1)} turns/s; a turn (message posted → its result received) p50 ${n(r.conversations.turn_ms.p50)} ms, p90 ${n(r.conversations.turn_ms.p90)} ms, max ${n(r.conversations.turn_ms.max)} ms`,
    `  events lost ${r.conversations.events_lost}, duplicated or out of order ${r.conversations.events_duplicated_or_out_of_order}, different ${r.conversations.events_different}; streams not ended ${r.conversations.streams_not_ended}; processes left ${r.conversations.processes_left}; turns played by a worker not holding the session's CLI ${r.conversations.turns_routed_elsewhere}; sessions per worker ${r.conversations.sessions_per_worker.join(' + ')}`,
    '',
  ].join('\n');
}

async function main(): Promise<number> {
  if (!hasRedisServer()) {
    const why = 'redis-server is not installed (apt-get install -y redis-server): the scale bench is skipped';
    if (asJson) process.stdout.write(`${JSON.stringify({ skipped: why })}\n`);
    else log(why);
    return 0;
  }
  const loadavgAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  // The loop monitor's files live outside the rig (it is written before the workers start).
  const monitorDir = join(tmpdir(), `csc-bench-loop-${randomUUID()}`);
  mkdirSync(join(monitorDir, 'loop'), { recursive: true });
  writeFileSync(join(monitorDir, 'loop-monitor.js'), LOOP_MONITOR);
  process.env.CSC_BENCH_LOOP_DIR = join(monitorDir, 'loop');
  log(`starting redis-server and ${WORKERS} workers (concurrency ${CONCURRENCY}, lock ${LOCK_MS} ms)`);
  const rig = await startRig({ workers: WORKERS, concurrency: CONCURRENCY, lockMs: LOCK_MS, preload: join(monitorDir, 'loop-monitor.js') });
  const stopAll = () => void rig.close().finally(() => process.exit(130));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stopAll);
  try {
    const result = await measure(rig, join(monitorDir, 'loop'));
    const withMachine = { ...result, machine: { ...result.machine, loadavg_at_start: loadavgAtStart } };
    if (asJson) process.stdout.write(`${JSON.stringify(withMachine)}\n`);
    else process.stdout.write(report(withMachine));
    return result.load.timed_out || result.load.completed !== RUNS || result.conversations.timed_out ? 1 : 0;
  } finally {
    await rig.close();
    rmSync(monitorDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`bench/scale failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
