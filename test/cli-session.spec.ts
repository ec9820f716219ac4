import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Event, type AnyEvent } from '../src';
import { run } from '../src/cli/run';
import { sessionCommand } from '../src/cli/session-command';
import type { SessionOptions } from '../src/sessions/types';
import { waitFor } from './wait-for';

/*
 * The `session` command in process, over the stand-in that replays real Gemini ACP captures
 * (test/sessions/replay-agent.js): commands on stdin, events on stdout, exit codes. The real CLIs
 * are in e2e/test/session-command.spec.ts.
 */

const AGENT = join(__dirname, 'sessions', 'replay-agent.js');
const wire = (name: string) => join(__dirname, 'fixtures', 'sessions', 'gemini', `wire-${name}.jsonl`);

jest.setTimeout(20_000);

let dir: string;
const savedEnv = { ...process.env };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-session-test-'));
});
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  rmSync(dir, { recursive: true, force: true });
});

/** The command with its streams: write command lines to `stdin`, read events from `lines()`. */
function startCommand(argv: string[], replay?: string, signals?: EventEmitter) {
  // The CLI inherits this process's environment, as the command's users' CLIs do.
  if (replay) process.env.REPLAY_WIRE = wire(replay);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const io = { stdin, stdout, stderr };
  const exit = signals ? sessionOptionsFrom(argv).then((options) => sessionCommand(options, io, signals)) : run(argv, io);
  const events = (): AnyEvent[] =>
    out
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => Event.fromJSON(line));
  const send = (command: unknown) => stdin.write(`${typeof command === 'string' ? command : JSON.stringify(command)}\n`);
  return { stdin, send, exit, events, stdout: () => out, stderr: () => err };
}

/** The options `session` makes of `argv` (for a test that passes its own signal emitter). */
async function sessionOptionsFrom(argv: string[]): Promise<SessionOptions> {
  const { parseArgs } = await import('../src/cli/args');
  const command = parseArgs(argv);
  if (command.name !== 'session') throw new Error('not a session command');
  return command.options;
}

const session = (...rest: string[]) => ['session', '--provider', 'gemini', '--bin', AGENT, ...rest];

describe('cli-subprocess-core session: usage', () => {
  it.each([
    [['session'], 'session needs --provider <claude|codex|gemini|opencode|qwen|copilot|pi|kilo|cline>'],
    [
      ['session', '--provider', 'cursor'],
      'unknown provider "cursor": session takes one of claude, codex, gemini, opencode, qwen, copilot, pi, kilo, cline',
    ],
    [['session', '--provider', 'gemini', 'Say hello.'], 'session takes no prompt: send {"type":"prompt","text":…} lines on stdin'],
    [['session', '--provider', 'gemini', '--approvals', 'maybe'], '--approvals must be one of ask, allow, deny; got "maybe"'],
    [
      ['session', '--provider', 'gemini', '--approval-timeout', 'soon'],
      '--approval-timeout must be a positive number of seconds; got "soon"',
    ],
    [['session', '--provider', 'gemini', '--partial'], '--partial is an option of run'],
  ])('%j → exit 2: %s', async (argv, message) => {
    const { exit, stderr } = startCommand(argv);
    expect(await exit).toBe(2);
    expect(stderr()).toContain(message);
  });

  it.each([
    [['acp', '--bin', '/usr/bin/claude'], "acp: --bin is one CLI's: give --provider with it"],
    [['acp', '--model', 'opus'], "acp: --model is one CLI's: give --provider with it"],
    [['acp', '--provider', 'nope'], 'unknown provider "nope": acp takes one of claude, codex, gemini'],
    [['acp', '--provider', 'gemini', 'hello'], 'acp takes no prompt: the ACP client sends them'],
    [['acp', '--provider', 'gemini', '--cwd', '/tmp'], '--cwd is an option of run, session, serve and worker'],
  ])('acp %j → exit 2: %s', async (argv, message) => {
    const { exit, stderr } = startCommand(argv);
    expect(await exit).toBe(2);
    expect(stderr()).toContain(message);
  });

  it('acp with a missing executable → exit 127 at once, naming it', async () => {
    const missing = startCommand(['acp', '--provider', 'codex', '--bin', '/nonexistent/codex']);
    expect(await missing.exit).toBe(127);
    expect(missing.stderr()).toContain('/nonexistent/codex not found or not executable: install @openai/codex or pass executable');
  });

  it('acp without --provider and no agent CLI on PATH still serves: initialize says what to install, session/new is refused with it, --login → 2', async () => {
    const path = process.env.PATH;
    process.env.PATH = dir;
    try {
      // What the ACP registry's launch check does on a bare machine: initialize, and read the answer.
      const none = startCommand(['acp']);
      none.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
      none.send({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: dir, mcpServers: [] } });
      none.stdin.end();
      expect(await none.exit).toBe(0);
      const [initialize, sessionNew] = none
        .stdout()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
      expect(initialize.result.authMethods).toEqual([
        expect.objectContaining({
          id: 'cli-credentials',
          description: expect.stringMatching(
            /^No agent CLI found on PATH: install one of Claude Code \(install @anthropic-ai\/claude-code\), Codex/,
          ),
        }),
      ]);
      expect(sessionNew).toMatchObject({ id: 2, error: { code: -32000, message: expect.stringContaining('No agent CLI found on PATH') } });
      expect(none.stderr()).toContain('No agent CLI found on PATH');
      expect(await startCommand(['acp', '--login']).exit).toBe(2);
    } finally {
      process.env.PATH = path;
    }
  });

  it("acp --login runs the CLI's own login command (the agent's terminal auth method) and exits with its code; a CLI without one → 2", async () => {
    const fake = join(dir, 'claude');
    writeFileSync(fake, `#!/bin/sh\nprintf '%s ' "$@" > "${join(dir, 'argv')}"\nexit 3\n`, { mode: 0o755 });
    const login = startCommand(['acp', '--provider', 'claude', '--bin', fake, '--login']);
    expect(await login.exit).toBe(3);
    expect(readFileSync(join(dir, 'argv'), 'utf8')).toBe('auth login ');
    const none = startCommand(['acp', '--provider', 'gemini', '--bin', AGENT, '--login']);
    expect(await none.exit).toBe(2);
    expect(none.stderr()).toContain('Gemini CLI has no login command');
  });

  it('a missing executable → exit 127; a model the CLI cannot take → exit 2', async () => {
    const missing = startCommand(['session', '--provider', 'gemini', '--bin', '/nonexistent/gemini']);
    expect(await missing.exit).toBe(127);
    expect(missing.stderr()).toContain('/nonexistent/gemini not found or not executable: install @google/gemini-cli or pass executable');
    const model = startCommand(['session', '--provider', 'opencode', '--bin', AGENT, '--model', 'x']);
    expect(await model.exit).toBe(2);
  });
});

