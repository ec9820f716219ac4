import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { serveAcpAgent } from '../../src';
import { waitFor } from '../wait-for';
import { acpErrors, acpMessageErrors } from './acp-schema';

/*
 * The ACP agent (the `acp` command's engine) over in-memory streams, fronting the stand-in that
 * replays real Gemini CLI captures (test/sessions/replay-agent.js): what it writes is valid ACP, and
 * modes, permissions, cancel and errors behave. The real ACP client drives it in e2e/test/acp-agent.spec.ts.
 */

const AGENT = join(__dirname, '..', 'sessions', 'replay-agent.js');
const wire = (name: string) => join(__dirname, '..', 'fixtures', 'sessions', 'gemini', `wire-${name}.jsonl`);

jest.setTimeout(20_000);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'acp-agent-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The agent on a replayed capture: send client messages, read what it wrote. */
function startAgent(capture: string) {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const served = serveAcpAgent({ provider: 'gemini', session: { executable: AGENT, env: { REPLAY_WIRE: wire(capture) }, killGraceMs: 500 } }, input, output);
  const messages = (): Record<string, unknown>[] => text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
  const send = (message: Record<string, unknown>) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const answer = (id: number) => waitFor(`the answer to ${id}`, () => messages().find((message) => message.id === id && message.method === undefined));
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

const updatesOf = (messages: Record<string, unknown>[]) => messages.filter((message) => message.method === 'session/update').map((message) => (message.params as { update: Record<string, unknown> }).update);

it('a turn: initialize, session/new with its modes, the answer streamed as updates, end_turn; everything valid ACP', async () => {
  const agent = startAgent('plain');
  const sessionId = await agent.open();
  expect((await agent.answer(0)).result).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: false } });
  expect((await agent.answer(1)).result).toMatchObject({ modes: { currentModeId: 'ask', availableModes: [{ id: 'ask' }, { id: 'allow' }, { id: 'deny' }] } });
  agent.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Say hello.' }] } });
  expect((await agent.answer(2)).result).toEqual({ stopReason: 'end_turn' });
  await agent.end();
  const messages = agent.messages();
  for (const message of messages) expect({ message, errors: acpMessageErrors(message) }).toEqual({ message, errors: [] });
  const text = updatesOf(messages)
    .filter((update) => update.sessionUpdate === 'agent_message_chunk')
    .map((update) => (update.content as { text: string }).text)
    .join('');
  expect(text).toBe('Hello from the scripted model.');
});

it("a permission the CLI asks goes to the client; its answer is the CLI's (reject: the reject option reached the CLI)", async () => {
  const agent = startAgent('deny');
  const sessionId = await agent.open();
  agent.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Create made-by-tool.txt.' }] } });
  const request = await waitFor('a permission request', () => agent.messages().find((message) => message.method === 'session/request_permission'));
  expect(acpErrors('RequestPermissionRequest', request.params)).toEqual([]);
  const toolCallId = (request.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId;
  // The tool call was announced before the client was asked about it.
  expect(updatesOf(agent.messages()).find((update) => update.sessionUpdate === 'tool_call')).toMatchObject({ toolCallId, kind: 'execute', title: 'touch made-by-tool.txt' });
  agent.send({ id: request.id as number, result: { outcome: { outcome: 'selected', optionId: 'reject_once' } } });
  expect((await agent.answer(2)).result).toEqual({ stopReason: 'end_turn' });
  await agent.end();
  expect(updatesOf(agent.messages()).filter((update) => update.toolCallId === toolCallId).at(-1)).toMatchObject({ status: 'failed' });
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

it('session/cancel ends the turn cancelled; the next prompt completes', async () => {
  const agent = startAgent('interrupt-stream');
  const sessionId = await agent.open();
  agent.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Answer slowly.' }] } });
  await waitFor('the first chunk', () => updatesOf(agent.messages()).some((update) => update.sessionUpdate === 'agent_message_chunk'));
  agent.send({ method: 'session/cancel', params: { sessionId } });
  expect((await agent.answer(2)).result).toEqual({ stopReason: 'cancelled' });
  agent.send({ id: 3, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Say something after the interrupt.' }] } });
  expect((await agent.answer(3)).result).toEqual({ stopReason: 'end_turn' });
  await agent.end();
});

it('errors: an unknown method, an unknown session, a line that is not JSON', async () => {
  const agent = startAgent('plain');
  await agent.open();
  agent.send({ id: 5, method: 'session/load', params: { sessionId: 'x', cwd: dir, mcpServers: [] } });
  agent.send({ id: 6, method: 'session/prompt', params: { sessionId: 'nope', prompt: [] } });
  expect((await agent.answer(5)).error).toMatchObject({ code: -32601 });
  expect((await agent.answer(6)).error).toMatchObject({ code: -32602, message: 'no session "nope"' });
  agent.sendText('not json');
  expect((await waitFor('the parse error', () => agent.messages().find((message) => message.id === null))).error).toMatchObject({ code: -32700 });
  await agent.end();
  for (const message of agent.messages()) expect(acpMessageErrors(message)).toEqual([]);
});
