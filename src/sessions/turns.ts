import type { AnyEvent } from '../events/event';
import type { SessionPrompt } from '../wire/prompt-content';
import type { Session } from './types';

/** The events of one turn, as they arrive, then the end (or the error that refused the turn). */
class TurnFeed implements AsyncIterable<AnyEvent> {
  private readonly items: AnyEvent[] = [];
  private waiting: (() => void) | null = null;
  private ended = false;
  private error: Error | null = null;

  push(event: AnyEvent): void {
    this.items.push(event);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  /** True when it holds events not yet handed out. */
  holdsEvents(): boolean {
    return this.items.length > 0;
  }

  /** Ends the feed with `error`, thrown at the next read; answers the events it held and had not handed out. */
  fail(error: Error): AnyEvent[] {
    if (this.ended) return [];
    this.error = error;
    this.end();
    return this.items.splice(0);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AnyEvent> {
    for (;;) {
      const event = this.items.shift();
      if (event) {
        yield event;
        continue;
      }
      if (this.error) throw this.error;
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

  /**
   * Sends `prompt` (text or content blocks, as `Session.send` takes) and answers its turn's events, then the end. A prompt the session refuses (a NUL
   * byte in it, the session over) makes the iteration throw the refusal; later turns are not affected. A session that ended
   * between turns gives the next turn what it said as it ended (its `error`, say) instead of the refusal.
   */
  send(prompt: SessionPrompt): AsyncIterable<AnyEvent> {
    const feed = new TurnFeed();
    for (const event of this.open.length === 0 ? this.between.splice(0) : []) feed.push(event);
    this.open.push(feed);
    let sent: Promise<unknown>;
    try {
      sent = this.session.send(prompt);
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.catch(async (error: Error) => {
      // Refused: the feed leaves the open turns, or every later turn's events would go to it.
      const at = this.open.indexOf(feed);
      if (at >= 0) this.open.splice(at, 1);
      // The session is over (not a prompt it refused while going on: a TypeError): what it said as
      // it ended between turns (the `error` of a CLI that refused its session for want of
      // credentials: Qwen Code, Copilot CLI) is this turn's, once its stream is read to the end.
      if (!(error instanceof TypeError)) {
        await this.drained;
        if (feed.holdsEvents() || this.between.length > 0) {
          for (const event of this.between.splice(0)) feed.push(event);
          return feed.end();
        }
      }
      // What it held came between turns (it was given them as the next turn): the next turn's now.
      const unread = feed.fail(error);
      const next = this.open[0];
      if (next) for (const event of unread) next.push(event);
      else this.between.unshift(...unread);
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
