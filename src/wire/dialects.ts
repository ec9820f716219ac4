import type { JsonObject, JsonValue } from '../schema/json';

/*
 * The three ways the CLIs spell one request/response protocol over JSON lines, as the peer
 * (json-lines-peer.ts) reads and writes them. Only the envelope differs: what a message asks and
 * answers is the same in all three.
 */

/** A failed request: what its error response says. */
export interface WireError {
  readonly code: number;
  readonly message: string;
  readonly data?: JsonValue;
}

/** One line, as the peer sees it; `other` is not the peer's (Claude's stream-json output). */
export type WireMessage =
  | { readonly type: 'request'; readonly id: JsonValue; readonly method: string; readonly params: JsonObject }
  | { readonly type: 'notification'; readonly method: string; readonly params: JsonObject }
  | { readonly type: 'response'; readonly id: string; readonly result: JsonValue; readonly error: WireError | null }
  | { readonly type: 'other' };

/** How one protocol spells its envelope. */
export interface Dialect {
  /** The id of our `count`-th request (from 0). */
  id(count: number): JsonValue;
  read(message: JsonObject): WireMessage;
  request(id: JsonValue, method: string, params: JsonObject): JsonObject;
  notification(method: string, params?: JsonObject): JsonObject;
  result(id: JsonValue, result: JsonValue): JsonObject;
  error(id: JsonValue, error: WireError): JsonObject;
  /** What a request nobody handles is answered (the CLI must not wait for an answer that never comes). */
  methodNotFound(method: string): WireError;
}

/** JSON-RPC's "Method not found". */
export const METHOD_NOT_FOUND = -32601;
/** JSON-RPC's "Internal error": a handler failed. */
export const INTERNAL_ERROR = -32603;

const OTHER: WireMessage = { type: 'other' };

/** A JSON value as an object, or null. */
function asObject(value: JsonValue | undefined): JsonObject | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
}

/** A JSON-RPC id as the key of the pending map (numbers and strings alike). */
function idKey(id: JsonValue | undefined): string | null {
  return typeof id === 'number' || typeof id === 'string' ? String(id) : null;
}

/** JSON-RPC's requests, notifications and responses (with or without `"jsonrpc"`: it is not read). */
function readJsonRpc(message: JsonObject): WireMessage {
  // A message with a method is never an answer (a method that is not a string is one nobody handles).
  const method = message.method === undefined ? null : typeof message.method === 'string' ? message.method : '';
  const params = asObject(message.params) ?? {};
  if (method !== null)
    return message.id === undefined ? { type: 'notification', method, params } : { type: 'request', id: message.id, method, params };
  const id = idKey(message.id);
  if (id === null) return OTHER;
  const error = asObject(message.error);
  if (!error) return { type: 'response', id, result: message.result ?? null, error: null };
  const code = typeof error.code === 'number' ? error.code : INTERNAL_ERROR;
  const text = typeof error.message === 'string' ? error.message : JSON.stringify(error);
  return {
    type: 'response',
    id,
    result: null,
    error: error.data === undefined ? { code, message: text } : { code, message: text, data: error.data },
  };
}

const errorBody = (error: WireError): JsonObject =>
  error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data };

/** JSON-RPC 2.0 (the Agent Client Protocol, both sides). */
export const JSON_RPC: Dialect = {
  id: (count) => count,
  read: readJsonRpc,
  request: (id, method, params) => ({ jsonrpc: '2.0', id, method, params }),
  notification: (method, params): JsonObject => (params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }),
  result: (id, result) => ({ jsonrpc: '2.0', id, result }),
  error: (id, error) => ({ jsonrpc: '2.0', id, error: errorBody(error) }),
  methodNotFound: (method) => ({ code: METHOD_NOT_FOUND, message: `Method not found: ${method}` }),
};

