import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Event,
  UI_MESSAGE_STREAM_HEADERS,
  UIMessageStreamProjector,
  pipeUIMessageStreamToResponse,
  toUIMessageStreamResponse,
  type AnyEvent,
  type EventKind,
  type UIMessageChunk,
  type UIVersion,
} from '../../src';
import { planOf } from '../../src/projections/plan';
import type { JsonObject, JsonValue } from '../../src/schema/json';
import { goldenTurns, turnText } from './ui-message-stream-goldens';

/*
 * The UI message stream projection (src/projections/ui-message-stream): its rules on hand-made
 * turns, its invariants over every golden for each client version, and its HTTP forms. What the
 * real `ai` clients build from it is checked in e2e/test/ui-message-stream.spec.ts.
 */

const VERSIONS: UIVersion[] = [5, 6, 7];

function event(kind: EventKind, payload: Record<string, unknown> = {}): AnyEvent {
  return Event.parse({ kind, payload });
}

/** The chunks of a whole turn, `end()` included. */
function project(turn: readonly AnyEvent[], uiVersion: UIVersion = 5, messageId = 'm'): UIMessageChunk[] {
  const projector = new UIMessageStreamProjector({ uiVersion, messageId });
  return [...turn.flatMap((each) => projector.push(each)), ...projector.end()];
}

/** The text the deltas of one kind say, in order. */
function said(chunks: readonly UIMessageChunk[], kind: 'text' | 'reasoning'): string {
  return chunks.map((chunk) => (chunk.type === `${kind}-delta` && 'delta' in chunk ? chunk.delta : '')).join('');
}

const toolUse = (id: string, name = 'Bash', input: JsonObject = { command: 'ls' }) =>
  event('tool_use', { tool_call_id: id, tool_name: name, input });
const toolResult = (id: string, content: JsonValue, isError = false) =>
  event('tool_result', { tool_call_id: id, content, is_error: isError });
const asked = (approvalId: string, toolCallId: string) =>
  event('approval_requested', { approval_id: approvalId, subject: 'Bash', metadata: { tool_call_id: toolCallId } });
const resolved = (approvalId: string, decision: string, reason: string | null = null) =>
  event('approval_resolved', { approval_id: approvalId, decision, reason });
const result = (status: string, stopReason: string | null = null) => event('result', { status, stop_reason: stopReason });

describe('text and thinking', () => {
  it('sends streamed text once: the whole message after its deltas adds only what they did not say', () => {
    const chunks = project([
      event('assistant_delta', { content: 'Hel' }),
      event('assistant_delta', { content: 'lo' }),
      event('assistant_message', { content: [{ type: 'text', text: 'Hello!' }] }),
      result('completed'),
    ]);
    expect(chunks).toEqual([
      { type: 'start', messageId: 'm' },
      { type: 'text-start', id: 'm-text-0' },
      { type: 'text-delta', id: 'm-text-0', delta: 'Hel' },
      { type: 'text-delta', id: 'm-text-0', delta: 'lo' },
      { type: 'text-delta', id: 'm-text-0', delta: '!' },
      { type: 'text-end', id: 'm-text-0' },
      { type: 'finish', finishReason: 'stop' },
    ]);
  });

  it('sends a whole message without deltas as one part, and each message as a part of its own', () => {
    const chunks = project([
      event('assistant_message', { content: [{ type: 'text', text: 'One.' }] }),
      event('assistant_message', { content: ['Two.'] }),
      result('completed'),
    ]);
    expect(chunks.filter((chunk) => chunk.type === 'text-start')).toEqual([
      { type: 'text-start', id: 'm-text-0' },
      { type: 'text-start', id: 'm-text-1' },
    ]);
    expect(said(chunks, 'text')).toBe('One.Two.');
  });

  it('sends thinking as reasoning: deltas (metadata.delta) then the whole thought, once', () => {
    const chunks = project([
      event('thinking', { content: 'Six times ', metadata: { delta: true } }),
      event('thinking', { content: 'Six times seven.' }),
      event('assistant_message', { content: [{ type: 'text', text: '42' }] }),
      result('completed'),
    ]);
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
    expect(said(chunks, 'reasoning')).toBe('Six times seven.');
  });

  it('closes the text before a tool call, so text after the call is a part after it', () => {
    const chunks = project([
      event('assistant_delta', { content: 'Let me look.' }),
      toolUse('t1'),
      toolResult('t1', 'a\nb'),
      event('assistant_delta', { content: 'Done.' }),
      result('completed'),
    ]);
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-available',
      'tool-output-available',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
  });
});

