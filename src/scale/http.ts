import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessCheck, checkSameOrigin, type AccessOptions } from '../http/access';
import { HttpError, sendJson } from '../http/http-error';
import { readJsonBody } from '../http/json-body';
import { END_MESSAGE, SseWriter } from '../http/sse-writer';
import { isEntryId } from './entry-id';
import { clientEntries } from './stream-entry';
import { BODY_ROOM_BYTES, DEFAULT_MAX_PROMPT_BYTES } from './limits';
import { isOwnedRun, isRunId, ownedRun } from './owned-run';
import { checkedPrompt, checkQueueLimits, queueRequestedRun, sessionJobFromRequest, type RunPolicy } from './request-policy';
import { runsPageAssets } from './runs-page';
import { cursorText, isOpen, parseCursor, type RecordKind, type RunCursor, type RunRecord, type RunSummary } from './run-record';
import { holdsSessions, MAX_WAITING_MESSAGES, type RunStore } from './store';
import type { ApprovalAnswer } from '../sessions/types';

/** Runs in a page of `GET /runs` when the request says not. */
const DEFAULT_PAGE_RUNS = 20;
/** The most runs a page of `GET /runs` holds. */
const MAX_PAGE_RUNS = 100;

/**
 * Options of `createRunsHandler`: who may call (`AccessOptions`: exactly one of `token`,
 * `authenticate` or `noAuth`), what a request may ask, and the limits.
 */
export interface RunsHandlerOptions extends AccessOptions, RunPolicy {
  /** Milliseconds between SSE comments that keep idle connections open; default 15000. */
  keepAliveMs?: number;
  /** Called with an error the handler did not expect (it answers 500, or ends a stream already begun). */
  onError?: (error: unknown) => void;
}

/**
 * The runs API as a plain Node request handler (`http.createServer(handler)`), over any store.
 * Every API call needs the caller's principal (`Authorization: Bearer <token>` by default: 401
 * without), a `Host` of this server's and no foreign `Origin` (403), and a POST body sent as
 * `application/json` (415); a run is its principal's alone (another principal's answers 404, as an
 * unknown one does):
 * - `POST /runs` `{provider, prompt, model?, approvals?}` → 201 `{id}`: queues a run (403 for a
 *   policy or model the operator does not allow, 413 for a prompt too long, 429 past the limits);
 * - `GET /runs?limit=&before=` → `{runs, next}`: the caller's runs (`RunSummary`: status, times, the
 *   prompt's first line, usage, changes, expiry), newest first, `limit` (default 20, at most 100)
 *   at a time, older than `before` (a run id of the caller's, or the `next` of the page before);
 * - `GET /runs/:id`: the run's `RunSummary`;
 * - `DELETE /runs/:id` → 204: removes a run that has ended, its record, events and diff (409 while
 *   it is queued or running: cancel it first);
 * - `GET /runs/:id/events`: its events as server-sent events, each message's `id:` the stream entry
 *   id, so a client that reconnects with `Last-Event-ID` (or `?after=`) gets exactly the events after
 *   it; the stream ends with the run (`event: end`). Disconnecting never stops the run;
 * - `GET /runs/:id/diff`: what the run changed in its worktree, as a patch (`text/x-diff`);
 * - `POST /runs/:id/cancel` → 202: cancels it (wherever it runs);
 * - `POST /runs/:id/approvals/:approvalId` `{decision: 'allow'|'deny', reason?}` → 202: answers an
 *   approval (to the worker holding the run);
 * - `POST /sessions` `{provider, model?, approvals?}` → 201 `{id}`: opens a conversation (nothing
 *   runs yet; the same policy as a run's); `POST /sessions/:id/messages` `{text}` → 202 `{turn}`:
 *   queues a turn, played after the ones before it on the same CLI (409 past 10 waiting, or once the
 *   session is closed); `GET /sessions/:id/events`: the whole conversation as one SSE stream (the
 *   same cursors and `Last-Event-ID` resume, each turn starting with its message, a `user_message`
 *   whose `metadata.turn` is its number, and ending with its `result`, the stream ending
 *   when the session is closed); `POST /sessions/:id/interrupt` (ends the running turn),
 *   `POST /sessions/:id/approvals/:approvalId`, `GET /sessions/:id/diff`; `DELETE /sessions/:id`
 *   → 204 closes it (its CLI too), and removes a closed one; `GET /sessions`, `GET /sessions/:id`:
 *   the caller's sessions, as `GET /runs`. On a store that holds no sessions (a custom one): 501.
 * - `GET /`: a page listing the caller's conversations and runs, to start, read, continue and end
 *   them (`runs-page.ts`, and its files `/page.css`, `/text.js`, `/page.js`), which reads its token
 *   from the URL's fragment (`/#token=…`).
 * Answers false for a request it does not handle (404 unless the caller serves it); no request
 * makes it throw.
 */
