import type { IncomingMessage, ServerResponse } from 'node:http';
import { drainedOrGone } from '../http/drained-or-gone';
import { SSE_HEADERS } from '../http/sse-headers';
import { SESSION_CLIS } from '../sessions/clis';
import type { ApprovalPolicy, SessionProvider } from '../sessions/types';
import { APPROVAL_POLICIES } from '../sessions/types';
import { isEntryId } from './entry-id';
import { RUNS_PAGE } from './page';
import type { RunJob } from './run-job';
import type { RunStore } from './store';

/** Options of `createRunsHandler`. */
export interface RunsHandlerOptions {
  /**
   * What every run started over HTTP gets from the server, never from the request: where the CLI
   * runs (`cwd`), which executable, its environment and arguments. A request names only the CLI,
   * the prompt, the model and who answers approvals.
   */
  jobDefaults?: Omit<RunJob, 'provider' | 'prompt'>;
  /** Milliseconds between SSE comments that keep idle connections open; default 15000. */
  keepAliveMs?: number;
}

const PROVIDERS = Object.keys(SESSION_CLIS) as SessionProvider[];
/** A request body larger than this is refused (a prompt is text, not an upload). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The runs API as a plain Node request handler (`http.createServer(handler)`), over any store:
 * - `POST /runs` `{provider, prompt, model?, approvals?}` → 201 `{id}`: queues a run;
 * - `GET /runs/:id/events`: its events as server-sent events, each message's `id:` the stream entry
 *   id, so a client that reconnects with `Last-Event-ID` (or `?after=`) gets exactly the events after
 *   it; the stream ends with the run. Disconnecting never stops the run;
 * - `POST /runs/:id/cancel` → 202: cancels it (wherever it runs);
 * - `POST /runs/:id/approvals/:approvalId` `{decision: 'allow'|'deny', reason?}` → 202: answers an
 *   approval (to the worker holding the run);
 * - `GET /`: a page to start runs and watch them (`page.ts`).
 * Answers false for a request it does not handle (404 unless the caller serves it).
 */
export function createRunsHandler(store: RunStore, options: RunsHandlerOptions = {}): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  return async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    try {
      const parts = url.pathname.split('/').filter((part) => part !== '').map(decodePart);
      if (request.method === 'GET' && parts.length === 0) {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        response.end(RUNS_PAGE);
        return true;
      }
      if (parts[0] !== 'runs') return false;
      if (request.method === 'POST' && parts.length === 1) {
        const job = jobOf(await readJson(request), options.jobDefaults ?? {});
        sendJson(response, 201, { id: await store.enqueueRun(job) });
        return true;
      }
      const runId = parts[1] ?? '';
      if (request.method === 'GET' && parts.length === 3 && parts[2] === 'events') {
        await streamEvents(store, runId, request, response, url, options.keepAliveMs ?? 15_000);
        return true;
      }
      if (request.method === 'POST' && parts.length === 3 && parts[2] === 'cancel') {
        await store.cancel(runId);
        sendJson(response, 202, {});
        return true;
      }
      if (request.method === 'POST' && parts.length === 4 && parts[2] === 'approvals') {
        const body = await readJson(request);
        if (body.decision !== 'allow' && body.decision !== 'deny') throw new BadRequest("decision must be 'allow' or 'deny'");
        if (body.reason !== undefined && typeof body.reason !== 'string') throw new BadRequest('reason must be a string');
        await store.approve(runId, parts[3], { decision: body.decision, reason: body.reason as string | undefined });
        sendJson(response, 202, {});
        return true;
      }
      return false;
    } catch (error) {
      if (!(error instanceof BadRequest)) throw error;
      sendJson(response, 400, { error: error.message });
      return true;
    }
  };
}

class BadRequest extends Error {}

/** A path segment, decoded; a malformed escape is the client's mistake. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new BadRequest(`a malformed path: ${part}`);
  }
}

/** The job a request asks for: what it may choose, over the server's own defaults. */
function jobOf(body: Record<string, unknown>, defaults: Omit<RunJob, 'provider' | 'prompt'>): RunJob {
  const { provider, prompt, model, approvals } = body;
  if (typeof provider !== 'string' || !(PROVIDERS as string[]).includes(provider)) throw new BadRequest(`provider must be one of ${PROVIDERS.join(', ')}`);
  if (typeof prompt !== 'string' || prompt.trim() === '') throw new BadRequest('prompt must be a non-empty string');
  if (model !== undefined && typeof model !== 'string') throw new BadRequest('model must be a string');
  if (approvals !== undefined && !(APPROVAL_POLICIES as readonly unknown[]).includes(approvals)) throw new BadRequest(`approvals must be one of ${APPROVAL_POLICIES.join(', ')}`);
  const job: RunJob = { ...defaults, provider: provider as SessionProvider, prompt };
  if (model !== undefined) job.model = model;
  if (approvals !== undefined) job.approvals = approvals as ApprovalPolicy;
  return job;
}

/**
 * A run's events as SSE from the cursor the client gives (`Last-Event-ID`, or `?after=`), then as
 * they come, until the run ends; a client that leaves stops only its reading.
 */
async function streamEvents(store: RunStore, runId: string, request: IncomingMessage, response: ServerResponse, url: URL, keepAliveMs: number): Promise<void> {
  const given = request.headers['last-event-id'] ?? url.searchParams.get('after') ?? undefined;
  const after = typeof given === 'string' && isEntryId(given) ? given : undefined;
  response.writeHead(200, { ...SSE_HEADERS });
  // A reconnecting EventSource waits this long: the run goes on meanwhile.
  response.write('retry: 1000\n\n');
  const reading = new AbortController();
  const leave = () => reading.abort();
  request.on('close', leave);
  const keepAlive = setInterval(() => {
    if (!response.destroyed) response.write(': keep-alive\n\n');
  }, keepAliveMs);
  try {
    for await (const { id, event } of store.readRunEvents(runId, { after, signal: reading.signal })) {
      if (reading.signal.aborted || response.destroyed) break;
      // A full buffer waits for the client, or for its leaving (then 'drain' never comes).
      if (!response.write(`id: ${id}\ndata: ${JSON.stringify(event)}\n\n`)) await drainedOrGone(response);
    }
    // The run is over: the client is told, so that EventSource does not reconnect for more.
    if (!reading.signal.aborted) response.write('event: end\ndata: {}\n\n');
  } finally {
    clearInterval(keepAlive);
    request.off('close', leave);
    response.end();
  }
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BadRequest(`the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new BadRequest('the body must be a JSON object');
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
