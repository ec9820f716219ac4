import type { ErrorSeverity } from '../payloads/error.payload';
import type { JsonObject, JsonValue } from '../schema/json';
import type { EventDraft } from './profile';

/*
 * Small readers and draft builders shared by the provider profiles. Native lines are
 * untrusted: every reader answers null (or a default) for a value of the wrong type
 * instead of throwing, so one odd field never costs the rest of the line.
 */

/** `value` when it is a string, else null. */
export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** `value` when it is a finite number, else null. */
export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** `value` when it is a plain JSON object (not an array), else null. */
export function obj(value: unknown): JsonObject | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

/** `value` when it is an array, else an empty one. */
export function arr(value: unknown): JsonValue[] {
  return Array.isArray(value) ? (value as JsonValue[]) : [];
}

/** A non-negative integer token count, or 0. */
function tokens(value: unknown): number {
  const n = num(value);
  return n !== null && n >= 0 ? Math.floor(n) : 0;
}

/** Token counts (and cost) as the providers report them; missing counts are 0. */
export interface Usage {
  input_tokens?: unknown;
  output_tokens?: unknown;
  total_tokens?: unknown;
  cost_usd?: unknown;
}

/** A `cost_update` draft; `total_tokens` defaults to input + output when the provider gives none. */
export function costDraft(usage: Usage, metadata: JsonObject = {}): EventDraft {
  const input = tokens(usage.input_tokens);
  const output = tokens(usage.output_tokens);
  const total = usage.total_tokens === undefined || usage.total_tokens === null ? input + output : tokens(usage.total_tokens);
  const cost = num(usage.cost_usd);
  return {
    kind: 'cost_update',
    payload: { input_tokens: input, output_tokens: output, total_tokens: total, cost_usd: cost !== null && cost >= 0 ? cost : 0, metadata },
  };
}

/** An `error` draft. */
export function errorDraft(message: string, severity: ErrorSeverity, code: string | null = null, metadata: JsonObject = {}): EventDraft {
  return { kind: 'error', payload: { message, severity, code, metadata } };
}

/** How a run ended, as a profile read it from the provider's terminal line. */
export interface Outcome {
  /** Any sign of failure makes this true (Claude prints `"subtype":"success"` with `"is_error":true` for API errors). */
  failed: boolean;
  /** The provider's own error text; used as the error event's message on failure. */
  errorMessage?: string | null;
  errorCode?: string | null;
  /** `fatal` when the run cannot go on; default `error`. */
  severity?: ErrorSeverity;
  stop_reason?: JsonValue;
  output?: JsonValue;
  object?: JsonValue;
  metadata?: JsonObject;
}

/**
 * The drafts that end a run: on failure first an `error` carrying the provider's text, then
 * the `result` with status `completed` or `failed`. The one home of "every failure also
 * yields an error event", for every profile and for the decoder's own end of stream.
 */
export function finishDrafts(outcome: Outcome): EventDraft[] {
  const result: EventDraft = {
    kind: 'result',
    payload: {
      status: outcome.failed ? 'failed' : 'completed',
      stop_reason: outcome.stop_reason ?? null,
      output: outcome.output ?? null,
      object: outcome.object ?? null,
      metadata: outcome.metadata ?? {},
    },
  };
  if (!outcome.failed) return [result];
  const message = outcome.errorMessage?.trim() || 'the run failed';
  return [errorDraft(message, outcome.severity ?? 'error', outcome.errorCode ?? null), result];
}