export function createRunsHandler(
  store: RunStore,
  options: RunsHandlerOptions,
): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  const check = accessCheck(options);
  const maxBodyBytes = (options.maxPromptBytes ?? DEFAULT_MAX_PROMPT_BYTES) + BODY_ROOM_BYTES;
  const route = async (request: IncomingMessage, response: ServerResponse): Promise<boolean> => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const parts = url.pathname
      .split('/')
      .filter((part) => part !== '')
      .map(decodePart);
    const asset = request.method === 'GET' ? runsPageAssets().get(url.pathname) : undefined;
    if (asset) {
      checkSameOrigin(request, options.allowedHosts);
      response.writeHead(200, asset.headers);
      response.end(asset.body);
      return true;
    }
    if (parts[0] !== 'runs' && parts[0] !== 'sessions') return false;
    const principal = await check(request);
    if (parts[0] === 'sessions') return routeSessions(store, { request, response, url, parts, principal }, options, maxBodyBytes);
    if (request.method === 'POST' && parts.length === 1) {
      sendJson(response, 201, { id: await queueRequestedRun(store, await readJsonBody(request, maxBodyBytes), principal, options) });
      return true;
    }
    if (request.method === 'GET' && parts.length === 1) {
      sendJson(response, 200, await listRuns(store, principal, url.searchParams, 'run'));
      return true;
    }
    const runId = parts[1] ?? '';
    if (parts.length === 2 && (request.method === 'GET' || request.method === 'DELETE')) {
      const record = await ownedRun(store, runId, principal);
      if (!record) throw new HttpError(404, 'no such run');
      if (request.method === 'GET') {
        sendJson(response, 200, summaryOf(record));
        return true;
      }
      if (isOpen(record) || !(await store.deleteRun(runId))) throw new HttpError(409, 'the run has not ended: cancel it first');
      sendNoContent(response);
      return true;
    }
    const what = `${request.method} ${parts.length === 3 || parts.length === 4 ? parts[2] : ''}`;
    if (!['GET events', 'GET diff', 'POST cancel', 'POST approvals'].includes(what) || parts.length !== (what === 'POST approvals' ? 4 : 3))
      return false;
    if (!(await isOwnedRun(store, runId, principal))) throw new HttpError(404, 'no such run');
    if (await routeStream(store, runId, what, { request, response, url, parts, principal }, options)) return true;
    await store.cancel(runId);
    sendJson(response, 202, {});
    return true;
  };
  return async (request, response) => {
    try {
      return await route(request, response);
    } catch (error) {
      if (!(error instanceof HttpError)) options.onError?.(error);
      // A response already begun (an SSE stream) is ended, never answered twice.
      if (response.headersSent) response.end();
      else if (error instanceof HttpError) sendJson(response, error.status, { error: error.message }, error.headers);
      else sendJson(response, 500, { error: 'internal error' });
      return true;
    }
  };
}

/** One API request, its caller known. */
interface Call {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly url: URL;
  /** The path's segments, decoded. */
  readonly parts: readonly string[];
  readonly principal: string;
}

/**
 * The `/sessions` routes: a conversation per session, each message a queued turn, one event
 * stream for the whole conversation. 501 on a store that holds no sessions (a custom `RunStore`).
 */
