import { Injectable, type MessageEvent } from '@nestjs/common';
import { Observable, type Subscriber } from 'rxjs';
import type { AnyEvent } from '../events/event';
import { startRun, type Run, type RunOptions } from '../runner';
import { startSession, type Session, type SessionOptions } from '../sessions';

/**
 * Runs agent CLIs (Claude Code, Codex, Gemini CLI) for a Nest app: `start` is `startRun`, and
 * `events$` is a run as an rxjs `Observable` of server-sent events, for an `@Sse()` route.
 *
 * ```ts
 * @Sse('runs')
 * stream(@Query('prompt') prompt: string): Observable<MessageEvent> {
 *   return this.runner.events$({ provider: 'claude', prompt });
 * }
 * ```
 */
@Injectable()
export class CliRunner {
  /**
   * Starts a CLI run: the same as `startRun(options)`. Throws `ExecutableNotFoundError` when the
   * CLI is missing; iterate the `Run` for its events and await `run.done` for its outcome.
   */
  start(options: RunOptions): Run {
    return startRun(options);
  }

  /**
   * A run as server-sent events: each event of the run is one message whose `data` is the
   * event's JSON (what `JSON.stringify(event)` writes, so a client reads it back with
   * `Event.fromJSON(message.data)`), and the Observable completes when the run is over.
   *
   * Given options, the run starts on subscription, one run per subscriber; given a run already
   * started (by a POST: a GET route must never start one), it is streamed (a run is read once).
   * Unsubscribing stops it: Nest unsubscribes an `@Sse()` route's Observable when the client
   * disconnects, so a client that leaves stops the CLI and every process it started. A missing
   * CLI is an error notification (`ExecutableNotFoundError`).
   */
  events$(optionsOrRun: RunOptions | Run): Observable<MessageEvent> {
    return new Observable<MessageEvent>((subscriber) => {
      const run = 'done' in optionsOrRun ? optionsOrRun : this.start(optionsOrRun);
      streamTo(run, subscriber);
      return () => run.abort('unsubscribed');
    });
  }

  /**
   * Starts a session: the same as `startSession(options)`. Send prompts with `session.send`,
   * answer approvals with `session.approve`, and stream its events with `sessionEvents$`.
   */
  startSession(options: SessionOptions): Session {
    return startSession(options);
  }

  /**
   * A session's events as server-sent events, as `events$` sends a run's; the Observable completes
   * when the session ends. A session is iterated once: one subscriber. Unsubscribing (the client
   * disconnects) closes the session, its CLI and every process it started.
   */
  sessionEvents$(session: Session): Observable<MessageEvent> {
    return new Observable<MessageEvent>((subscriber) => {
      streamTo(session, subscriber);
      return () => void session.close();
    });
  }
}

/** Sends each event as one message's `data`, then completes; stops reading once unsubscribed. */
function streamTo(events: AsyncIterable<AnyEvent>, subscriber: Subscriber<MessageEvent>): void {
  void (async () => {
    try {
      for await (const event of events) {
        if (subscriber.closed) break; // unsubscribed: leaving the loop early stops the run or session as well
        subscriber.next({ data: event });
      }
      subscriber.complete();
    } catch (error) {
      subscriber.error(error);
    }
  })();
}
