import type { ServerResponse } from 'node:http';
import { turnAt, type ScriptedTurn } from './script';
import { sendJson, sendSse, startScriptedServer, startSse, type ScriptedServer } from './server';

/*
 * A scripted OpenAI Responses API (`POST /v1/responses`, streamed as server-sent events) for
 * Codex. What Codex 0.169 needs, read from codex-rs/codex-api/src/sse/responses.rs:
 * - only `response.output_item.done` items enter the conversation (message, reasoning,
 *   function_call); `output_item.added` and the text deltas only drive live display;
 * - the turn ends at `response.completed` (with `response.id`, and `usage` for the token
 *   counts) followed by the end of the body; a body that closes without it is a stream error
 *   that Codex retries;
 * - a non-2xx answer carries OpenAI's error JSON `{"error":{message,type,param,code}}`.
 */

/** The shell tool Codex 0.169 declares in the request's `tools` (`{"cmd": "…"}`). */
export const CODEX_SHELL_TOOL = 'exec_command';

/**
 * The shared script plus turns only a Responses model can play to Codex: any function call
 * (an MCP tool, say), a client-side `tool_search` (Codex 0.169 exposes MCP tools only after
 * one), an `apply_patch` edit (a freeform custom tool call holding the patch text) and a
 * hosted web search (a `web_search_call` item, which the API runs itself) before an answer.
 */
export type ResponsesTurn =
  | ScriptedTurn
  | { readonly call: string; readonly namespace?: string; readonly args: Record<string, unknown> }
  | { readonly toolSearch: string }
  | { readonly patch: string }
  | { readonly webSearch: string; readonly text: string };

/**
 * Starts a scripted OpenAI Responses endpoint on 127.0.0.1: each `POST …/responses` plays the
 * next turn of `script`. Point Codex at `${server.url}/v1` as a `wire_api = "responses"` provider.
 */
export async function startOpenAIResponsesEndpoint(script: readonly ResponsesTurn[]): Promise<ScriptedServer> {
  let calls = 0;
  return startScriptedServer(async (request, response) => {
    const path = request.url.split('?')[0] ?? '';
    if (request.method === 'POST' && path.endsWith('/responses')) {
      const index = calls;
      calls += 1;
      // Past the end of the script: the shared closing turn.
      await playTurn(script[index] ?? turnAt([], index), index, response);
      return;
    }
    if (request.method === 'GET' && path.endsWith('/models')) {
      sendJson(response, 200, { object: 'list', data: [] });
      return;
    }
    sendJson(response, 404, apiError(`no route for ${request.method} ${path}`, 'invalid_request_error'));
  });
}

/** Writes one model call's answer for `turn`. */
async function playTurn(turn: ResponsesTurn, index: number, response: ServerResponse): Promise<void> {
  if ('httpError' in turn) {
    sendJson(response, turn.httpError, apiError(turn.message, turn.httpError >= 500 ? 'server_error' : 'invalid_request_error'));
    return;
  }
  const stream = new ResponseStream(response, `resp_${index + 1}`);
  stream.created();
  let reasoningTokens = 0;
  if ('shell' in turn) {
    stream.functionCall(`call_${index + 1}`, CODEX_SHELL_TOOL, { cmd: turn.shell });
  } else if ('call' in turn) {
    stream.functionCall(`call_${index + 1}`, turn.call, turn.args, turn.namespace);
  } else if ('toolSearch' in turn) {
    stream.toolSearch(`call_${index + 1}`, turn.toolSearch);
  } else if ('patch' in turn) {
    stream.customToolCall(`call_${index + 1}`, 'apply_patch', turn.patch);
  } else if ('webSearch' in turn) {
    stream.webSearch(turn.webSearch);
    await stream.message(turn.text, [turn.text], 0);
  } else if ('slowText' in turn) {
    const ok = await stream.message(turn.slowText, chunks(turn.slowText, 4), turn.delayMs);
    if (!ok) return;
  } else {
    if ('thinking' in turn) {
      stream.reasoning(turn.thinking);
      reasoningTokens = words(turn.thinking);
    }
    await stream.message(turn.text, [turn.text], 0);
  }
  stream.completed(usageFor(index, reasoningTokens));
  response.end();
}

/** One streamed Responses answer: the item events in order, with their output indexes. */
class ResponseStream {
  private outputIndex = 0;
  private sequence = 0;
  private readonly output: unknown[] = [];

  constructor(
    private readonly response: ServerResponse,
    private readonly id: string,
  ) {
    startSse(response);
  }

  created(): void {
    this.send('response.created', { response: this.snapshot('in_progress', null) });
  }

