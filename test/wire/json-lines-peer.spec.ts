import type { JsonObject } from '../../src/schema/json';
import { CLAUDE_CONTROL, CODEX_JSON_RPC, JSON_RPC, JsonLinesPeer, LATER, PeerError, type Dialect } from '../../src/wire/json-lines-peer';

/** A peer whose writes are kept, in order. */
function peerOf(dialect: Dialect): { peer: JsonLinesPeer; written: JsonObject[] } {
  const written: JsonObject[] = [];
  return { peer: new JsonLinesPeer(dialect, (message) => written.push(message)), written };
}

describe('JSON-RPC 2.0 (ACP)', () => {
  it('numbers its requests from 0 and settles each by its answer, in any order', async () => {
    const { peer, written } = peerOf(JSON_RPC);
    const first = peer.request('initialize', { protocolVersion: 1 });
    const second = peer.request('session/new', { cwd: '/tmp' });
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } },
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp' } },
    ]);
    expect([first.id, second.id]).toEqual([0, 1]);
    expect(peer.receive({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } }).type).toBe('response');
    peer.receive({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } });
    await expect(second).resolves.toEqual({ sessionId: 's' });
    await expect(first).resolves.toEqual({ protocolVersion: 1 });
  });

  it('rejects a request the other side refused with its error', async () => {
    const { peer } = peerOf(JSON_RPC);
    const sent = peer.request('session/load', { sessionId: 'gone' });
    peer.receive({ jsonrpc: '2.0', id: 0, error: { code: -32602, message: 'no such session', data: { id: 'gone' } } });
    await expect(sent).rejects.toEqual(new PeerError({ code: -32602, message: 'no such session', data: { id: 'gone' } }));
    await expect(sent).rejects.toMatchObject({ error: { code: -32602, data: { id: 'gone' } } });
  });

  it('a request nobody handles is refused at once: method not found', () => {
    const { peer, written } = peerOf(JSON_RPC);
    expect(peer.receive({ jsonrpc: '2.0', id: 7, method: 'craft/drainMidTurnQueue', params: {} })).toMatchObject({
      type: 'request',
      method: 'craft/drainMidTurnQueue',
    });
    expect(written).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found: craft/drainMidTurnQueue' } }]);
  });

  it('answers a handled request with its result, its promise, its thrown error, or later', async () => {
    const { peer, written } = peerOf(JSON_RPC);
    peer.onRequest('now', (params) => ({ echo: params.value ?? null }));
    peer.onRequest('soon', async () => ({ stopReason: 'end_turn' }));
    peer.onRequest('bad', () => {
      throw new PeerError({ code: -32602, message: 'bad params' });
    });
    peer.onRequest('broken', () => {
      throw new Error('boom');
    });
    let later: unknown = null;
    peer.onRequest('ask', (_params, id) => {
      later = id;
      return LATER;
    });
    peer.receive({ jsonrpc: '2.0', id: 1, method: 'now', params: { value: 3 } });
    peer.receive({ jsonrpc: '2.0', id: 2, method: 'soon' });
    peer.receive({ jsonrpc: '2.0', id: 3, method: 'bad' });
    peer.receive({ jsonrpc: '2.0', id: 4, method: 'broken' });
    peer.receive({ jsonrpc: '2.0', id: 'p-5', method: 'ask' });
    expect(later).toBe('p-5');
    peer.respond('p-5', { outcome: { outcome: 'cancelled' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 1, result: { echo: 3 } },
      { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'bad params' } },
      { jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'boom' } },
      { jsonrpc: '2.0', id: 'p-5', result: { outcome: { outcome: 'cancelled' } } },
      { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } },
    ]);
  });

  it('hands notifications to their handler; an unhandled one, and a stray answer, change nothing', () => {
    const { peer, written } = peerOf(JSON_RPC);
    const seen: JsonObject[] = [];
    peer.onNotification('session/cancel', (params) => seen.push(params));
    expect(peer.receive({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } }).type).toBe('notification');
    peer.receive({ jsonrpc: '2.0', method: 'session/update', params: {} });
    expect(peer.receive({ jsonrpc: '2.0', id: 99, result: {} }).type).toBe('response');
    expect(seen).toEqual([{ sessionId: 's' }]);
    expect(written).toEqual([]);
  });

  it('a message with a method is never an answer, even one that is not a string', async () => {
    const { peer, written } = peerOf(JSON_RPC);
    const sent = peer.request('initialize');
    peer.receive({ jsonrpc: '2.0', id: 0, method: 5 });
    expect(written.at(-1)).toEqual({ jsonrpc: '2.0', id: 0, error: { code: -32601, message: 'Method not found: ' } });
    peer.receive({ jsonrpc: '2.0', id: 0, result: 'ok' });
    await expect(sent).resolves.toBe('ok');
  });

  it('a dropped request that is refused is no unhandled rejection', async () => {
    const { peer } = peerOf(JSON_RPC);
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    try {
      void peer.request('turn/interrupt');
      peer.receive({ jsonrpc: '2.0', id: 0, error: { code: 1, message: 'no turn' } });
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});

describe('Codex\'s JSON-RPC (no "jsonrpc")', () => {
  it('writes no "jsonrpc" field, reads answers and requests the same, and refuses in its words', async () => {
    const { peer, written } = peerOf(CODEX_JSON_RPC);
    const start = peer.request('thread/start', { cwd: '/tmp' });
    peer.notify('initialized');
    peer.receive({ id: 0, result: { thread: { id: 't' } } });
    await expect(start).resolves.toEqual({ thread: { id: 't' } });
    peer.onRequest('item/commandExecution/requestApproval', () => LATER);
    peer.receive({ method: 'item/commandExecution/requestApproval', id: 0, params: {} });
    peer.receive({ method: 'item/tool/requestUserInput', id: 1, params: {} });
    peer.respond(0, { decision: 'accept' });
    expect(written).toEqual([
      { method: 'thread/start', id: 0, params: { cwd: '/tmp' } },
      { method: 'initialized' },
      { id: 1, error: { code: -32601, message: 'not supported by this client: item/tool/requestUserInput' } },
      { id: 0, result: { decision: 'accept' } },
    ]);
  });
});

describe("Claude Code's control envelope", () => {
  it('sends control requests keyed host_1, host_2…, and settles them by their control_response', async () => {
    const { peer, written } = peerOf(CLAUDE_CONTROL);
    const init = peer.request('initialize', { hooks: null });
    const interrupt = peer.request('interrupt');
    expect(written).toEqual([
      { type: 'control_request', request_id: 'host_1', request: { subtype: 'initialize', hooks: null } },
      { type: 'control_request', request_id: 'host_2', request: { subtype: 'interrupt' } },
    ]);
    peer.receive({ type: 'control_response', response: { subtype: 'success', request_id: 'host_1', response: { commands: [] } } });
    peer.receive({ type: 'control_response', response: { subtype: 'error', request_id: 'host_2', error: 'no turn' } });
    await expect(init).resolves.toEqual({ commands: [] });
    await expect(interrupt).rejects.toMatchObject({ message: 'no turn' });
  });

  it('a control_request is a request named by its subtype; an unknown one is refused; the stream-json output is not the peer’s', () => {
    const { peer, written } = peerOf(CLAUDE_CONTROL);
    const asked: unknown[] = [];
    peer.onRequest('can_use_tool', (params, id) => {
      asked.push([id, params.tool_name]);
      return LATER;
    });
    peer.receive({ type: 'control_request', request_id: 'a1', request: { subtype: 'can_use_tool', tool_name: 'Bash', input: {} } });
    peer.receive({ type: 'control_request', request_id: 'h1', request: { subtype: 'hook_callback' } });
    expect(peer.receive({ type: 'assistant', message: {} })).toEqual({ type: 'other' });
    expect(peer.receive({ type: 'control_cancel_request', request_id: 'a1' })).toMatchObject({
      type: 'notification',
      method: 'control_cancel_request',
    });
    peer.respond('a1', { behavior: 'deny', message: 'no' });
    expect(asked).toEqual([['a1', 'Bash']]);
    expect(written).toEqual([
      { type: 'control_response', response: { subtype: 'error', request_id: 'h1', error: 'not supported by this client: hook_callback' } },
      { type: 'control_response', response: { subtype: 'success', request_id: 'a1', response: { behavior: 'deny', message: 'no' } } },
    ]);
  });
});
