// The package root first: it loads reflect-metadata before any decorated class.
import { createRunsHandler, createWorker, openRunStore } from '../index';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AccessOptions } from '../http/access';
import type { JobDefaults, RequestAllowance } from '../scale/request-policy';
import type { CliIo } from './io';

/** Options of `serve` and `worker`. */
export interface ServeOptions {
  /** A Redis URL: runs shared with other processes; absent, this process holds them. */
  redis?: string;
  /** serve without Redis: the directory its runs are kept in (made 0700 when missing). */
  dataDir?: string;
  /** serve: the address; default 127.0.0.1. */
  host: string;
  /** serve: the port; default 8787 (0: a free one). */
  port: number;
  /** How many runs at once in this process (serve without Redis, worker). */
  concurrency: number;
  /** How long a worker's hold on a run lasts without renewal (a dead worker's runs are noticed after it), in ms. */
  lockMs?: number;
  /** How long a finished run's stream (and its workspace) stays, in seconds (the store's default when absent). */
  ttlSeconds?: number;
  /** serve without Redis: how long a session's CLI is kept with no turn, in seconds. */
  idleSeconds?: number;
  /** serve: who may call (no token given: one is made at start and printed once). */
  access: AccessOptions & { allowedHosts: string[] };
  /** serve: what a request may choose. */
  allow: RequestAllowance;
  maxPromptBytes: number;
  maxQueued: number;
  maxRunsPerPrincipal: number;
  /** What every run gets from the operator: cwd, workspace, environment, limits. */
  jobDefaults: JobDefaults;
}

/**
 * `serve [options]`: the runs API and its page over HTTP. Without Redis it also runs the runs, in
 * this process; with Redis, workers (`cli-subprocess-core worker`) do. Safe with no flag: a token
 * (made at start when none is given, and printed once on stderr with the page's address), same-origin
 * only, requests may ask `ask` or `deny` only, CLIs get an allow-listed environment and a workspace
 * per run, and the limits of `scale/limits.ts`. Prints the address; stops on SIGINT and SIGTERM (its
 * own runs stopped with it), exit 0.
 */
export async function serveCommand(options: ServeOptions, io: CliIo, signals: NodeJS.EventEmitter = process): Promise<number> {
  const made = options.access.token === undefined && options.access.authenticate === undefined && !options.access.noAuth;
  const access: AccessOptions = made ? { ...options.access, token: randomBytes(24).toString('base64url') } : options.access;
  let store: ReturnType<typeof openRunStore>;
  try {
    store = storeOf(options);
  } catch (error) {
    // A data directory another serve holds, or one this user may not write.
    io.stderr.write(`cli-subprocess-core serve: ${(error as Error).message}\n`);
    return 1;
  }
  // Before any CLI can start: see stopSignal.
  const signal = stopSignal(signals);
  const worker = options.redis
    ? null
    : createWorker(store, {
        concurrency: options.concurrency,
        jobDefaults: options.jobDefaults,
        ttlSeconds: options.ttlSeconds,
        idleSeconds: options.idleSeconds,
      });
  const handle = createRunsHandler(store, {
    ...access,
    jobDefaults: options.jobDefaults,
    allow: options.allow,
    maxPromptBytes: options.maxPromptBytes,
    maxQueued: options.maxQueued,
    maxRunsPerPrincipal: options.maxRunsPerPrincipal,
    onError: (error) => io.stderr.write(`cli-subprocess-core: ${(error as Error).message}\n`),
  });
  const server = createServer((request, response) => {
    void handle(request, response).then((handled) => {
      if (handled) return;
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'not found' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  const base = `http://${address.includes(':') ? `[${address}]` : address}:${port}/`;
  const where = options.redis
    ? `runs on Redis ${options.redis}`
    : `runs in this process, ${options.concurrency} at a time, kept in ${options.dataDir ?? 'memory'}`;
  io.stdout.write(`cli-subprocess-core serve: ${base} (${where})\n`);
  if (access.noAuth)
    io.stderr.write('cli-subprocess-core serve: WARNING: --no-auth: any program on this machine can run agents through this server\n');
  // Printed once, never logged again: the page reads it from the fragment, which no request carries.
  if (made) io.stderr.write(`cli-subprocess-core serve: open ${base}#token=${access.token as string}\n`);
  await signal.stopped;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await worker?.close();
  await store.close();
  signal.dispose();
  return 0;
}

/**
 * `worker --redis URL [--concurrency N]`: takes runs from Redis and runs them on this machine until
 * SIGINT or SIGTERM (the runs it holds are stopped with it; exit 0).
 */
export async function workerCommand(options: ServeOptions, io: CliIo, signals: NodeJS.EventEmitter = process): Promise<number> {
  const store = storeOf(options);
  const signal = stopSignal(signals);
  const worker = createWorker(store, {
    concurrency: options.concurrency,
    jobDefaults: options.jobDefaults,
    ttlSeconds: options.ttlSeconds,
    idleSeconds: options.idleSeconds,
  });
  io.stdout.write(`cli-subprocess-core worker: taking runs from ${options.redis ?? ''}, ${options.concurrency} at a time\n`);
  await signal.stopped;
  await worker.close();
  await store.close();
  signal.dispose();
  return 0;
}

/**
 * Resolves at the first SIGINT or SIGTERM; the listeners stay until `dispose`, after the shutdown:
 * while a CLI runs, the runner's host-exit hook kills a host that no other listener handles the
 * signal for, and a listener removed at the first signal left serve killed by it mid-shutdown.
 */
function stopSignal(signals: NodeJS.EventEmitter): { stopped: Promise<void>; dispose(): void } {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  signals.on('SIGINT', stop);
  signals.on('SIGTERM', stop);
  return {
    stopped,
    dispose: () => {
      signals.off('SIGINT', stop);
      signals.off('SIGTERM', stop);
    },
  };
}

/** The run store the options name: on Redis with `redis`, else in this process. */
function storeOf(options: ServeOptions): ReturnType<typeof openRunStore> {
  return openRunStore({ redis: options.redis, dataDir: options.dataDir, lockMs: options.lockMs, ttlSeconds: options.ttlSeconds });
}