describe('cli-subprocess-core session', () => {
  it('prompts from stdin; end of input plays them to their end, then closes: exit 0', async () => {
    const command = startCommand(session('--approvals', 'allow'), 'allow');
    command.send({ type: 'prompt', text: 'Create made-by-tool.txt.' });
    command.stdin.end();
    expect(await command.exit).toBe(0);
    const events = command.events();
    expect(events.filter((event) => event.kind === 'result').map((event) => event.kind === 'result' && event.payload.status)).toEqual([
      'completed',
    ]);
    expect(events.find((event) => event.kind === 'approval_resolved')?.payload).toMatchObject({
      decision: 'allow',
      metadata: { answered_by: 'policy' },
    });
  });

  it('--approvals ask: an approve line answers the request; bad lines are reported on stderr and skipped', async () => {
    const command = startCommand(session(), 'deny');
    command.send('not json');
    command.send({ type: 'dance' });
    command.send({ type: 'approve', approval_id: 'nope', decision: 'allow' });
    command.send({ type: 'approve', approval_id: 'x' });
    command.send({ type: 'prompt', text: 'Create made-by-tool.txt.' });
    const asked = await waitFor('the approval request', () => command.events().find((event) => event.kind === 'approval_requested'));
    command.send({
      type: 'approve',
      approval_id: asked.kind === 'approval_requested' ? asked.payload.approval_id : '',
      decision: 'deny',
      reason: 'not today',
    });
    command.stdin.end();
    expect(await command.exit).toBe(0);
    expect(command.events().find((event) => event.kind === 'approval_resolved')?.payload).toMatchObject({
      decision: 'deny',
      reason: 'not today',
      metadata: { answered_by: 'host' },
    });
    expect(
      command
        .stderr()
        .split('\n')
        .filter((line) => line !== ''),
    ).toEqual([
      'cli-subprocess-core: not a JSON command: not json',
      'cli-subprocess-core: unknown command type "dance": expected prompt, approve or interrupt',
      'cli-subprocess-core: no pending approval "nope"',
      'cli-subprocess-core: an approve command needs "approval_id" (a string) and "decision" ("allow" or "deny")',
    ]);
  });

  it('one NUL prompt wedges an ACP session (fixed here too): a NUL prompt line is said on stderr, the next prompt completes', async () => {
    const command = startCommand(session(), 'plain');
    command.send({ type: 'prompt', text: 'a\u0000b' });
    command.send({ type: 'prompt', text: 'Say hello.' });
    command.stdin.end();
    expect(await command.exit).toBe(0);
    expect(command.stderr()).toContain('cli-subprocess-core: prompt not played: prompt must not contain a NUL byte');
    expect(command.events().flatMap((event) => (event.kind === 'result' ? [[event.payload.status, event.payload.output]] : []))).toEqual([
      ['completed', 'Hello from the scripted model.'],
    ]);
  });

  it('an interrupt line ends the turn aborted; the next prompt completes', async () => {
    const command = startCommand(session(), 'interrupt-stream');
    command.send({ type: 'prompt', text: 'Answer slowly.' });
    await waitFor('streamed text', () => command.events().some((event) => event.kind === 'assistant_delta'));
    command.send({ type: 'interrupt' });
    command.send({ type: 'prompt', text: 'Say something after the interrupt.' });
    command.stdin.end();
    expect(await command.exit).toBe(0);
    expect(command.events().flatMap((event) => (event.kind === 'result' ? [event.payload.status] : []))).toEqual(['aborted', 'completed']);
  });

  it('SIGINT during a turn closes the session: the turn aborted, exit 130', async () => {
    const signals = new EventEmitter();
    process.env.REPLAY_MUTE = 'session/prompt';
    const command = startCommand(session(), 'plain', signals);
    command.send({ type: 'prompt', text: 'Say hello.' });
    await waitFor('run_started', () => command.events().some((event) => event.kind === 'run_started'));
    signals.emit('SIGINT');
    expect(await command.exit).toBe(130);
    expect(command.events().at(-1)).toMatchObject({ kind: 'result', payload: { status: 'aborted' } });
  });
});
