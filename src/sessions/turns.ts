import type { AnyEvent } from '../events/event';
import type { Session } from './types';

/** The events of one turn, as they arrive, then the end. */
class TurnFeed implements AsyncIterable<AnyEvent> {
  private readonly items: AnyEvent[] = [];
  private waiting: (() => void) | null = null;
  private ended = false;

  push(event: AnyEvent): void {
    this.items.push(event);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AnyEvent> {
    for (;;) {
      const event = this.items.shift();
      if (event) {
        yield event;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }
}

/**
 * A session's events by turn, for hosts that answer each prompt with its own stream (an HTTP
 * request per message, ACP's `session/prompt`): it reads the session (its one reader) and hands each
 * event to the turn it belongs to. `send(prompt)` starts a turn and answers its events, ending with
 * its `result`; events that come between turns (`run_started`, a CLI's notices) open the next turn's.
 * The session stays the caller's: approve, interrupt and close it as usual.
 *
 * @example
 * const turns = new SessionTurns(startSession({ provider: 'gemini' }));
 * for await (const event of turns.send('Say hello.')) console.log(event.kind);
 */
export class SessionTurns {
  /** Turns sent and not yet over, oldest first: events go to the oldest. */
  private readonly open: TurnFeed[] = [];
  /** Events that came while no turn was open. */
  private readonly between: AnyEvent[] = [];
  /** Resolves once the session's stream has ended. */
  readonly drained: Promise<void>;

  constructor(readonly session: Session) {
    this.drained = this.read();
  }

  /** Sends `prompt` and answers its turn's events (then the end; at once when the session is over). */
  send(prompt: string): AsyncIterable<AnyEvent> {
    const feed = new TurnFeed();
    for (const event of this.open.length === 0 ? this.between.splice(0) : []) feed.push(event);
    this.open.push(feed);
    this.session.send(prompt).catch(() => {
      // Refused (the session ended before the turn began): the turn has no events but the ones given.
      const at = this.open.indexOf(feed);
      if (at >= 0) this.open.splice(at, 1);
      feed.end();
    });
    return feed;
  }

  private async read(): Promise<void> {
    try {
      for await (const event of this.session) {
        const feed = this.open[0];
        if (!feed) {
          this.between.push(event);
          continue;
        }
        feed.push(event);
        if (event.kind === 'result') {
          this.open.shift();
          feed.end();
        }
      }
    } finally {
      for (const feed of this.open.splice(0)) feed.end();
    }
  }
}
