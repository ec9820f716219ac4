import type { ServerResponse } from 'node:http';
import { turnAt, type ScriptedTurn } from './script';
import { jsonBody, sendJson, sendSse, startScriptedServer, startSse, type ScriptedServer } from './server';

/*
 * A scripted Gemini API (generativelanguage v1beta) for Gemini CLI
 * (GOOGLE_GEMINI_BASE_URL=<url>, any GEMINI_API_KEY). The CLI's @google/genai client calls
 * `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` for every agent turn and reads
 * `data: {GenerateContentResponse}` SSE frames; each such call plays the next scripted turn.
 *
 * Side calls do not consume turns. Before a turn the CLI routes the request with a
 * non-streaming `:generateContent` call whose answer must be JSON text (its classifiers
 * parse `{reasoning, model_choice}` or `{complexity_reasoning, complexity_score}`); every
 * `:generateContent` call gets one JSON text that satisfies all of them, and `:countTokens`
 * gets a count.
 *
 * Retries do not consume turns either. Gemini CLI 0.61 does not retry a 400 but retries
 * 429 and 5xx up to 10 times with a 5–30 s backoff. A streaming call whose `contents` equal
 * those of the call that got the scripted error is such a retry, so it gets the same error:
 * a scripted 400 ends the run at once; a scripted 429/5xx ends it only after the CLI's
 * retries (minutes), so prefer 400 where a quick failure is wanted.
 */

/** Usage numbers reported for every scripted turn (fixed, so transcripts are stable). */
const PROMPT_TOKENS = 120;
const CACHED_TOKENS = 64;

/** Google's RPC status name for an HTTP status, as in the API's error JSON. */
function rpcStatus(status: number): string {
  switch (status) {
    case 400:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'ABORTED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 499:
      return 'CANCELLED';
    case 501:
      return 'NOT_IMPLEMENTED';
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
  }
}

/** Google's error body: `{error: {code, message, status}}`. */
function sendGoogleError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: { code: status, message, status: rpcStatus(status) } });
}

/** One content part of a streamed chunk, as the Gemini API shapes them. */
type Part = { text: string; thought?: true } | { functionCall: { name: string; args: Record<string, unknown> } };

/** The shared script plus a call of any tool by name (`write_file`), the shape a Responses script's `call` has too. */
export type GeminiTurn = ScriptedTurn | { readonly call: string; readonly args: Record<string, unknown> };

/** The chunks a scripted turn streams, each a list of parts, and the pause before each. */
function chunksOf(turn: GeminiTurn): { parts: Part[][]; delayMs: number } {
  if ('call' in turn) return { parts: [[{ functionCall: { name: turn.call, args: turn.args } }]], delayMs: 0 };
  if ('shell' in turn) {
    return {
      parts: [[{ functionCall: { name: 'run_shell_command', args: { command: turn.shell, description: 'Run the scripted command' } } }]],
      delayMs: 0,
    };
  }
  if ('slowText' in turn) return { parts: pieces(turn.slowText, 4).map((text) => [{ text }]), delayMs: turn.delayMs };
  // Real answers arrive in several chunks cut anywhere, mid-word included.
  const text = 'text' in turn ? pieces(turn.text, 7).map((piece) => [{ text: piece }]) : [];
  if ('thinking' in turn) return { parts: [[{ text: turn.thinking, thought: true }], ...text], delayMs: 0 };
  return { parts: text, delayMs: 0 };
}

/** `text` cut into pieces of `size` characters (whole code points, so no UTF-16 half is sent alone). */
function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out.length > 0 ? out : [''];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A rough token count (4 characters a token), at least 1. */
const tokensOf = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** Streams one scripted answer as GenerateContentResponse SSE frames; the last one carries finishReason and usage. */
async function streamAnswer(response: ServerResponse, responseId: string, model: string, turn: GeminiTurn): Promise<void> {
  const { parts, delayMs } = chunksOf(turn);
  startSse(response);
  let candidates = 0;
  let thoughts = 0;
  for (const [index, chunk] of parts.entries()) {
    if (delayMs > 0) await sleep(delayMs);
    if (response.destroyed) return;
    for (const part of chunk) {
      if ('functionCall' in part) candidates += tokensOf(JSON.stringify(part.functionCall));
      else if (part.thought) thoughts += tokensOf(part.text);
      else candidates += tokensOf(part.text);
    }
    const last = index === parts.length - 1;
    sendSse(response, {
      candidates: [{ content: { role: 'model', parts: chunk }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
      usageMetadata: last
        ? {
            promptTokenCount: PROMPT_TOKENS,
            candidatesTokenCount: candidates,
            totalTokenCount: PROMPT_TOKENS + candidates + thoughts,
            cachedContentTokenCount: CACHED_TOKENS,
            ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
          }
        : { promptTokenCount: PROMPT_TOKENS, totalTokenCount: PROMPT_TOKENS },
      modelVersion: model,
      responseId,
    });
  }
  response.end();
}

/**
 * The answer to every non-streaming `generateContent` call: JSON text that each of the
 * CLI's routing classifiers accepts (their zod schemas ignore the other one's keys).
 */
function routingAnswer(responseId: string, model: string): unknown {
  const text = JSON.stringify({ reasoning: 'scripted', model_choice: 'flash', complexity_reasoning: 'scripted', complexity_score: 10 });
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: PROMPT_TOKENS,
      candidatesTokenCount: tokensOf(text),
      totalTokenCount: PROMPT_TOKENS + tokensOf(text),
    },
    modelVersion: model,
    responseId,
  };
}

/**
 * Starts a scripted Gemini API endpoint on 127.0.0.1 that plays `script`, one turn per
 * agent model call (`streamGenerateContent`), in order (then "done."). Point Gemini CLI at
 * it with `GOOGLE_GEMINI_BASE_URL=<server.url>` and any `GEMINI_API_KEY`.
 */
export async function startGeminiEndpoint(script: readonly GeminiTurn[]): Promise<ScriptedServer> {
  let turns = 0;
  let calls = 0;
  let failed: { contents: string; status: number; message: string } | null = null;
  return startScriptedServer(async (request, response) => {
    const path = request.url.split('?')[0];
    // e.g. /v1beta/models/gemini-3.5-flash:streamGenerateContent
    const route = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(path);
    if (request.method !== 'POST' || !route) {
      sendGoogleError(response, 404, `no scripted route for ${request.method} ${path}`);
      return;
    }
    const [, model, method] = route;
    const body = jsonBody(request);
    const responseId = `scripted-${String(++calls).padStart(4, '0')}`;
    if (method === 'countTokens') {
      sendJson(response, 200, { totalTokens: PROMPT_TOKENS });
      return;
    }
    if (method === 'generateContent') {
      sendJson(response, 200, routingAnswer(responseId, model));
      return;
    }
    if (method !== 'streamGenerateContent') {
      sendGoogleError(response, 404, `no scripted method ${method}`);
      return;
    }
    const contents = JSON.stringify(body.contents ?? null);
    const turn = failed?.contents === contents ? { httpError: failed.status, message: failed.message } : turnAt(script, turns++);
    if ('httpError' in turn) {
      failed = { contents, status: turn.httpError, message: turn.message };
      sendGoogleError(response, turn.httpError, turn.message);
      return;
    }
    failed = null;
    await streamAnswer(response, responseId, model, turn);
  });
}