describe('tool calls', () => {
  it('are dynamic tool parts whose output is text (MCP content blocks unwrapped) or an error', () => {
    const chunks = project([
      toolUse('t1', 'mcp__files__read', { path: 'a.txt' }),
      toolResult('t1', { content: [{ type: 'text', text: 'hello' }], isError: false }),
      toolUse('t2'),
      toolResult('t2', 'command not found', true),
      result('completed'),
    ]);
    expect(chunks.slice(1, -1)).toEqual([
      { type: 'tool-input-available', toolCallId: 't1', toolName: 'mcp__files__read', input: { path: 'a.txt' }, dynamic: true },
      { type: 'tool-output-available', toolCallId: 't1', output: 'hello', dynamic: true },
      { type: 'tool-input-available', toolCallId: 't2', toolName: 'Bash', input: { command: 'ls' }, dynamic: true },
      { type: 'tool-output-error', toolCallId: 't2', errorText: 'command not found', dynamic: true },
    ]);
  });

  it('announces a call once: a second tool_use or result of it changes nothing (its input stays the edit it was)', () => {
    const edit = toolUse('e1', 'Edit', { file_path: 'a.ts', old_string: 'a', new_string: 'b' });
    const chunks = project([
      edit,
      toolUse('e1', 'Edit', {}),
      toolResult('e1', 'The file was updated.'),
      toolResult('e1', 'again'),
      result('completed'),
    ]);
    expect(chunks.filter((chunk) => chunk.type.startsWith('tool-'))).toEqual([
      {
        type: 'tool-input-available',
        toolCallId: 'e1',
        toolName: 'Edit',
        input: { file_path: 'a.ts', old_string: 'a', new_string: 'b' },
        dynamic: true,
      },
      { type: 'tool-output-available', toolCallId: 'e1', output: 'The file was updated.', dynamic: true },
    ]);
  });

  it('gives a result of a call the turn never announced its part first', () => {
    expect(project([toolResult('old', 'late'), result('completed')]).slice(1, 3)).toEqual([
      { type: 'tool-input-available', toolCallId: 'old', toolName: 'tool', input: {}, dynamic: true },
      { type: 'tool-output-available', toolCallId: 'old', output: 'late', dynamic: true },
    ]);
  });

  it('ends a call left open by the turn with an error', () => {
    expect(project([toolUse('t1'), result('failed')]).at(-2)).toEqual({
      type: 'tool-output-error',
      toolCallId: 't1',
      errorText: 'The turn ended before the tool call finished.',
      dynamic: true,
    });
  });

  it('sends a to-do tool as one data-plan part, restated in place, and no tool part', () => {
    const todos = (status: string): JsonObject => ({
      todos: [
        { content: 'Write the test', status, activeForm: 'Writing' },
        { content: 'Ship', status: 'pending', activeForm: 'Shipping' },
      ],
    });
    const chunks = project([
      toolUse('p1', 'TodoWrite', todos('in_progress')),
      toolResult('p1', 'Todos have been modified'),
      toolUse('p2', 'TodoWrite', todos('completed')),
      result('completed'),
    ]);
    expect(chunks.slice(1, -1)).toEqual([
      { type: 'data-plan', id: 'm-plan', data: { entries: planOf('TodoWrite', todos('in_progress')) } },
      { type: 'data-plan', id: 'm-plan', data: { entries: planOf('TodoWrite', todos('completed')) } },
    ]);
    expect(planOf('TodoWrite', todos('completed'))).toEqual([
      { content: 'Write the test', status: 'completed', priority: 'medium' },
      { content: 'Ship', status: 'pending', priority: 'medium' },
    ]);
  });
});