async function routeSessions(store: RunStore, call: Call, options: RunsHandlerOptions, maxBodyBytes: number): Promise<boolean> {
  const { request, response, url, parts, principal } = call;
  if (!holdsSessions(store))
    throw new HttpError(501, 'this server holds no sessions: its store does not offer them; POST /runs runs one turn');
  if (request.method === 'POST' && parts.length === 1) {
    const job = sessionJobFromRequest(await readJsonBody(request, BODY_ROOM_BYTES), options.allow ?? {}, options.jobDefaults ?? {});
    sendJson(response, 201, { id: await store.openSession(job, { owner: principal }) });
    return true;
  }
  if (request.method === 'GET' && parts.length === 1) {
    sendJson(response, 200, await listRuns(store, principal, url.searchParams, 'session'));
    return true;
  }
  const what = `${request.method} ${parts[2] ?? ''}`;
  const known = ['GET ', 'DELETE ', 'POST messages', 'GET events', 'GET diff', 'POST interrupt', 'POST approvals'];
  if (!known.includes(what) || parts.length !== (what === 'POST approvals' ? 4 : what.endsWith(' ') ? 2 : 3)) return false;
  const sessionId = parts[1];
  const record = await ownedRun(store, sessionId, principal, 'session');
  if (!record) throw new HttpError(404, 'no such session');
  if (what === 'GET ') {
    sendJson(response, 200, summaryOf(record));
  } else if (what === 'DELETE ') {
    // An open session is closed (its CLI too); a closed one is removed: its record, events and diff.
    if (!(await store.closeSession(sessionId)) && !(await store.deleteRun(sessionId)))
      throw new HttpError(409, 'the session is closing: try again');
    sendNoContent(response);
  } else if (what === 'POST messages') {
    const body = await readJsonBody(request, maxBodyBytes);
    const text = checkedPrompt('text', body.text, options.maxPromptBytes);
    await checkQueueLimits(store, principal, options);
    const sent = await store.sendMessage(sessionId, text);
    if ('refused' in sent) {
      if (sent.refused === 'no_session') throw new HttpError(404, 'no such session');
      throw new HttpError(
        409,
        sent.refused === 'full' ? `the session already has ${MAX_WAITING_MESSAGES} messages waiting` : 'the session is closed',
      );
    }
    sendJson(response, 202, sent);
  } else if (!(await routeStream(store, sessionId, what, call, options))) {
    await store.interrupt(sessionId);
    sendJson(response, 202, {});
  }
  return true;
}

/**
 * What a run and a session share, on `id` (its owner checked): `GET …/events`, `GET …/diff`,
 * `POST …/approvals/:approvalId`. False for another route, answering nothing.
 */
async function routeStream(store: RunStore, id: string, what: string, call: Call, options: RunsHandlerOptions): Promise<boolean> {
  const { request, response, url, parts } = call;
  if (what === 'GET events') {
    await streamEvents(store, id, request, response, url, options.keepAliveMs ?? 15_000);
  } else if (what === 'GET diff') {
    await sendDiff(store, id, response);
  } else if (what === 'POST approvals') {
    await store.approve(id, parts[3], await readApproval(request));
    sendJson(response, 202, {});
  } else {
    return false;
  }
  return true;
}

/** `POST …/approvals/:approvalId`'s body: `{decision: 'allow'|'deny', reason?}`; 400 otherwise. */
async function readApproval(request: IncomingMessage): Promise<ApprovalAnswer> {
  const body = await readJsonBody(request, BODY_ROOM_BYTES);
  if (body.decision !== 'allow' && body.decision !== 'deny') throw new HttpError(400, "decision must be 'allow' or 'deny'");
  if (body.reason !== undefined && typeof body.reason !== 'string') throw new HttpError(400, 'reason must be a string');
  return { decision: body.decision, reason: body.reason as string | undefined };
}

/** `GET …/diff`: the patch of what the run or session changed in its worktree (`text/x-diff`); 404 when none. */
async function sendDiff(store: RunStore, runId: string, response: ServerResponse): Promise<void> {
  const patch = await store.readDiff(runId);
  if (patch === null) throw new HttpError(404, 'no diff: nothing changed yet, or it did not run in a worktree');
  response.writeHead(200, { 'content-type': 'text/x-diff; charset=utf-8', 'cache-control': 'no-store' });
  response.end(patch);
}

