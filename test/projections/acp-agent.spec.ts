import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { serveAcpAgent } from '../../src';
import { waitFor } from '../wait-for';
import { acpErrors, acpMessageErrors } from './acp-schema';

/*
 * The ACP agent (the `acp` command's engine) over in-memory streams, fronting the stand-in that
 * replays real Gemini CLI and Copilot CLI captures (test/sessions/replay-agent.js): what it writes is
 * valid ACP, and modes, permissions, cancel, session/load and errors behave. The real ACP client drives it in e2e/test/acp-agent.spec.ts.
 */

const AGENT = join(__dirname, '..', 'sessions', 'replay-agent.js');
const wire = (name: string, cli = 'gemini') => join(__dirname, '..', 'fixtures', 'sessions', cli, `wire-${name}.jsonl`);

jest.setTimeout(20_000);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'acp-agent-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The agent on a replayed capture: send client messages, read what it wrote. */
function startAgent(
  capture: string,
  options: {
    provider?: 'gemini' | 'copilot' | 'claude';
    historyDir?: string | null;
    log?: string;
    env?: Record<string, string | undefined>;
  } = {},
) {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const provider = options.provider ?? 'gemini';
  const env = { REPLAY_WIRE: wire(capture, provider), ...(options.log ? { REPLAY_LOG: options.log } : {}), ...options.env };
  const served = serveAcpAgent(
    {
      provider,
      session: { executable: AGENT, env, killGraceMs: 500 },
      historyDir: options.historyDir === undefined ? join(dir, 'history') : options.historyDir,
    },
    input,
    output,
  );
  const messages = (): Record<string, unknown>[] =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const send = (message: Record<string, unknown>) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const answer = (id: number) =>
    waitFor(`the answer to ${id}`, () => messages().find((message) => message.id === id && message.method === undefined));
  const open = async () => {
    send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    send({ id: 1, method: 'session/new', params: { cwd: dir, mcpServers: [] } });
    return ((await answer(1)).result as { sessionId: string }).sessionId;
  };
  const end = async () => {
    input.end();
    await served;
  };
  return { send, sendText: (line: string) => input.write(`${line}\n`), messages, answer, open, end };
}

/** The text of the updates of `kind`, joined. */
const said = (updates: Record<string, unknown>[], kind: string) =>
  updates
    .filter((update) => update.sessionUpdate === kind)
    .map((update) => (update.content as { text: string }).text)
    .join('');

const updatesOf = (messages: Record<string, unknown>[]) =>
  messages
    .filter((message) => message.method === 'session/update')
    .map((message) => (message.params as { update: Record<string, unknown> }).update);

it('a turn: initialize, session/new with its modes, the answer streamed as updates, end_turn; everything valid ACP', async () => {
  const agent = startAgent('plain');
  const sessionId = await agent.open();
  expect((await agent.answer(0)).result).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: false } });
  expect((await agent.answer(1)).result).toMatchObject({
    modes: { currentModeId: 'ask', availableModes: [{ id: 'ask' }, { id: 'allow' }, { id: 'deny' }] },
  });
  agent.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Say hello.' }] } });
  expect((await agent.answer(2)).result).toEqual({ stopReason: 'end_turn' });
  await agent.end();
  const messages = agent.messages();
  for (const message of messages) expect({ message, errors: acpMessageErrors(message) }).toEqual({ message, errors: [] });
  expect(said(updatesOf(messages), 'agent_message_chunk')).toBe('Hello from the scripted model.');
});