describe('approvals', () => {
  const approvalChunks = (chunks: UIMessageChunk[]) =>
    chunks.filter((chunk) => chunk.type.startsWith('tool-') || chunk.type === 'data-approval').slice(1);

  it('ai 5: a data-approval part, replaced by the same id with its decision; the refused call ends in error', () => {
    const chunks = project(
      [toolUse('t1'), asked('a1', 't1'), resolved('a1', 'deny', 'Not that.'), toolResult('t1', 'Not that.', true), result('completed')],
      5,
    );
    expect(approvalChunks(chunks)).toEqual([
      {
        type: 'data-approval',
        id: 'm-approval-a1',
        data: { approval_id: 'a1', tool_call_id: 't1', subject: 'Bash', decision: null, reason: null },
      },
      {
        type: 'data-approval',
        id: 'm-approval-a1',
        data: { approval_id: 'a1', tool_call_id: 't1', subject: 'Bash', decision: 'deny', reason: 'Not that.' },
      },
      { type: 'tool-output-error', toolCallId: 't1', errorText: 'Not that.', dynamic: true },
    ]);
  });

  it('ai 6: tool-approval-request; no chunk carries the decision, a refused call ends tool-output-denied', () => {
    const chunks = project(
      [toolUse('t1'), asked('a1', 't1'), resolved('a1', 'deny'), toolResult('t1', 'denied', true), result('completed')],
      6,
    );
    expect(approvalChunks(chunks)).toEqual([
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 't1' },
      { type: 'tool-output-denied', toolCallId: 't1' },
    ]);
  });

  it('ai 7: tool-approval-request, tool-approval-response with the decision, then the outcome', () => {
    const denied = project(
      [toolUse('t1'), asked('a1', 't1'), resolved('a1', 'deny', 'Not that.'), toolResult('t1', 'denied', true), result('completed')],
      7,
    );
    expect(approvalChunks(denied)).toEqual([
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 't1' },
      { type: 'tool-approval-response', approvalId: 'a1', approved: false, reason: 'Not that.' },
      { type: 'tool-output-denied', toolCallId: 't1' },
    ]);
    const allowed = project([toolUse('t1'), asked('a1', 't1'), resolved('a1', 'allow'), toolResult('t1', 'ok'), result('completed')], 7);
    expect(approvalChunks(allowed)).toEqual([
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 't1' },
      { type: 'tool-approval-response', approvalId: 'a1', approved: true },
      { type: 'tool-output-available', toolCallId: 't1', output: 'ok', dynamic: true },
    ]);
  });

  it("settles an approval the events never decided by its call's result (the call ran, or was refused)", () => {
    const ran = project([toolUse('t1'), asked('a1', 't1'), toolResult('t1', 'ok'), result('completed')], 7);
    expect(ran).toContainEqual({ type: 'tool-approval-response', approvalId: 'a1', approved: true });
    const refused = project([toolUse('t1'), asked('a1', 't1'), toolResult('t1', 'no', true), result('completed')], 5);
    expect(refused).toContainEqual({
      type: 'data-approval',
      id: 'm-approval-a1',
      data: { approval_id: 'a1', tool_call_id: 't1', subject: 'Bash', decision: 'deny', reason: null },
    });
  });

  it('withdraws an approval still open when the turn ends: the call did not run', () => {
    expect(approvalChunks(project([toolUse('t1'), asked('a1', 't1'), result('aborted')], 7))).toEqual([
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 't1' },
      { type: 'tool-approval-response', approvalId: 'a1', approved: false, reason: 'The turn ended before the approval was answered.' },
      { type: 'tool-output-denied', toolCallId: 't1' },
    ]);
  });

  it('announces the call from the request when a CLI asks before it says (its input from the details)', () => {
    const request = event('approval_requested', {
      approval_id: 'a1',
      subject: 'touch x',
      details: { toolCall: { rawInput: { command: 'touch x' } } },
      metadata: { tool_call_id: 'c1' },
    });
    expect(project([request, result('completed')], 6).slice(1, 3)).toEqual([
      { type: 'tool-input-available', toolCallId: 'c1', toolName: 'touch x', input: { command: 'touch x' }, dynamic: true },
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
    ]);
  });

  it('leaves out a resolution the turn did not ask (Claude denying by itself, a late withdrawal)', () => {
    for (const version of VERSIONS)
      expect(
        project([toolUse('t1'), resolved('t1', 'deny'), toolResult('t1', 'Permission denied', true), result('completed')], version).map(
          (chunk) => chunk.type,
        ),
      ).toEqual(['start', 'tool-input-available', 'tool-output-error', 'finish']);
  });
});