/** Codex's app-server: JSON-RPC without the `"jsonrpc"` field (Codex 0.169.0 writes none and wants none). */
export const CODEX_JSON_RPC: Dialect = {
  id: (count) => count,
  read: readJsonRpc,
  request: (id, method, params) => ({ method, id, params }),
  notification: (method, params): JsonObject => (params === undefined ? { method } : { method, params }),
  result: (id, result) => ({ id, result }),
  error: (id, error) => ({ id, error: errorBody(error) }),
  methodNotFound: (method) => ({ code: METHOD_NOT_FOUND, message: `not supported by this client: ${method}` }),
};

/**
 * Claude Code's control envelope: `control_request` (`request.subtype` is the method, the request
 * body its params) and `control_response` keyed by `request_id`; `control_cancel_request` is a
 * notification (Claude withdrawing a request it asked). Every other line is Claude's stream-json output.
 */
export const CLAUDE_CONTROL: Dialect = {
  id: (count) => `host_${count + 1}`,
  read(message) {
    if (message.type === 'control_request') {
      const request = asObject(message.request) ?? {};
      const id = idKey(message.request_id);
      return id === null ? OTHER : { type: 'request', id, method: String(request.subtype), params: request };
    }
    if (message.type === 'control_cancel_request') return { type: 'notification', method: 'control_cancel_request', params: message };
    if (message.type !== 'control_response') return OTHER;
    const response = asObject(message.response) ?? {};
    const id = idKey(response.request_id);
    if (id === null) return OTHER;
    if (response.subtype !== 'error') return { type: 'response', id, result: response.response ?? null, error: null };
    return {
      type: 'response',
      id,
      result: null,
      error: { code: INTERNAL_ERROR, message: typeof response.error === 'string' ? response.error : '' },
    };
  },
  request: (id, method, params) => ({ type: 'control_request', request_id: id, request: { subtype: method, ...params } }),
  notification: (method, params) => ({ type: method, ...params }),
  result: (id, result) => ({ type: 'control_response', response: { subtype: 'success', request_id: id, response: result } }),
  error: (id, error) => ({ type: 'control_response', response: { subtype: 'error', request_id: id, error: error.message } }),
  methodNotFound: (method) => ({ code: METHOD_NOT_FOUND, message: `not supported by this client: ${method}` }),
};

/**
 * pi's `--mode rpc` (0.73.1, its docs/rpc.md): a command is `{id?, type: <command>, …params}` and
 * its answer `{id, type: "response", command, success, data?, error?}`; an extension's dialog
 * (`ctx.ui.confirm`, `select`, `input`, `editor`) is pi's request `{type: "extension_ui_request",
 * id, method, …}`, answered `{type: "extension_ui_response", id, …result}` (a refusal is
 * `cancelled: true`, which a dialog reads as "no"). Its other `extension_ui_request`s (`notify`,
 * `setStatus`…) expect no answer: notifications. Every other line is one of pi's agent events.
 */
export const PI_RPC: Dialect = {
  id: (count) => `host_${count + 1}`,
  read(message) {
    if (message.type === 'extension_ui_request') {
      const method = typeof message.method === 'string' ? message.method : '';
      const id = idKey(message.id);
      return id !== null && PI_DIALOGS.has(method)
        ? { type: 'request', id, method, params: message }
        : { type: 'notification', method, params: message };
    }
    if (message.type !== 'response') return OTHER;
    const id = idKey(message.id);
    if (id === null) return OTHER;
    if (message.success !== false) return { type: 'response', id, result: message.data ?? null, error: null };
    return {
      type: 'response',
      id,
      result: null,
      error: { code: INTERNAL_ERROR, message: typeof message.error === 'string' ? message.error : 'pi refused the command' },
    };
  },
  request: (id, method, params) => ({ id, type: method, ...params }),
  notification: (method, params) => ({ type: method, ...params }),
  result: (id, result) => ({ type: 'extension_ui_response', id, ...asObject(result) }),
  error: (id) => ({ type: 'extension_ui_response', id, cancelled: true }),
  methodNotFound: (method) => ({ code: METHOD_NOT_FOUND, message: `not supported by this client: ${method}` }),
};

/** The `extension_ui_request` methods that wait for an answer (pi's dialog methods). */
const PI_DIALOGS: ReadonlySet<string> = new Set(['select', 'confirm', 'input', 'editor']);