it("a permission the CLI asks goes to the client; its answer is the CLI's (reject: the reject option reached the CLI)", async () => {
  const agent = startAgent('deny');
  const sessionId = await agent.open();
  agent.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Create made-by-tool.txt.' }] } });
  const request = await waitFor('a permission request', () =>
    agent.messages().find((message) => message.method === 'session/request_permission'),
  );
  expect(acpErrors('RequestPermissionRequest', request.params)).toEqual([]);
  const toolCallId = (request.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId;
  // The tool call was announced before the client was asked about it.
  expect(updatesOf(agent.messages()).find((update) => update.sessionUpdate === 'tool_call')).toMatchObject({
    toolCallId,
    kind: 'execute',
    title: 'touch made-by-tool.txt',
  });
  agent.send({ id: request.id as number, result: { outcome: { outcome: 'selected', optionId: 'reject_once' } } });
  expect((await agent.answer(2)).result).toEqual({ stopReason: 'end_turn' });
  await agent.end();
  expect(
    updatesOf(agent.messages())
      .filter((update) => update.toolCallId === toolCallId)
      .at(-1),
  ).toMatchObject({ status: 'failed' });
});

it("mode 'allow' answers the CLI's requests itself; an unknown mode is an error", async () => {
  const agent = startAgent('allow');
  const sessionId = await agent.open();
  agent.send({ id: 2, method: 'session/set_mode', params: { sessionId, modeId: 'yolo' } });
  expect((await agent.answer(2)).error).toMatchObject({ code: -32602, message: 'no mode "yolo": ask, allow, deny' });
  agent.send({ id: 3, method: 'session/set_mode', params: { sessionId, modeId: 'allow' } });
  expect((await agent.answer(3)).result).toEqual({});
  agent.send({ id: 4, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Create made-by-tool.txt.' }] } });
  expect((await agent.answer(4)).result).toEqual({ stopReason: 'end_turn' });
  await agent.end();
  expect(agent.messages().some((message) => message.method === 'session/request_permission')).toBe(false);
});

it('config options: model and mode in session/new; the mode set either way is the same, said to the client; a value not offered is refused', async () => {
  const agent = startAgent('allow');
  const sessionId = await agent.open();
  const created = (await agent.answer(1)).result as { configOptions: { id: string; currentValue: string }[] };
  // A pinned agent: no cli option. Gemini CLI cannot resume, so its model is not switched.
  expect(created.configOptions.map((option) => option.id)).toEqual(['model', 'mode']);
  agent.send({ id: 2, method: 'session/set_config_option', params: { sessionId, configId: 'mode', value: 'allow' } });
  const answered = (await agent.answer(2)).result as { configOptions: { id: string; currentValue: string }[] };
  expect(answered.configOptions.find((option) => option.id === 'mode')?.currentValue).toBe('allow');
  agent.send({ id: 3, method: 'session/set_config_option', params: { sessionId, configId: 'model', value: '--yolo' } });
  expect((await agent.answer(3)).error).toMatchObject({ code: -32602, message: expect.stringContaining('model cannot be "--yolo": ') });
  agent.send({ id: 4, method: 'session/set_config_option', params: { sessionId, configId: 'cli', value: 'codex' } });
  expect((await agent.answer(4)).error).toMatchObject({ code: -32602, message: 'no config option "cli": model, mode' });
  // The mode option set `allow`: the CLI's request is answered without the client.
  agent.send({ id: 5, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Create made-by-tool.txt.' }] } });
  expect((await agent.answer(5)).result).toEqual({ stopReason: 'end_turn' });
  agent.send({ id: 6, method: 'session/set_mode', params: { sessionId, modeId: 'deny' } });
  expect((await agent.answer(6)).result).toEqual({});
  await agent.end();
  const messages = agent.messages();
  for (const message of messages) expect({ message, errors: acpMessageErrors(message) }).toEqual({ message, errors: [] });
  expect(messages.some((message) => message.method === 'session/request_permission')).toBe(false);
  const updates = updatesOf(messages);
  expect(updates.filter((update) => update.sessionUpdate === 'current_mode_update')).toEqual([
    { sessionUpdate: 'current_mode_update', currentModeId: 'allow' },
  ]);
  const optionUpdate = updates.find((update) => update.sessionUpdate === 'config_option_update') as {
    configOptions: { id: string; currentValue: string }[];
  };
  expect(optionUpdate.configOptions.find((option) => option.id === 'mode')?.currentValue).toBe('deny');
});

it('session/cancel ends the turn cancelled; the next prompt completes', async () => {
  const agent = startAgent('interrupt-stream');
  const sessionId = await agent.open();
  agent.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Answer slowly.' }] } });
  await waitFor('the first chunk', () => updatesOf(agent.messages()).some((update) => update.sessionUpdate === 'agent_message_chunk'));
  agent.send({ method: 'session/cancel', params: { sessionId } });
  expect((await agent.answer(2)).result).toEqual({ stopReason: 'cancelled' });
  agent.send({
    id: 3,
    method: 'session/prompt',
    params: { sessionId, prompt: [{ type: 'text', text: 'Say something after the interrupt.' }] },
  });
  expect((await agent.answer(3)).result).toEqual({ stopReason: 'end_turn' });
  await agent.end();
});

it('prompt content: image and embedded context advertised; a block the CLI cannot take gets INVALID_PARAMS, the next prompt its answer', async () => {
  const agent = startAgent('plain');
  const sessionId = await agent.open();
  expect(((await agent.answer(0)).result as { agentCapabilities: unknown }).agentCapabilities).toMatchObject({
    promptCapabilities: { image: true, audio: false, embeddedContext: true },
  });
  const bmp = { type: 'image', mimeType: 'image/bmp', data: 'Qk0=' };
  agent.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Look.' }, bmp] } });
  expect((await agent.answer(2)).error).toEqual({
    code: -32602,
    message: 'prompt block 1 (image): Gemini CLI takes images of type image/png, image/jpeg, image/gif, image/webp; got image/bmp',
  });
  agent.send({ id: 3, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'audio', mimeType: 'audio/wav', data: 'UklG' }] } });
  expect((await agent.answer(3)).error).toMatchObject({
    code: -32602,
    message: expect.stringContaining('type must be one of text, image'),
  });
  agent.send({ id: 4, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Say hello.' }] } });
  expect((await agent.answer(4)).result).toEqual({ stopReason: 'end_turn' });
  await agent.end();
});

it('one NUL prompt wedges an ACP session (fixed): that prompt gets INVALID_PARAMS, the next one its normal answer', async () => {
  const agent = startAgent('plain');
  const sessionId = await agent.open();
  agent.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'a\u0000b' }] } });
  expect((await agent.answer(2)).error).toEqual({ code: -32602, message: expect.stringContaining('prompt must not contain a NUL byte') });
  agent.send({ id: 3, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Say hello.' }] } });
  expect((await agent.answer(3)).result).toEqual({ stopReason: 'end_turn' });
  await agent.end();
  const messages = agent.messages();
  for (const message of messages) expect({ message, errors: acpMessageErrors(message) }).toEqual({ message, errors: [] });
  expect(said(updatesOf(messages), 'agent_message_chunk')).toBe('Hello from the scripted model.');
});

it('errors: an unknown method, an unknown session, a line that is not JSON', async () => {
  const agent = startAgent('plain');
  await agent.open();
  agent.send({ id: 5, method: 'session/load', params: { sessionId: 'x', cwd: dir, mcpServers: [] } });
  agent.send({ id: 6, method: 'session/prompt', params: { sessionId: 'nope', prompt: [] } });
  expect((await agent.answer(5)).error).toMatchObject({ code: -32601 });
  expect((await agent.answer(6)).error).toMatchObject({ code: -32602, message: 'no session "nope"' });
  agent.sendText('not json');
  expect((await waitFor('the parse error', () => agent.messages().find((message) => message.id === null))).error).toMatchObject({
    code: -32700,
  });
  await agent.end();
  for (const message of agent.messages()) expect(acpMessageErrors(message)).toEqual([]);
});

describe('session/load: the history replayed, the CLI resumed (Copilot CLI captures: a session, then a load of it)', () => {
  it('a new agent process replays the session before answering, resumes the CLI session, and the next prompt continues it', async () => {
    const first = startAgent('plain', { provider: 'copilot' });
    const sessionId = await first.open();
    expect((await first.answer(0)).result).toMatchObject({ agentCapabilities: { loadSession: true } });
    first.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Say hello.' }] } });
    expect((await first.answer(2)).result).toEqual({ stopReason: 'end_turn' });
    await first.end();
    // The CLI's own session id (Copilot's, in the capture), not the agent's.
    const cliSession = /"sessionId":"([^"]+)"/.exec(readFileSync(wire('plain', 'copilot'), 'utf8'))?.[1];
    expect(cliSession).not.toBe(sessionId);

    const log = join(dir, 'host.jsonl');
    const second = startAgent('load', { provider: 'copilot', log });
    second.send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    second.send({ id: 1, method: 'session/load', params: { sessionId, cwd: dir, mcpServers: [] } });
    expect((await second.answer(1)).result).toMatchObject({ modes: { currentModeId: 'ask' } });
    const atAnswer = second.messages().findIndex((message) => message.id === 1 && message.method === undefined);
    const replayed = updatesOf(second.messages().slice(0, atAnswer));
    expect(replayed.map((update) => update.sessionUpdate)).toEqual(['user_message_chunk', 'agent_message_chunk']);
    expect(said(replayed, 'user_message_chunk')).toBe('Say hello.');
    expect(said(replayed, 'agent_message_chunk')).toBe('Hello from the scripted model.');

    second.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Give the second answer.' }] } });
    expect((await second.answer(2)).result).toEqual({ stopReason: 'end_turn' });
    await second.end();
    const turn = updatesOf(second.messages().slice(atAnswer));
    expect(said(turn, 'agent_message_chunk')).toBe('The second answer.');
    // Message ids stay unique across the session's turns, replayed and new.
    const ids = new Set(replayed.map((update) => update.messageId));
    expect(turn.filter((update) => ids.has(update.messageId))).toEqual([]);
    // The CLI was asked to load the CLI session the first agent recorded.
    const host = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(host.find((message) => message.method === 'session/load')).toMatchObject({ params: { sessionId: cliSession, cwd: dir } });
    expect(host.some((message) => message.method === 'session/new')).toBe(false);
    for (const message of [...first.messages(), ...second.messages()])
      expect({ message, errors: acpMessageErrors(message) }).toEqual({ message, errors: [] });

    // Loaded again: the history now holds both turns.
    const third = startAgent('load', { provider: 'copilot' });
    third.send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    third.send({ id: 1, method: 'session/load', params: { sessionId, cwd: dir, mcpServers: [] } });
    await third.answer(1);
    await third.end();
    const again = updatesOf(third.messages());
    expect(said(again, 'user_message_chunk')).toBe('Say hello.Give the second answer.');
    expect(said(again, 'agent_message_chunk')).toBe('Hello from the scripted model.The second answer.');
  });

  it("errors: an unknown session, an id that is not one of ours; without a history, none of the agent's own sessions to load", async () => {
    const agent = startAgent('plain', { provider: 'copilot' });
    agent.send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    agent.send({ id: 1, method: 'session/load', params: { sessionId: 'f00d', cwd: dir, mcpServers: [] } });
    agent.send({ id: 2, method: 'session/load', params: { sessionId: '../../etc/passwd', cwd: dir, mcpServers: [] } });
    expect((await agent.answer(1)).error).toMatchObject({ code: -32602, message: expect.stringContaining('no session "f00d" to load') });
    expect((await agent.answer(2)).error).toMatchObject({ code: -32602 });
    await agent.end();

    const without = startAgent('plain', { provider: 'copilot', historyDir: null });
    without.send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    without.send({ id: 1, method: 'session/load', params: { sessionId: 'f00d', cwd: dir, mcpServers: [] } });
    // Copilot CLI's own stored sessions stay loadable (listCliSessions reads them); the agent's own are gone.
    expect((await without.answer(0)).result).toMatchObject({ agentCapabilities: { loadSession: true } });
    expect((await without.answer(1)).error).toMatchObject({ code: -32602, message: expect.stringContaining('no session "f00d" to load') });
    await without.end();
  });
});