describe('the end of a turn', () => {
  it('sends errors of severity error and fatal last, before finish (a client stops reading at one); warnings not', () => {
    const chunks = project([
      event('error', { message: 'Reconnecting…', severity: 'warning', code: 'retry' }),
      event('error', { message: 'the CLI was killed', severity: 'fatal', code: 'no_result' }),
      event('assistant_delta', { content: 'cut sho' }),
      result('failed', 'no_result'),
    ]);
    expect(chunks.slice(-3)).toEqual([
      { type: 'text-end', id: 'm-text-0' },
      { type: 'error', errorText: 'the CLI was killed' },
      { type: 'finish', finishReason: 'error' },
    ]);
  });

  it.each([
    [5, 'aborted', 'other'],
    [6, 'aborted', 'other'],
    [7, 'aborted', 'interrupted'],
    [7, 'completed', 'stop'],
    [5, 'failed', 'error'],
  ] as const)('ai %i: a %s result finishes with %s', (version, status, reason) => {
    expect(project([result(status)], version).at(-1)).toEqual({ type: 'finish', finishReason: reason });
  });

  it('finishes with length for max tokens, content-filter for a refusal', () => {
    expect(project([result('completed', 'max_tokens')]).at(-1)).toEqual({ type: 'finish', finishReason: 'length' });
    expect(project([event('error', { message: 'refused', code: 'refusal' }), result('failed')]).at(-1)).toEqual({
      type: 'finish',
      finishReason: 'content-filter',
    });
  });

  it('finishes once: events after the result are left out, and end() closes a turn that had none', () => {
    const projector = new UIMessageStreamProjector({ messageId: 'm' });
    expect(projector.push(result('completed'))).toEqual([
      { type: 'start', messageId: 'm' },
      { type: 'finish', finishReason: 'stop' },
    ]);
    expect(projector.push(event('assistant_message', { content: ['more'] }))).toEqual([]);
    expect(projector.end()).toEqual([]);
    expect(project([event('assistant_delta', { content: 'a' })]).slice(-2)).toEqual([
      { type: 'text-end', id: 'm-text-0' },
      { type: 'finish', finishReason: 'other' },
    ]);
  });

  it('gives every message its own id by default', () => {
    expect(new UIMessageStreamProjector().messageId).not.toBe(new UIMessageStreamProjector().messageId);
  });
});

