#!/usr/bin/env node
/*
 * A stand-in for an interactive CLI in the session unit tests: it replays a wire capture of a real
 * CLI (test/fixtures/sessions/<cli>/wire-*.jsonl). Each JSON line the host writes on stdin moves the
 * replay to the capture's next host line, and the CLI lines recorded after that one (up to the next
 * host line) are printed. The host's own ids match the capture's when it asks in the same order, as
 * this library's clients do. Set by environment variables:
 *   REPLAY_WIRE    the capture to replay
 *   REPLAY_LOG     append every line the host wrote there (JSON lines)
 *   REPLAY_MUTE    a method (or Claude control subtype) to swallow without an answer: the CLI ignores it
 *   REPLAY_DIE_ON  a method (or subtype) at which the CLI dies (SIGKILL to itself) instead of answering
 *   REPLAY_NO_EOF  keep running after stdin ends (a CLI that ignores the end of its input)
 *   REPLAY_DELAY_MS  wait this long before each line it prints (a CLI that streams slowly)
 *   REPLAY_PIDS    append "<its pid> <its parent's pid>" to this file when it starts (who ran it)
 *   REPLAY_SEEN    write {cwd, env, argv} to this file when it starts (what the CLI was given)
 *   REPLAY_EDIT    "<file>=<text>": write that file in its working directory when it starts (an edit)
 */
const { appendFileSync, readFileSync, writeFileSync } = require('node:fs');

const env = process.env;
if (env.REPLAY_PIDS) appendFileSync(env.REPLAY_PIDS, `${process.pid} ${process.ppid}\n`);
if (env.REPLAY_SEEN) writeFileSync(env.REPLAY_SEEN, JSON.stringify({ cwd: process.cwd(), env, argv: process.argv.slice(2) }));
if (env.REPLAY_EDIT)
  writeFileSync(env.REPLAY_EDIT.slice(0, env.REPLAY_EDIT.indexOf('=')), env.REPLAY_EDIT.slice(env.REPLAY_EDIT.indexOf('=') + 1));
const wire = readFileSync(env.REPLAY_WIRE, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line))
  .filter((entry) => entry.from !== 'stderr');
let at = 0;

function name(message) {
  return message?.method ?? message?.request?.subtype ?? message?.type ?? null;
}

/** Lines to print, in order (spaced by REPLAY_DELAY_MS). */
const outbox = [];
let printing = false;
function print(text) {
  outbox.push(text);
  if (printing) return;
  printing = true;
  const next = () => {
    const line = outbox.shift();
    if (line === undefined) {
      printing = false;
      return;
    }
    process.stdout.write(line);
    setTimeout(next, Number(env.REPLAY_DELAY_MS || 0));
  };
  if (Number(env.REPLAY_DELAY_MS || 0) > 0) setTimeout(next, Number(env.REPLAY_DELAY_MS));
  else {
    // At full speed: printed at once, in order.
    printing = false;
    process.stdout.write(outbox.splice(0).join(''));
  }
}

function play(message) {
  if (env.REPLAY_LOG) appendFileSync(env.REPLAY_LOG, `${JSON.stringify(message)}\n`);
  if (env.REPLAY_DIE_ON && name(message) === env.REPLAY_DIE_ON) process.kill(process.pid, 'SIGKILL');
  if (env.REPLAY_MUTE && name(message) === env.REPLAY_MUTE) return;
  while (at < wire.length && wire[at].from !== 'host') at += 1;
  at += 1;
  while (at < wire.length && wire[at].from === 'cli') {
    const { line } = wire[at];
    print(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
    at += 1;
  }
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf('\n')) >= 0) {
    const text = pending.slice(0, end);
    pending = pending.slice(end + 1);
    if (text.trim() !== '') play(JSON.parse(text));
  }
});
process.stdin.on('end', () => {
  if (env.REPLAY_NO_EOF) setInterval(() => {}, 1000);
});
