/*
 * A host process for the host-exit tests (host-exit.spec.ts): it starts one run of the stand-in CLI
 * (fake-cli.js) through the library at HOST_LIB (src/, with ts-node registered, or a build), prints
 * one JSON line once the CLI has started its `sleep`, and then waits for what the test does to it.
 *
 *   HOST_LIB          the library's root: its index and runner/host-exit are required from there
 *   HOST_CLI_ENV      JSON: the stand-in CLI's FAKE_* variables
 *   HOST_GRACE_MS     the run's killGraceMs (default 500)
 *   HOST_SIGINT       "own": a SIGINT listener of the host's own, which prints {"sigint":true} and keeps running
 *   HOST_SIGNAL_EXIT  "1": signal-exit (a library many hosts load) is loaded first; its exit callback prints {"signalExit":…}
 *   HOST_ON_USR2      what SIGUSR2 does: "throw" an uncaught exception, "abort" the run and let the host end by itself
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Library = typeof import('../../src');
type HostExit = typeof import('../../src/runner/host-exit');

const env = process.env;
const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value)}\n`);

if (env.HOST_SIGNAL_EXIT === '1') {
  const onExit = require('signal-exit') as (callback: (code: number | null, signal: string | null) => void) => void;
  onExit((code, signal) => print({ signalExit: { code, signal } }));
}
if (env.HOST_SIGINT === 'own') {
  process.on('SIGINT', () => {
    print({ sigint: true });
    // After every listener of this signal has run (the library's too): the host is still here.
    setImmediate(() => print({ alive: true }));
  });
}

const lib = env.HOST_LIB as string;
const { startRun } = require(lib) as Library;
const { watchdogPid } = require(join(lib, 'runner/host-exit')) as HostExit;

const cliEnv = JSON.parse(env.HOST_CLI_ENV ?? '{}') as Record<string, string>;
const run = startRun({
  provider: 'claude',
  prompt: 'hi',
  executable: join(__dirname, 'fake-cli.js'),
  killGraceMs: Number(env.HOST_GRACE_MS ?? 500),
  env: cliEnv,
});

void (async () => {
  for await (const event of run) void event;
  print({ done: (await run.done).status });
})();

const onUsr2 = (): void => {
  if (env.HOST_ON_USR2 === 'throw') throw new Error('an uncaught exception in the host');
  process.removeListener('SIGUSR2', onUsr2);
  run.abort('the host is done');
};
process.on('SIGUSR2', onUsr2);

const pidFile = cliEnv.FAKE_CHILD_PID_FILE;
const ready = setInterval(() => {
  if (pidFile && !existsSync(pidFile)) return;
  const sleep = pidFile ? Number(readFileSync(pidFile, 'utf8')) : null;
  if (sleep === 0) return; // written but not yet flushed
  clearInterval(ready);
  print({ cli: run.pid, sleep, watchdog: watchdogPid() });
}, 10);