/** What is wrong with one turn's chunks, as a client would find it (empty when nothing is). */
function problems(chunks: readonly UIMessageChunk[], version: UIVersion): string[] {
  const found: string[] = [];
  const openParts = new Map<string, string>();
  const partIds = new Set<string>();
  const inputs = new Set<string>();
  const outputs = new Set<string>();
  const requested = new Map<string, string>(); // approval id → tool call id
  const decided = new Map<string, boolean>(); // approval id → approved
  chunks.forEach((chunk, at) => {
    const wrong = (what: string) => found.push(`#${at} ${JSON.stringify(chunk)}: ${what}`);
    if (JSON.stringify(JSON.parse(JSON.stringify(chunk))) !== JSON.stringify(chunk)) wrong('not plain JSON');
    if ((chunk.type === 'start') !== (at === 0)) wrong('start is the first chunk, and only it');
    if ((chunk.type === 'finish') !== (at === chunks.length - 1)) wrong('finish is the last chunk, and only it');
    if (chunk.type === 'finish' && version !== 7 && chunk.finishReason === 'interrupted')
      wrong(`ai ${version} has no finish reason interrupted`);
    if (chunk.type === 'error' && chunks.slice(at + 1).some((later) => later.type !== 'error' && later.type !== 'finish'))
      wrong('an error is followed only by errors and finish');
    if (chunk.type === 'text-start' || chunk.type === 'reasoning-start') {
      if (partIds.has(chunk.id)) wrong('part id used twice');
      if (openParts.size > 0) wrong('another part is still open');
      partIds.add(chunk.id);
      openParts.set(chunk.id, chunk.type.split('-')[0]);
    }
    if (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta' || chunk.type === 'text-end' || chunk.type === 'reasoning-end') {
      if (openParts.get(chunk.id) !== chunk.type.split('-')[0]) wrong('no open part of this kind and id');
      if (chunk.type.endsWith('-end')) openParts.delete(chunk.id);
    }
    if (chunk.type === 'finish' && openParts.size > 0) wrong(`parts left open: ${[...openParts.keys()].join(', ')}`);
    if (chunk.type === 'tool-input-available') {
      if (inputs.has(chunk.toolCallId)) wrong('tool call announced twice');
      inputs.add(chunk.toolCallId);
    }
    if (chunk.type === 'tool-output-available' || chunk.type === 'tool-output-error' || chunk.type === 'tool-output-denied') {
      if (!inputs.has(chunk.toolCallId)) wrong('output before its input');
      if (outputs.has(chunk.toolCallId)) wrong('second output');
      outputs.add(chunk.toolCallId);
      const approval = [...requested].find(([, call]) => call === chunk.toolCallId)?.[0];
      if (chunk.type === 'tool-output-denied' && approval === undefined) wrong('denied, but never asked');
      if (version === 7 && approval !== undefined && !decided.has(approval)) wrong('ai 7: the decision comes before the outcome');
      if (version === 7 && approval !== undefined && (chunk.type === 'tool-output-denied') !== (decided.get(approval) === false))
        wrong('ai 7: a denied call, and only it, ends tool-output-denied');
    }
    if (chunk.type === 'tool-approval-request') {
      if (version === 5) wrong('ai 5 has no tool-approval-request');
      if (!inputs.has(chunk.toolCallId) || outputs.has(chunk.toolCallId)) wrong('asked about a call not waiting');
      requested.set(chunk.approvalId, chunk.toolCallId);
    }
    if (chunk.type === 'tool-approval-response') {
      if (version !== 7) wrong(`ai ${version} has no tool-approval-response`);
      if (!requested.has(chunk.approvalId) || decided.has(chunk.approvalId)) wrong('a decision of no open request');
      decided.set(chunk.approvalId, chunk.approved);
    }
    if (chunk.type === 'tool-output-denied' && version === 5) wrong('ai 5 has no tool-output-denied');
  });
  for (const call of inputs) if (!outputs.has(call)) found.push(`tool call ${call} has no output`);
  return found;
}

const goldens = goldenTurns();

it('reads every golden: provider fixtures and session captures', () => {
  expect(goldens.filter((golden) => !golden.name.startsWith('session ')).length).toBeGreaterThan(50);
  expect(goldens.filter((golden) => golden.name.startsWith('session ')).length).toBeGreaterThan(50);
});

describe.each(goldens.map((golden) => [golden.name, golden] as const))('%s', (_name, golden) => {
  it.each(VERSIONS)('ai %i: each turn is one well-formed message that says its text once', (version) => {
    const ids = new Set<string>();
    for (const turn of golden.turns) {
      const projector = new UIMessageStreamProjector({ uiVersion: version });
      const chunks = [...turn.flatMap((each) => projector.push(each)), ...projector.end()];
      expect(problems(chunks, version)).toEqual([]);
      expect(said(chunks, 'text')).toBe(turnText(turn, 'text'));
      expect(said(chunks, 'reasoning')).toBe(turnText(turn, 'reasoning'));
      // Ids unique across the turns: the message's, and every part's (they start with it).
      for (const id of [projector.messageId, ...chunks.flatMap((chunk) => ('id' in chunk ? [chunk.id] : []))]) {
        if (!id.startsWith(projector.messageId)) throw new Error(`part id ${id} does not start with the message id`);
      }
      expect(ids.has(projector.messageId)).toBe(false);
      ids.add(projector.messageId);
      // Every failure is told; every tool call of the turn is a part (to-do tools are the plan); every approval is asked.
      const failures = turn.filter(
        (each) => each.kind === 'error' && (each.payload.severity === 'error' || each.payload.severity === 'fatal'),
      );
      expect(chunks.filter((chunk) => chunk.type === 'error').length).toBe(failures.length);
      const calls = turn.flatMap((each) =>
        each.kind === 'tool_use' && each.payload.tool_call_id !== null && planOf(each.payload.tool_name, each.payload.input) === null
          ? [each.payload.tool_call_id]
          : [],
      );
      for (const call of calls) expect(chunks).toContainEqual(expect.objectContaining({ type: 'tool-input-available', toolCallId: call }));
      const approvals = turn.flatMap((each) =>
        each.kind === 'approval_requested' && each.payload.approval_id !== null ? [each.payload.approval_id] : [],
      );
      const asks = chunks.flatMap((chunk) =>
        chunk.type === 'tool-approval-request'
          ? [chunk.approvalId]
          : chunk.type === 'data-approval' && chunk.data.decision === null
            ? [chunk.data.approval_id]
            : [],
      );
      expect(asks).toEqual(approvals);
    }
  });
});

