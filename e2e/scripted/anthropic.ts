import type { ServerResponse } from 'node:http';
import { turnAt, type ScriptedTurn } from './script';
import { jsonBody, sendJson, sendSse, startScriptedServer, startSse, type ScriptedServer } from './server';

/*
 * A scripted Anthropic Messages API for Claude Code (ANTHROPIC_BASE_URL=<url>). Claude Code
 * 2.1.328 first probes `HEAD /api/hello` (not with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC),
 * then calls `POST /v1/messages?beta=true` with `stream: true` for every model turn. Each streamed call plays the next scripted turn as
 * the real SSE sequence: message_start, per block content_block_start / _delta / _stop,
 * message_delta (stop_reason, usage), message_stop.
 *
 * Side calls do not consume turns. Told apart by shape: a POST whose body is not
 * `stream: true` (Claude Code's non-streaming helpers, e.g. a title or a quota probe)
 * gets a plain non-streaming message, and `/v1/messages/count_tokens` gets a token count.
 * Streaming calls without `tools` are side calls too (the agent loop always sends its
 * tool list); they get a short streamed text answer.
 *
 * Retries do not consume turns either. Claude Code 2.1.328 answers a 400 by retrying the
 * same call up to five times, each time dropping one more `anthropic-beta` header (a
 * beta fallback, which also reshapes the tool list and the first message), and 429/5xx by
 * retrying with backoff. A call with as many `messages` as the call that got the scripted
 * error is such a retry (a new agent turn always adds messages), so it gets the same
 * error: the CLI then really gives up and prints its API-error transcript. For 429/5xx
 * Claude backs off for minutes over ten retries and ignores `retry-after`: run it with
 * `CLAUDE_CODE_MAX_RETRIES=1` (or 0) to get there quickly.
 */

/** Usage numbers reported for every scripted turn (fixed, so transcripts are stable). */
const INPUT_TOKENS = 120;
const CACHE_READ_TOKENS = 64;
const CACHE_CREATION_TOKENS = 32;
/**
 * The cache writes by lifetime, as the API breaks them down beside the total: without it Claude Code
 * stores zeros there, which ccusage reads as the writes (docs/usage-vs-ccusage.md).
 */
const CACHE_CREATION = { ephemeral_5m_input_tokens: CACHE_CREATION_TOKENS, ephemeral_1h_input_tokens: 0 };

/** Anthropic's error `type` for an HTTP status, as its API names them. */
function errorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** A content block of the answer, as streamed. */
type Block =
  | { readonly type: 'text'; readonly pieces: readonly string[]; readonly delayMs: number }
  | { readonly type: 'thinking'; readonly thinking: string }
  | { readonly type: 'tool_use'; readonly name: string; readonly input: Record<string, unknown> };

/**
 * The shared script plus a call of any tool by name (`ToolSearch`, an MCP tool
 * `mcp__<server>__<tool>`), the shape a Responses script's `call` has too.
 */
export type AnthropicTurn = ScriptedTurn | { readonly call: string; readonly args: Record<string, unknown> };

/** The blocks a scripted turn streams (an httpError turn has none: it never streams). */
function blocksOf(turn: AnthropicTurn): Block[] {
  if ('shell' in turn) return [{ type: 'tool_use', name: 'Bash', input: { command: turn.shell, description: 'Run the scripted command' } }];
  if ('call' in turn) return [{ type: 'tool_use', name: turn.call, input: turn.args }];
  if ('slowText' in turn) return [{ type: 'text', pieces: turn.slowText.match(/.{1,4}/gs) ?? [''], delayMs: turn.delayMs }];
  if ('thinking' in turn)
    return [
      { type: 'thinking', thinking: turn.thinking },
      { type: 'text', pieces: [turn.text], delayMs: 0 },
    ];
  if ('text' in turn) return [{ type: 'text', pieces: [turn.text], delayMs: 0 }];
  return [];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Streams one assistant message made of `blocks`, in the Messages API's SSE event order. */
async function streamMessage(response: ServerResponse, id: string, model: string, blocks: Block[]): Promise<void> {
  startSse(response);
  let outputTokens = 0;
  sendSse(
    response,
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: INPUT_TOKENS,
          cache_creation_input_tokens: CACHE_CREATION_TOKENS,
          cache_read_input_tokens: CACHE_READ_TOKENS,
          cache_creation: CACHE_CREATION,
          output_tokens: 1,
        },
      },
    },
    'message_start',
  );
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      sendSse(response, { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start');
      for (const piece of block.pieces) {
        if (block.delayMs > 0) await sleep(block.delayMs);
        if (response.destroyed) return;
        sendSse(response, { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }, 'content_block_delta');
      }
      outputTokens += Math.ceil(block.pieces.join('').length / 4);
    } else if (block.type === 'thinking') {
      sendSse(
        response,
        { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
        'content_block_start',
      );
      sendSse(
        response,
        { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } },
        'content_block_delta',
      );
      // Real thinking blocks end with an opaque signature the client sends back verbatim.
      const signature = Buffer.from(`scripted-signature:${id}:${index}`).toString('base64');
      sendSse(response, { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature } }, 'content_block_delta');
      outputTokens += Math.ceil(block.thinking.length / 4);
    } else {
      const input = JSON.stringify(block.input);
      sendSse(
        response,
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: `toolu_${id.slice(4)}_${index}`, name: block.name, input: {} },
        },
        'content_block_start',
      );
      // The API streams tool input as partial JSON text; split it to look like the real thing.
      const half = Math.floor(input.length / 2);
      for (const partial_json of ['', input.slice(0, half), input.slice(half)]) {
        sendSse(response, { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }, 'content_block_delta');
      }
      outputTokens += Math.ceil(input.length / 4);
    }
    sendSse(response, { type: 'content_block_stop', index }, 'content_block_stop');
  }
  const stopReason = blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  sendSse(
    response,
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: {
        input_tokens: INPUT_TOKENS,
        cache_creation_input_tokens: CACHE_CREATION_TOKENS,
        cache_read_input_tokens: CACHE_READ_TOKENS,
        cache_creation: CACHE_CREATION,
        output_tokens: Math.max(outputTokens, 1),
      },
    },
    'message_delta',
  );
  sendSse(response, { type: 'message_stop' }, 'message_stop');
  response.end();
}

