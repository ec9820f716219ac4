import type { JsonObject } from '../schema/json';

/*
 * The error convention: one small, provider-neutral set of `error.code`s, with the provider's own
 * code (`metadata.native_code`) and the HTTP status (`metadata.http_status`) beside it. The one home
 * of it: profiles classify with `classifyApiError` and read bodies with `parseErrorBody`; the
 * "Errors" paragraph of docs/decoding.md lists the same codes.
 */

/** The neutral codes of `error` events. */
export const ERROR_CODES = [
  // A model API refused or failed a call (`classifyApiError`).
  'auth', // 401, a bad or missing key, not logged in
  'permission', // 403
  'billing', // out of credits, quota exhausted
  'rate_limit', // 429, a subscription limit reached
  'invalid_request', // 400, 413, 422
  'not_found', // 404, an unknown model
  'context_length', // the prompt does not fit the model's window
  'overloaded', // 529, 503
  'server', // other 5xx
  'api_error', // any other API error
  // The CLI's own limits and notices.
  'retry', // the CLI retries a failed call itself (a warning: the run may still succeed)
  'max_turns',
  'max_tokens', // the output hit its limit
  'budget', // a spending limit
  'refusal', // the model refused
  'compaction_failed',
  'notice', // an informational line of the CLI's
  'execution', // the CLI failed during the run
  // How the runner or the decoder ended a run.
  'no_result',
  'exit_code', // the CLI exited non-zero after its result
  'aborted',
  'timeout',
  'idle_timeout',
  'spawn_failed',
  'budget_exceeded', // the session's usage passed its `maxCostUsd` or `maxTokens`: the CLI was stopped
  'output_limit', // a queued run's stored events passed its size limit (scale/: the worker stopped it)
  'worker_lost', // the worker running a queued run died (scale/: its run is failed, not run again)
  'server_lost', // `serve` stopped (died) while a run of its own was queued or running: failed when it starts again
] as const;

/** One of `ERROR_CODES`. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** What a provider said about a failed API call. */
export interface ApiErrorFields {
  /** The HTTP status, when known. */
  status?: number | null;
  /** The provider's own error type or code (`invalid_request_error`, `INVALID_ARGUMENT`, `rate_limit`…). */
  type?: string | null;
}

/** Native error types, lower-cased, by the neutral code they mean (Anthropic, OpenAI, Google and the CLIs' own names). */
const NATIVE: ReadonlyArray<[ErrorCode, RegExp]> = [
  [
    'auth',
    /^(authentication_error|authentication_failed|unauthenticated|invalid_api_key|oauth_org_not_allowed|account_on_hold|verification_required|cloud_credential_error|not_logged_in)$/,
  ],
  ['permission', /^(permission_error|permission_denied|forbidden)$/],
  ['billing', /^(billing_error|insufficient_quota|credits_required|out_of_credits)$/],
  ['rate_limit', /^(rate_limit_error|rate_limit|rate_limit_exceeded|resource_exhausted|too_many_requests)$/],
  ['context_length', /^(context_length_exceeded|prompt_too_long|request_too_large)$/],
  ['max_tokens', /^(max_output_tokens|max_tokens)$/],
  ['invalid_request', /^(invalid_request_error|invalid_request|invalid_argument|bad_request|failed_precondition)$/],
  ['not_found', /^(not_found_error|not_found|model_not_found)$/],
  ['overloaded', /^(overloaded_error|overloaded|unavailable|server_is_overloaded)$/],
  ['server', /^(api_error|server_error|internal|internal_server_error|deadline_exceeded)$/],
];

/** The neutral code of a failed API call: its native type when it names one, else its HTTP status. */
export function classifyApiError(fields: ApiErrorFields): ErrorCode {
  const type = fields.type?.trim().toLowerCase() ?? '';
  for (const [code, pattern] of NATIVE) if (pattern.test(type)) return code;
  const status = fields.status ?? null;
  if (status === null) return 'api_error';
  if (status === 401) return 'auth';
  if (status === 402) return 'billing';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 413) return 'context_length';
  if (status === 429) return 'rate_limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  if (status >= 400) return 'invalid_request';
  return 'api_error';
}

/** The metadata that goes beside a neutral code: the native code and the HTTP status, when known. */
export function nativeErrorMetadata(fields: ApiErrorFields): JsonObject {
  const metadata: JsonObject = {};
  if (fields.type) metadata.native_code = fields.type;
  if (typeof fields.status === 'number') metadata.http_status = fields.status;
  return metadata;
}

/** An API error body, read. */
export interface ErrorBody extends ApiErrorFields {
  message: string;
}

/**
 * Reads an API error body out of an error text, or null when the text holds none. The CLIs pass
 * bodies on as text: Codex puts the raw JSON body in its message (`{"error":{"message":…,"type":…}}`),
 * Gemini wraps it (`[API Error: {"error":{"code":400,"message":…,"status":"INVALID_ARGUMENT"}}]`),
 * Claude prefixes a status (`API Error: 400 {…}`).
 */
export function parseErrorBody(text: string): ErrorBody | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end < start) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
  const outer = asObject(parsed);
  const error = asObject(outer?.error) ?? outer;
  if (!error) return null;
  const message = typeof error.message === 'string' ? error.message : null;
  if (message === null) return null;
  // OpenAI: `type` (and sometimes a string `code`); Google: numeric `code` (the HTTP status) and `status`; Anthropic: `type`.
  const status = typeof error.code === 'number' ? error.code : (statusBefore(text, start) ?? null);
  const type = firstString(error.status, error.type, typeof error.code === 'string' ? error.code : null);
  return { message, status, type };
}

/** A status the text names (`unexpected status 401 Unauthorized`, `HTTP 529`), or null. */
function statusIn(text: string): number | null {
  const match = /\b(?:status|HTTP)(?: code)?:?\s*([1-5]\d\d)\b/i.exec(text);
  return match ? Number(match[1]) : null;
}

/** A status written before the body (`API Error: 400 {…}`). */
function statusBefore(text: string, bodyStart: number): number | null {
  const match = /\b([1-5]\d\d)\D*$/.exec(text.slice(0, bodyStart));
  return match ? Number(match[1]) : null;
}

function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function firstString(...values: unknown[]): string | null {
  for (const value of values) if (typeof value === 'string' && value !== '') return value;
  return null;
}

/** A failed API call, normalized: the message (the body's own when `text` carries one), the neutral code, and its metadata. */
export interface ApiError {
  message: string;
  code: ErrorCode;
  metadata: JsonObject;
}

/**
 * Reads a failed API call from a provider's error text and what it says beside it: a JSON body in
 * the text gives the message, the native type and the status, unless `fields` names them already.
 */
export function readApiError(text: string, fields: ApiErrorFields = {}): ApiError {
  const body = parseErrorBody(text);
  const known = { status: fields.status ?? body?.status ?? statusIn(text), type: fields.type ?? body?.type ?? null };
  return { message: body?.message ?? text, code: classifyApiError(known), metadata: nativeErrorMetadata(known) };
}