describe("authentication: what the CLI needs, from its registry file (src/clis/<id>.ts's auth)", () => {
  /** Gemini CLI's credentials all gone: no key variable, a HOME without its login file. */
  const noCredentials = () => ({ GEMINI_API_KEY: undefined, GOOGLE_API_KEY: undefined, HOME: dir });

  it("initialize offers the agent method, which names the CLI's key variables; no terminal method for a CLI without a login command", async () => {
    const agent = startAgent('plain');
    agent.send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } } });
    const answer = await agent.answer(0);
    await agent.end();
    expect(acpMessageErrors(answer)).toEqual([]);
    expect(answer.result).toMatchObject({
      agentCapabilities: { sessionCapabilities: { close: {} } },
      authMethods: [{ id: 'cli-credentials', name: 'Gemini CLI credentials', description: expect.stringContaining('GEMINI_API_KEY') }],
    });
    expect((answer.result as { authMethods: unknown[] }).authMethods).toHaveLength(1);
  });

  it('a CLI with a login command: a terminal method (the agent run with --login) only for a client that said it can run one', async () => {
    for (const terminal of [true, false]) {
      const agent = startAgent('plain', { provider: 'claude' });
      agent.send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { auth: { terminal } } } });
      const answer = await agent.answer(0);
      await agent.end();
      expect(acpMessageErrors(answer)).toEqual([]);
      const methods = (answer.result as { authMethods: Record<string, unknown>[] }).authMethods;
      expect(methods[0]).toMatchObject({
        id: 'cli-credentials',
        description: expect.stringMatching(/ANTHROPIC_API_KEY.*`claude auth login`/),
      });
      expect(methods.slice(1)).toEqual(
        terminal
          ? [
              {
                type: 'terminal',
                id: 'cli-login',
                name: 'Log in to Claude Code',
                description: 'Runs `claude auth login` in a terminal.',
                args: ['--login'],
              },
            ]
          : [],
      );
    }
  });

  it("authenticate: {} when the key is in the agent's environment; auth-required naming it when not; the terminal method is refused", async () => {
    const keyed = startAgent('plain', { env: { ...noCredentials(), GEMINI_API_KEY: 'a-key' } });
    keyed.send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    keyed.send({ id: 1, method: 'authenticate', params: { methodId: 'cli-credentials' } });
    expect((await keyed.answer(1)).result).toEqual({});
    await keyed.end();

    const bare = startAgent('plain', { env: noCredentials() });
    bare.send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    bare.send({ id: 1, method: 'authenticate', params: { methodId: 'cli-credentials' } });
    bare.send({ id: 2, method: 'authenticate', params: { methodId: 'cli-login' } });
    expect((await bare.answer(1)).error).toEqual({
      code: -32000,
      message: expect.stringMatching(/^Gemini CLI is not logged in: .*GEMINI_API_KEY or GOOGLE_API_KEY/),
    });
    expect((await bare.answer(2)).error).toMatchObject({ code: -32602 });
    await bare.end();
    for (const message of [...keyed.messages(), ...bare.messages()]) expect(acpMessageErrors(message)).toEqual([]);
  });
});

