#!/usr/bin/env node
import { run } from './run';

// A reader that stops early (`… | head`) closes the pipe: stop quietly, as other CLIs do. The run
// command listens too and handles it itself: it has a CLI to stop before this process may exit.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (process.stdout.listenerCount('error') > 1) return;
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

run(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  progress: process.stderr.isTTY ? process.stderr : undefined,
}).then(
  (code) => {
    // exitCode rather than exit(): pending output to a pipe is still written.
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`cli-subprocess-core: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 70;
  },
);
