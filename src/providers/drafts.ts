import type { ErrorSeverity } from '../payloads/error.payload';
import { hasOwn, setOwn, type JsonObject, type JsonValue } from '../schema/json';
import type { ErrorCode } from './error-codes';
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

/*
 * Building metadata: a profile adds keys to a fresh object (`pick`, `extend`, `copyOf` then plain
 * assignments) rather than spreading an object into a literal with more keys after it: on Node 20
 * `{ ...metadata, key: value }` takes V8's slow path (0.4 µs and more per object, measured on the
 * decoding benches), while assigning the same keys in the same order gives the same object.
 */

/**
 * The `keys` that `from` has (own, not undefined), set on `into` (default: a new object) in the
 * order of `keys`: what a profile keeps of a line as it is. `keys` are the profile's own names
 * (none is `__proto__`), so they are assigned as they are.
 */
export function pick(from: JsonObject, keys: readonly string[], into: JsonObject = {}): JsonObject {
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    // The load first: most keys are absent, and the own-key test is only needed for a value found.
    const value = from[key];
    if (value !== undefined && hasOwn(from, key)) into[key] = value;
  }
  return into;
}

/** Sets the own keys of `from` on `to`, in order (a `__proto__` key stays a key); answers `to`: `{ ...to, ...from }` without a copy. */
export function extend(to: JsonObject, from: JsonObject): JsonObject {
  for (const key in from) if (hasOwn(from, key)) setOwn(to, key, from[key]);
  return to;
}

/** A copy of `from` (its own keys, in order) to add keys to: `{ ...from, key: value }` is `copyOf(from)` and an assignment. */
export function copyOf(from: JsonObject): JsonObject {
  return extend({}, from);
}

/** `value` when it is an array, else an empty one. */
export function arr(value: unknown): JsonValue[] {
  return Array.isArray(value) ? (value as JsonValue[]) : [];
}

/** An `error` draft; `code` is one of the neutral `ERROR_CODES` (the provider's own goes in `metadata.native_code`). */
export function errorDraft(message: string, severity: ErrorSeverity, code: ErrorCode | null = null, metadata: JsonObject = {}): EventDraft {
  return { kind: 'error', payload: { message, severity, code, metadata } };
}

/** How a run ended, as a profile read it from the provider's terminal line. */
export interface Outcome {
  /** Any sign of failure makes this true (Claude prints `"subtype":"success"` with `"is_error":true` for API errors). */
  failed: boolean;
  /** The provider's own error text; used as the error event's message on failure. */
  errorMessage?: string | null;
  errorCode?: ErrorCode | null;
  /** The error event's metadata (the native code, the HTTP status…). */
  errorMetadata?: JsonObject;
  /**
   * The failure already has its error event (Claude's synthetic API-error message, Codex's top-level
   * `error` before `turn.failed`, Gemini's `error` line before its result): one error event per failure.
   */
  errorReported?: boolean;
  /** `fatal` when the run cannot go on; default `error`. */
  severity?: ErrorSeverity;
  stop_reason?: JsonValue;
  /** The run's answer; a failed run has none (its text, if any, is the error's). */
  output?: JsonValue;
  object?: JsonValue;
  metadata?: JsonObject;
}

/**
 * The drafts that end a run: on failure first an `error` carrying the provider's text (unless the
 * failure already had one), then the `result` with status `completed` or `failed`; a failed result
 * has no output. The one home of "every failure yields exactly one error event", for every profile
 * and for the decoder's own end of stream.
 */
export function finishDrafts(outcome: Outcome): EventDraft[] {
  const result: EventDraft = {
    kind: 'result',
    payload: {
      status: outcome.failed ? 'failed' : 'completed',
      stop_reason: outcome.stop_reason ?? null,
      output: outcome.failed ? null : (outcome.output ?? null),
      object: outcome.object ?? null,
      metadata: outcome.metadata ?? {},
    },
  };
  if (!outcome.failed || outcome.errorReported) return [result];
  const message = outcome.errorMessage?.trim() || 'the run failed';
  return [errorDraft(message, outcome.severity ?? 'error', outcome.errorCode ?? null, outcome.errorMetadata ?? {}), result];
}