/** A complete non-streaming message holding `text` (for side calls). */
function plainMessage(id: string, model: string, text: string): unknown {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: INPUT_TOKENS, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
  };
}

/**
 * A script chosen by what the model is asked rather than by the call's order: given the text of the
 * last user message's last text block (the prompt of the turn), the turn to play. For a host whose
 * agent makes model calls of its own that declare tools too (the Claude Agent SDK's session titles),
 * which would shift an ordered script.
 */
export type ScriptByPrompt = (prompt: string) => AnthropicTurn;

/** The text of the last user message's last text block of a Messages API call ('' when none). */
function lastPrompt(body: Record<string, unknown>): string {
  const last = Array.isArray(body.messages) ? (body.messages.at(-1) as { content?: unknown } | undefined) : undefined;
  if (typeof last?.content === 'string') return last.content;
  const texts = Array.isArray(last?.content) ? last.content.filter((block: { type?: unknown }) => block?.type === 'text') : [];
  return typeof texts.at(-1)?.text === 'string' ? (texts.at(-1).text as string) : '';
}

/**
 * Starts a scripted Anthropic Messages endpoint on 127.0.0.1 that plays `script`, one turn
 * per agent model call, in order (then "done."), or the turn a `ScriptByPrompt` picks for each
 * call. Point Claude Code at it with `ANTHROPIC_BASE_URL=<server.url>` and any `ANTHROPIC_API_KEY`.
 */
export async function startAnthropicEndpoint(script: readonly AnthropicTurn[] | ScriptByPrompt): Promise<ScriptedServer> {
  let turns = 0;
  let messages = 0;
  let failed: { messages: number; status: number; message: string } | null = null;
  return startScriptedServer(async (request, response) => {
    const path = request.url.split('?')[0];
    if (request.method !== 'POST') {
      // Claude Code's HEAD /api/hello probe (and any other non-POST): the endpoint is up.
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end();
      return;
    }
    const body = jsonBody(request);
    const model = typeof body.model === 'string' ? body.model : 'claude-scripted';
    const id = `msg_scripted${String(++messages).padStart(4, '0')}`;
    if (path.endsWith('/count_tokens')) {
      sendJson(response, 200, { input_tokens: INPUT_TOKENS });
      return;
    }
    if (!path.endsWith('/v1/messages')) {
      sendJson(response, 404, { type: 'error', error: { type: 'not_found_error', message: `no scripted route for ${path}` } });
      return;
    }
    if (body.stream !== true) {
      sendJson(response, 200, plainMessage(id, model, 'scripted'));
      return;
    }
    if (!Array.isArray(body.tools)) {
      await streamMessage(response, id, model, [{ type: 'text', pieces: ['scripted'], delayMs: 0 }]);
      return;
    }
    const conversation = Array.isArray(body.messages) ? body.messages.length : 0;
    const turn =
      failed?.messages === conversation
        ? { httpError: failed.status, message: failed.message }
        : typeof script === 'function'
          ? script(lastPrompt(body))
          : turnAt(script, turns++);
    if ('httpError' in turn) {
      failed = { messages: conversation, status: turn.httpError, message: turn.message };
      response.setHeader('request-id', `req_scripted${String(messages).padStart(4, '0')}`);
      sendJson(response, turn.httpError, { type: 'error', error: { type: errorType(turn.httpError), message: turn.message } });
      return;
    }
    failed = null;
    await streamMessage(response, id, model, blocksOf(turn));
  });
}
