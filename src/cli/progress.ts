import type { Writable } from 'node:stream';

const CLEAR_LINE = '\r\x1b[K';

/**
 * A progress line for long inputs, redrawn in place at most once per `everyMs`.
 * It is only given a stream when standard error is a terminal, so pipes and logs never see it.
 */
export class Progress {
  private lastDrawn = Date.now();
  private shown = false;

  constructor(
    private readonly out: Writable | undefined,
    private readonly label: string,
    private readonly everyMs = 1000,
    /** What the second count counts: invalid lines (validate), events (decode). */
    private readonly counted = 'invalid',
  ) {}

  /** Called for every line; looks at the clock only every 1024 lines, as the check is per line. */
  tick(lines: number, count: number): void {
    if (this.due(lines)) this.draw(lines, count);
  }

  /** Whether `tick` would draw now: a caller with output of its own still buffered writes it first. */
  due(lines: number): boolean {
    return this.out !== undefined && lines % 1024 === 0 && Date.now() - this.lastDrawn >= this.everyMs;
  }

  draw(lines: number, count: number): void {
    if (!this.out) return;
    this.lastDrawn = Date.now();
    this.shown = true;
    this.out.write(`${CLEAR_LINE}${this.label}: ${lines.toLocaleString('en-US')} lines, ${count.toLocaleString('en-US')} ${this.counted}…`);
  }

  /** Removes the progress line (before other output on the same terminal, and at the end). */
  clear(): void {
    if (!this.shown || !this.out) return;
    this.out.write(CLEAR_LINE);
    this.shown = false;
  }
}
