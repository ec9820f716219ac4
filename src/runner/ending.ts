import { Event, type AnyEvent } from '../events/event';
import type { ErrorSeverity } from '../payloads/error.payload';
import type { ErrorCode } from '../providers/error-codes';
import type { RunStatus } from './types';

/** The `error` an ending carries. */
export interface EndingError {
  message: string;
  code: ErrorCode;
  /** Default `fatal`. */
  severity?: ErrorSeverity;
  metadata?: Record<string, number | string | null>;
}

/**
 * Why the library ended a CLI process itself, or must say how it ended (a spawn that failed, a
 * session's CLI that died): recorded once, by the first cause (`CliProcess.terminate`).
 */
export interface Termination {
  readonly code: ErrorCode;
  readonly message: string;
  /** The status of the run, or of the turn it cut short. */
  readonly status: RunStatus;
}

/**
 * The one home of the events the library itself ends a stream with (runs, sessions, the runs API's
 * worker): an `error`, then, when `status` is given (a run or a turn is owed its result), a
 * `result` of that status whose stop_reason is the error's code, both with the error's metadata.
 */
export function endingEvents(
  envelope: { provider: string; provider_session_id: string | null },
  error: EndingError,
  status: RunStatus | null,
): AnyEvent[] {
  const { metadata = {}, severity = 'fatal' } = error;
  const events: AnyEvent[] = [Event.create('error', { ...envelope, payload: { ...error, severity, metadata } })];
  if (status !== null) events.push(Event.create('result', { ...envelope, payload: { status, stop_reason: error.code, metadata } }));
  return events;
}