describe('HTTP', () => {
  const turn = [event('assistant_delta', { content: 'Hi' }), event('assistant_message', { content: ['Hi!'] }), result('completed')];
  const expectedBody = [
    'data: {"type":"start","messageId":"m"}\n\n',
    'data: {"type":"text-start","id":"m-text-0"}\n\n',
    'data: {"type":"text-delta","id":"m-text-0","delta":"Hi"}\n\n',
    'data: {"type":"text-delta","id":"m-text-0","delta":"!"}\n\n',
    'data: {"type":"text-end","id":"m-text-0"}\n\n',
    'data: {"type":"finish","finishReason":"stop"}\n\n',
    'data: [DONE]\n\n',
  ].join('');

  async function* replay(events: readonly AnyEvent[]): AsyncGenerator<AnyEvent> {
    yield* events;
  }

  /** Events that come only when released, and that say when they were left. */
  function held(): { events: AsyncIterable<AnyEvent>; release: () => void; left: Promise<void> } {
    let release = (): void => undefined;
    let leave = (): void => undefined;
    const left = new Promise<void>((resolve) => (leave = resolve));
    const waiting = new Promise<void>((resolve) => (release = resolve));
    const iterator: AsyncIterator<AnyEvent> = {
      next: async () => {
        await waiting;
        return { done: true, value: undefined };
      },
      return: async () => {
        leave();
        return { done: true, value: undefined };
      },
    };
    return { events: { [Symbol.asyncIterator]: () => iterator }, release, left };
  }

  it('toUIMessageStreamResponse: the ai packages’ headers, one data event per chunk, then [DONE]', async () => {
    const response = toUIMessageStreamResponse(replay(turn), { messageId: 'm' });
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toEqual({
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'content-type': 'text/event-stream',
      'x-accel-buffering': 'no',
      'x-vercel-ai-ui-message-stream': 'v1',
    });
    expect(await response.text()).toBe(expectedBody);
  });

  it('sends start before the first event, and leaves the events when the client cancels', async () => {
    const source = held();
    const reader = toUIMessageStreamResponse(source.events, { messageId: 'm' }).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: {"type":"start","messageId":"m"}\n\n');
    void reader.cancel();
    source.release();
    await source.left;
  });

  describe('pipeUIMessageStreamToResponse', () => {
    let server: Server;
    let url: string;
    let events: () => AsyncIterable<AnyEvent> = () => replay(turn);

    beforeAll(async () => {
      server = createServer((_request, response) => void pipeUIMessageStreamToResponse(response, events(), { messageId: 'm' }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('writes what toUIMessageStreamResponse answers to a Node response', async () => {
      const response = await fetch(url, { method: 'POST' });
      expect(Object.fromEntries([...response.headers].filter(([name]) => name in UI_MESSAGE_STREAM_HEADERS))).toEqual(
        UI_MESSAGE_STREAM_HEADERS,
      );
      expect(await response.text()).toBe(expectedBody);
    });

    it('leaves the events when the client disconnects', async () => {
      const source = held();
      events = () => source.events;
      const aborting = new AbortController();
      const response = await fetch(url, { method: 'POST', signal: aborting.signal });
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: {"type":"start","messageId":"m"}\n\n');
      aborting.abort();
      await source.left;
      source.release();
    });
  });
});
