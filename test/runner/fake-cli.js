#!/usr/bin/env node
/*
 * A stand-in CLI for the runner's unit tests (no real CLI needed). What it does is set by
 * environment variables, in this order:
 *   FAKE_IGNORE_TERM  ignore SIGTERM (from the start)
 *   FAKE_ARGV_FILE    write JSON of its argv (after the executable) there
 *   FAKE_ENV_FILE     write JSON of its environment there
 *   FAKE_STDIN_FILE   read stdin to its end and write it there (before anything else is printed)
 *   FAKE_STDERR       write this to stderr first
 *   FAKE_FIXTURE      print this file's text FAKE_REPEAT times (default 1) to stdout
 *   FAKE_DONE_FILE    create this file once everything printed is in the pipe
 *   FAKE_STDERR_AFTER write this to stderr after stdout
 *   FAKE_CHILD        start `sleep 300`: "group" in its process group, "setsid" in a session of its
 *                     own (as Gemini's run_shell_command does); its pid goes to FAKE_CHILD_PID_FILE
 *   FAKE_CHILD_TERM_FILE  with FAKE_CHILD: the child is a node process that, once ready, writes its pid
 *                     to FAKE_CHILD_PID_FILE itself, and on SIGTERM writes this file and runs on
 *   FAKE_HANG         keep running until killed
 *   FAKE_EXIT         exit with this code (default 0)
 */
const { spawn } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');

const env = process.env;
/** The FAKE_CHILD_TERM_FILE child: notes a SIGTERM and runs on; its pid file says its handler is in place. */
const NOTING_CHILD = `
const { writeFileSync } = require('node:fs');
process.on('SIGTERM', () => writeFileSync(process.env.FAKE_CHILD_TERM_FILE, 'SIGTERM'));
writeFileSync(process.env.FAKE_CHILD_PID_FILE, String(process.pid));
setInterval(() => {}, 1000);
`;
// First, so that no signal can come before it.
if (env.FAKE_IGNORE_TERM) process.on('SIGTERM', () => {});
if (env.FAKE_ARGV_FILE) writeFileSync(env.FAKE_ARGV_FILE, JSON.stringify(process.argv.slice(2)));
if (env.FAKE_ENV_FILE) writeFileSync(env.FAKE_ENV_FILE, JSON.stringify(process.env));
if (env.FAKE_STDIN_FILE) writeFileSync(env.FAKE_STDIN_FILE, readFileSync(0));
if (env.FAKE_STDERR) process.stderr.write(env.FAKE_STDERR);
function afterStdout() {
  if (env.FAKE_DONE_FILE) writeFileSync(env.FAKE_DONE_FILE, 'done');
  if (env.FAKE_STDERR_AFTER) process.stderr.write(env.FAKE_STDERR_AFTER);
  if (env.FAKE_CHILD) {
    const [command, args] = env.FAKE_CHILD_TERM_FILE ? [process.execPath, ['-e', NOTING_CHILD]] : ['sleep', ['300']];
    const child = spawn(command, args, { stdio: 'ignore', detached: env.FAKE_CHILD === 'setsid' });
    child.unref();
    if (env.FAKE_CHILD_PID_FILE && !env.FAKE_CHILD_TERM_FILE) writeFileSync(env.FAKE_CHILD_PID_FILE, String(child.pid));
  }
  if (env.FAKE_HANG) setInterval(() => {}, 1000);
  else process.exitCode = Number(env.FAKE_EXIT || 0);
}

if (env.FAKE_FIXTURE) {
  const text = readFileSync(env.FAKE_FIXTURE, 'utf8');
  const repeat = Number(env.FAKE_REPEAT || 1);
  for (let i = 1; i < repeat; i += 1) process.stdout.write(text);
  // The last write's callback runs once everything is handed to the pipe: a reader that stops
  // reading keeps it from running (FAKE_DONE_FILE is then never written).
  process.stdout.write(text, afterStdout);
} else {
  afterStdout();
}
