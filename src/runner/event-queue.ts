import type { AnyEvent } from '../events/event';

/**
 * The events of one run between the child's output and the consumer. Producers wait for
 * `space()` before reading more output, so a slow consumer pauses the child's stdout: at most
 * `limit` events (plus those of the one line being decoded) are ever held.
 */
export class EventQueue {
  private readonly items: AnyEvent[] = [];
  private closed = false;
  private bounded = true;
  private failure: Error | null = null;
  private consumer: (() => void) | null = null;
  private readonly producers: (() => void)[] = [];
  /** How many times a producer had to wait for the consumer (for tests and diagnostics). */
  waits = 0;

  constructor(readonly limit = 256) {}

  get length(): number {
    return this.items.length;
  }

  /** Whether a producer is waiting for the consumer now (the child's output is paused). */
  get paused(): boolean {
    return this.producers.length > 0;
  }

  /** Resolves when there is room for more events (at once when there is). */
  space(): Promise<void> {
    if (this.items.length < this.limit || this.closed || !this.bounded) return Promise.resolve();
    this.waits += 1;
    return new Promise((resolve) => this.producers.push(resolve));
  }

  push(event: AnyEvent): void {
    if (this.closed) return;
    this.items.push(event);
    this.wake();
  }

  /**
   * Lifts the bound for good: once the child has exited or is being stopped its remaining output is
   * finite, and must be read to the end even when nobody consumes it (else the stop would never finish).
   */
  unbound(): void {
    this.bounded = false;
    this.releaseProducers();
  }

  /** No more events: the consumer gets the rest, then the end (or `failure`). */
  close(failure: Error | null = null): void {
    this.closed = true;
    this.failure = failure;
    this.wake();
    this.releaseProducers();
  }

  /** Drops everything held and refuses more (the consumer left). */
  discard(): void {
    this.items.length = 0;
    this.close();
  }

  /** The next event, or null at the end. */
  async next(): Promise<AnyEvent | null> {
    for (;;) {
      const event = this.items.shift();
      if (event) {
        if (this.items.length < this.limit) this.releaseProducers();
        return event;
      }
      if (this.closed) {
        if (this.failure) throw this.failure;
        return null;
      }
      await new Promise<void>((resolve) => (this.consumer = resolve));
    }
  }

  private wake(): void {
    const consumer = this.consumer;
    this.consumer = null;
    consumer?.();
  }

  private releaseProducers(): void {
    for (const resolve of this.producers.splice(0)) resolve();
  }
}
