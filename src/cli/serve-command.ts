// The package root first: it loads reflect-metadata before any decorated class.
import { createRunsHandler, createWorker, openRunStore } from '../index';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CliIo } from './io';

/** Options of `serve` and `worker`. */
export interface ServeOptions {
  /** A Redis URL: runs shared with other processes; absent, this process holds them. */
  redis?: string;
  /** serve: the address; default 127.0.0.1. */
  host: string;
  /** serve: the port; default 8787 (0: a free one). */
  port: number;
  /** How many runs at once in this process (serve without Redis, worker). */
  concurrency: number;
  /** serve: where the CLIs of runs started over HTTP run (the request never says). */
  cwd?: string;
  /** How long a worker's hold on a run lasts without renewal (a dead worker's runs are noticed after it), in ms. */
  lockMs?: number;
  /** How long a finished run's stream stays readable, in seconds (the store's default when absent). */
  ttlSeconds?: number;
}

/**
 * `serve [--redis URL] [--host H] [--port P] [--concurrency N] [--cwd DIR]`: the runs API and its
 * page over HTTP. Without Redis it also runs the runs, in this process; with Redis, workers
 * (`cli-subprocess-core worker`) do. Prints the address; stops on SIGINT and SIGTERM (its own runs
 * stopped with it), exit 0.
 */
export async function serveCommand(options: ServeOptions, io: CliIo, signals: NodeJS.EventEmitter = process): Promise<number> {
  const store = storeOf(options);
  const worker = options.redis ? null : createWorker(store, { concurrency: options.concurrency });
  const handle = createRunsHandler(store, { jobDefaults: options.cwd ? { cwd: options.cwd } : {} });
  const server = createServer((request, response) => {
    handle(request, response).then(
      (handled) => {
        if (handled) return;
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: 'not found' }));
      },
      (error: unknown) => {
        io.stderr.write(`cli-subprocess-core: ${(error as Error).message}\n`);
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: 'internal error' }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  io.stdout.write(`cli-subprocess-core serve: http://${address}:${port}/ (${options.redis ? `runs on Redis ${options.redis}` : `runs in this process, ${options.concurrency} at a time`})\n`);
  await stopped(signals);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await worker?.close();
  await store.close();
  return 0;
}

/**
 * `worker --redis URL [--concurrency N]`: takes runs from Redis and runs them on this machine until
 * SIGINT or SIGTERM (the runs it holds are stopped with it; exit 0).
 */
export async function workerCommand(options: ServeOptions, io: CliIo, signals: NodeJS.EventEmitter = process): Promise<number> {
  const store = storeOf(options);
  const worker = createWorker(store, { concurrency: options.concurrency });
  io.stdout.write(`cli-subprocess-core worker: taking runs from ${options.redis ?? ''}, ${options.concurrency} at a time\n`);
  await stopped(signals);
  await worker.close();
  await store.close();
  return 0;
}

function stopped(signals: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      signals.off('SIGINT', stop);
      signals.off('SIGTERM', stop);
      resolve();
    };
    signals.on('SIGINT', stop);
    signals.on('SIGTERM', stop);
  });
}

/** The run store the options name: on Redis with `redis`, else in this process. */
function storeOf(options: ServeOptions): ReturnType<typeof openRunStore> {
  return openRunStore({ redis: options.redis, lockMs: options.lockMs, ttlSeconds: options.ttlSeconds });
}