  reasoning(text: string): void {
    const id = `rs_${this.id}_${this.outputIndex}`;
    const item = { id, type: 'reasoning', summary: [] as unknown[] };
    const done = { ...item, summary: [{ type: 'summary_text', text }] };
    const at = { item_id: id, output_index: this.outputIndex, summary_index: 0 };
    this.send('response.output_item.added', { output_index: this.outputIndex, item });
    this.send('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
    this.send('response.reasoning_summary_text.delta', { ...at, delta: text });
    this.send('response.reasoning_summary_text.done', { ...at, text });
    this.send('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
    this.itemDone(done);
  }

  /** Streams `pieces` (`delayMs` apart); false when the client went away meanwhile. */
  async message(text: string, pieces: string[], delayMs: number): Promise<boolean> {
    const id = `msg_${this.id}_${this.outputIndex}`;
    const at = { item_id: id, output_index: this.outputIndex, content_index: 0 };
    this.send('response.output_item.added', {
      output_index: this.outputIndex,
      item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    });
    this.send('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
    for (const piece of pieces) {
      if (delayMs > 0) await sleep(delayMs);
      if (this.response.destroyed || this.response.writableEnded) return false;
      this.send('response.output_text.delta', { ...at, delta: piece });
    }
    const part = { type: 'output_text', text, annotations: [] };
    this.send('response.output_text.done', { ...at, text });
    this.send('response.content_part.done', { ...at, part });
    this.itemDone({ id, type: 'message', status: 'completed', role: 'assistant', content: [part] });
    return true;
  }

  /** A function call; `namespace` names a deferred tool's group (Codex puts MCP tools in `mcp__<server>`). */
  functionCall(callId: string, name: string, args: Record<string, unknown>, namespace?: string): void {
    const id = `fc_${this.id}_${this.outputIndex}`;
    const argumentsText = JSON.stringify(args);
    const named = namespace === undefined ? { name } : { namespace, name };
    const at = { item_id: id, output_index: this.outputIndex };
    this.send('response.output_item.added', {
      output_index: this.outputIndex,
      item: { id, type: 'function_call', status: 'in_progress', call_id: callId, ...named, arguments: '' },
    });
    this.send('response.function_call_arguments.delta', { ...at, delta: argumentsText });
    this.send('response.function_call_arguments.done', { ...at, arguments: argumentsText });
    this.itemDone({ id, type: 'function_call', status: 'completed', call_id: callId, ...named, arguments: argumentsText });
  }

  toolSearch(callId: string, query: string): void {
    const id = `tsc_${this.id}_${this.outputIndex}`;
    this.send('response.output_item.added', {
      output_index: this.outputIndex,
      item: { id, type: 'tool_search_call', status: 'in_progress', call_id: callId, execution: 'client', arguments: {} },
    });
    this.itemDone({
      id,
      type: 'tool_search_call',
      status: 'completed',
      call_id: callId,
      execution: 'client',
      arguments: { query, limit: 8 },
    });
  }

  customToolCall(callId: string, name: string, input: string): void {
    const id = `ctc_${this.id}_${this.outputIndex}`;
    this.send('response.output_item.added', {
      output_index: this.outputIndex,
      item: { id, type: 'custom_tool_call', status: 'in_progress', call_id: callId, name, input: '' },
    });
    this.send('response.custom_tool_call_input.delta', { item_id: id, output_index: this.outputIndex, delta: input });
    this.send('response.custom_tool_call_input.done', { item_id: id, output_index: this.outputIndex, input });
    this.itemDone({ id, type: 'custom_tool_call', status: 'completed', call_id: callId, name, input });
  }

  webSearch(query: string): void {
    const id = `ws_${this.id}_${this.outputIndex}`;
    this.send('response.output_item.added', {
      output_index: this.outputIndex,
      item: { id, type: 'web_search_call', status: 'in_progress' },
    });
    this.send('response.web_search_call.in_progress', { item_id: id, output_index: this.outputIndex });
    this.send('response.web_search_call.searching', { item_id: id, output_index: this.outputIndex });
    this.send('response.web_search_call.completed', { item_id: id, output_index: this.outputIndex });
    this.itemDone({ id, type: 'web_search_call', status: 'completed', action: { type: 'search', query } });
  }

  completed(usage: ResponsesUsage): void {
    this.send('response.completed', { response: { ...this.snapshot('completed', usage), output: this.output } });
  }

  private itemDone(item: unknown): void {
    this.send('response.output_item.done', { output_index: this.outputIndex, item });
    this.output.push(item);
    this.outputIndex += 1;
  }

  private snapshot(status: string, usage: ResponsesUsage | null): Record<string, unknown> {
    return { id: this.id, object: 'response', created_at: 1767225600, status, model: 'scripted', output: [], usage };
  }

  private send(type: string, fields: Record<string, unknown>): void {
    if (this.response.destroyed || this.response.writableEnded) return;
    sendSse(this.response, { type, sequence_number: this.sequence, ...fields }, type);
    this.sequence += 1;
  }
}

/** The `usage` object of `response.completed`, as the Responses API shapes it. */
interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** Fixed, distinct counts per call, so a transcript shows how Codex adds them up. */
function usageFor(index: number, reasoningTokens: number): ResponsesUsage {
  const input = 1000 + 100 * index;
  const output = 20 + 5 * index + reasoningTokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: index === 0 ? 0 : 800 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: input + output,
  };
}

/** OpenAI's error body. */
function apiError(message: string, type: string): Record<string, unknown> {
  return { error: { message, type, param: null, code: null } };
}

function chunks(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces.length > 0 ? pieces : [''];
}

function words(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