/** The pids of this process's children running the stand-in agent. */
function standIns(): number[] {
  return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('replay-agent.js'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

it("session/close ends the session's CLI process; a later prompt on it is refused, another session goes on", async () => {
  const agent = startAgent('plain');
  const sessionId = await agent.open();
  agent.send({ id: 2, method: 'session/new', params: { cwd: dir, mcpServers: [] } });
  const other = ((await agent.answer(2)).result as { sessionId: string }).sessionId;
  await waitFor('both CLI processes', () => standIns().length === 2 || undefined);
  agent.send({ id: 3, method: 'session/close', params: { sessionId } });
  expect((await agent.answer(3)).result).toEqual({});
  // Answered once the CLI is gone.
  expect(standIns()).toHaveLength(1);
  agent.send({ id: 4, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Say hello.' }] } });
  expect((await agent.answer(4)).error).toEqual({ code: -32602, message: `session "${sessionId}" is closed` });
  agent.send({ id: 5, method: 'session/prompt', params: { sessionId: other, prompt: [{ type: 'text', text: 'Say hello.' }] } });
  expect((await agent.answer(5)).result).toEqual({ stopReason: 'end_turn' });
  await agent.end();
  expect(standIns()).toEqual([]);
  for (const message of agent.messages()) expect({ message, errors: acpMessageErrors(message) }).toEqual({ message, errors: [] });
});

it('session/close during a turn cancels it first (as session/cancel): the prompt answers cancelled, then the close {}', async () => {
  const agent = startAgent('interrupt-stream');
  const sessionId = await agent.open();
  agent.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Answer slowly.' }] } });
  await waitFor('the first chunk', () => updatesOf(agent.messages()).some((update) => update.sessionUpdate === 'agent_message_chunk'));
  agent.send({ id: 3, method: 'session/close', params: { sessionId } });
  expect((await agent.answer(2)).result).toEqual({ stopReason: 'cancelled' });
  expect((await agent.answer(3)).result).toEqual({});
  expect(standIns()).toEqual([]);
  await agent.end();
  for (const message of agent.messages()) expect({ message, errors: acpMessageErrors(message) }).toEqual({ message, errors: [] });
});