function sendNoContent(response: ServerResponse): void {
  response.writeHead(204, { 'cache-control': 'no-store' });
  response.end();
}

/** `GET /runs`, `GET /sessions`: a page of `principal`'s runs (or sessions), and the cursor of the next page (null at the last). */
async function listRuns(
  store: RunStore,
  principal: string,
  query: URLSearchParams,
  kind: RecordKind,
): Promise<{ runs: RunSummary[]; next: string | null }> {
  const givenLimit = query.get('limit');
  if (givenLimit !== null && !(/^\d{1,3}$/.test(givenLimit) && Number(givenLimit) >= 1 && Number(givenLimit) <= MAX_PAGE_RUNS)) {
    throw new HttpError(400, `limit must be a whole number from 1 to ${MAX_PAGE_RUNS}`);
  }
  const limit = givenLimit === null ? DEFAULT_PAGE_RUNS : Number(givenLimit);
  const givenBefore = query.get('before');
  const before = givenBefore === null ? undefined : await cursorOf(store, principal, givenBefore, kind);
  // One more than the page: whether there is a next page is known, not guessed.
  const records = await store.listRuns(principal, { limit: limit + 1, before, kind });
  const page = records.slice(0, limit);
  const last = page.at(-1);
  return {
    runs: page.map(summaryOf),
    next: records.length > limit && last ? cursorText({ createdAt: Date.parse(last.created_at), id: last.id }) : null,
  };
}

/** `?before=`: a cursor (`next`), or the id of one of the caller's runs; 400 for anything else. */
async function cursorOf(store: RunStore, principal: string, given: string, kind: RecordKind): Promise<RunCursor> {
  const cursor = parseCursor(given);
  if (cursor) return cursor;
  const record = isRunId(given) ? await ownedRun(store, given, principal, kind) : null;
  if (!record) throw new HttpError(400, 'before must be the next of a page, or the id of a run of yours');
  return { createdAt: Date.parse(record.created_at), id: record.id };
}

/** What a caller is shown of a run: all but its owner (the caller). */
function summaryOf(record: RunRecord): RunSummary {
  const summary: RunSummary & { owner?: string | null } = { ...record };
  delete summary.owner;
  return summary;
}

/** A path segment, decoded; a malformed escape is the client's mistake. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new HttpError(400, `a malformed path: ${part}`);
  }
}

/**
 * A run's events as SSE from the cursor the client gives (`Last-Event-ID`, or `?after=`), then as
 * they come, until the run ends; a client that leaves stops only its reading.
 */
/** What `?raw=` asks the CLI's raw lines with. */
const RAW_ASKED = new Set(['1', 'true']);

async function streamEvents(
  store: RunStore,
  runId: string,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  keepAliveMs: number,
): Promise<void> {
  const given = request.headers['last-event-id'] ?? url.searchParams.get('after') ?? undefined;
  const after = typeof given === 'string' && isEntryId(given) ? given : undefined;
  const sse = new SseWriter(response);
  // A reconnecting EventSource waits a second: the run goes on meanwhile.
  sse.open({ retryMs: 1000, keepAliveMs });
  const reading = new AbortController();
  const leave = () => reading.abort();
  request.on('close', leave);
  try {
    // Each entry's JSON as it was appended: nothing is parsed or stringified again here. The CLI's raw
    // lines only when asked (`?raw=1`): the cursors skip them either way.
    const entries = store.readRunEvents(runId, { after, signal: reading.signal });
    for await (const { id, json } of clientEntries(entries, RAW_ASKED.has(url.searchParams.get('raw') ?? ''))) {
      if (reading.signal.aborted || sse.gone) break;
      await sse.send({ id, data: json });
    }
    // The run is over: the client is told, so that EventSource does not reconnect for more.
    if (!reading.signal.aborted) await sse.send(END_MESSAGE);
  } finally {
    request.off('close', leave);
    sse.end();
  }
}
