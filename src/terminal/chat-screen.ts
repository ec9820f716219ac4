import { createInterface, emitKeypressEvents, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Palette } from './style';

/** The chat's keyboard: a terminal's input (`process.stdin`). */
export type TerminalInput = Readable & { readonly isTTY?: boolean; setRawMode?(mode: boolean): unknown };
/** The chat's screen: a terminal's output (`process.stdout`). */
export type TerminalOutput = Writable & { readonly isTTY?: boolean; readonly columns?: number };

/** What one read of the prompt gave: a line, the end of input (Ctrl-D), or Ctrl-C on an empty line. */
export type LineRead = { readonly kind: 'line'; readonly text: string } | { readonly kind: 'eof' } | { readonly kind: 'interrupt' };

/** A key as `emitKeypressEvents` reports it. */
interface Key {
  readonly name?: string;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
}

/** A question waiting for one key (an approval's). */
interface KeyQuestion {
  readonly question: string;
  readonly answer: (key: string) => string | null;
  readonly resolve: (key: string | null) => void;
}

/** How often the status line's elapsed time is redrawn. */
const STATUS_TICK_MS = 1000;

const CLEAR_LINE = '\r\u001b[2K';

/**
 * The chat's terminal: a prompt with line editing and history (node:readline, one interface per
 * line read, so that keys pressed during a turn never reach a line editor), the keys of a turn
 * (Ctrl-C, an approval's answer) read raw, a status line at the bottom while a turn runs, and
 * writing above whichever of the two is shown.
 */
export class ChatScreen {
  private readline: Interface | null = null;
  private history: string[] = [];
  /** The running turn's Ctrl-C handler; null between turns. */
  private onCtrlC: (() => void) | null = null;
  private question: KeyQuestion | null = null;
  private status: string | null = null;
  private statusSince = 0;
  private ticker: NodeJS.Timeout | null = null;
  private readonly onKey = (text: string | undefined, key: Key | undefined) => this.key(text ?? '', key ?? {});

  constructor(
    private readonly input: TerminalInput,
    private readonly output: TerminalOutput,
    private readonly colors: Palette,
    /** What Tab completes at the start of a line (the slash commands). */
    private readonly completions: readonly string[] = [],
  ) {
    emitKeypressEvents(input);
  }

  /** Writes `text` (whole lines) above the prompt or the status line, which are drawn again under it. */
  write(text: string): void {
    if (text === '') return;
    const transient = this.readline !== null || this.status !== null || this.question !== null;
    if (transient) this.output.write(CLEAR_LINE);
    this.output.write(text);
    if (transient) this.redraw();
  }

  /** Writes one line. */
  line(text: string): void {
    this.write(`${text}\n`);
  }

  /** Reads one line at `prompt`, with line editing and history. Ctrl-C clears a line holding text. */
  readLine(prompt: string): Promise<LineRead> {
    return new Promise((resolve) => {
      const completions = this.completions;
      const readline = createInterface({
        input: this.input,
        output: this.output,
        terminal: true,
        prompt,
        history: [...this.history],
        historySize: 1000,
        removeHistoryDuplicates: true,
        completer: (line: string) => [completions.filter((word) => word.startsWith(line)), line],
      });
      this.readline = readline;
      let read: LineRead = { kind: 'eof' };
      readline.on('history', (history) => (this.history = [...history]));
      readline.on('line', (text) => {
        read = { kind: 'line', text };
        readline.close();
      });
      readline.on('SIGINT', () => {
        if (readline.line !== '') {
          // To the end of the line, then all of it before the cursor.
          readline.write(null, { ctrl: true, name: 'e' });
          readline.write(null, { ctrl: true, name: 'u' });
          return;
        }
        read = { kind: 'interrupt' };
        this.output.write('^C');
        readline.close();
      });
      readline.on('close', () => {
        this.readline = null;
        if (read.kind !== 'line') this.output.write('\n');
        resolve(read);
      });
      readline.prompt();
    });
  }

  /** Ends a line read under way as the end of input (the chat is leaving). */
  endLineRead(): void {
    this.readline?.close();
  }

  /** A turn starts: its keys are read raw (Ctrl-C calls `onCtrlC`), and the status line says it runs. */
  startTurn(onCtrlC: () => void, status: string): void {
    this.onCtrlC = onCtrlC;
    this.input.setRawMode?.(true);
    this.input.on('keypress', this.onKey);
    this.input.resume();
    this.statusSince = Date.now();
    this.setStatus(status);
    this.ticker = setInterval(() => this.drawStatus(), STATUS_TICK_MS);
  }

  /** The status line's words (the elapsed time follows them). */
  setStatus(status: string): void {
    this.status = status;
    this.drawStatus();
  }

  /** The turn is over: its keys and status line go. */
  endTurn(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    if (this.status !== null || this.question !== null) this.output.write(CLEAR_LINE);
    this.status = null;
    this.answer(null);
    this.onCtrlC = null;
    this.input.off('keypress', this.onKey);
    this.input.setRawMode?.(false);
    this.input.pause();
  }

  /**
   * Asks `question` during a turn and waits for a key that `answer` takes (it answers the word
   * written after the question, or null for a key it does not take). Null: Ctrl-C (which
   * interrupts the turn too) or the turn ended first.
   */
  askKey(question: string, answer: (key: string) => string | null): Promise<string | null> {
    if (this.onCtrlC === null) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.question = { question, answer, resolve };
      this.redraw();
    });
  }

  /** Ends the question asked (its answer null), written with `word`: the question is moot (its request withdrawn). */
  withdrawQuestion(word: string): void {
    this.answer(null, word);
  }

  /** Leaves the terminal as it found it. */
  close(): void {
    if (this.onCtrlC !== null) this.endTurn();
    this.readline?.close();
  }

  private key(text: string, key: Key): void {
    if (key.ctrl && key.name === 'c') {
      this.answer(null, '^C');
      this.onCtrlC?.();
      return;
    }
    const question = this.question;
    if (question === null || key.ctrl || key.meta) return;
    const word = question.answer(text);
    if (word !== null) this.answer(text, word);
  }

  /** Settles the question asked with `key` (null: none), writing it with `word` as answered. */
  private answer(key: string | null, word?: string): void {
    const question = this.question;
    if (question === null) return;
    this.question = null;
    this.output.write(`${CLEAR_LINE}${question.question} ${word ?? ''}\n`);
    question.resolve(key);
    this.drawStatus();
  }

  private redraw(): void {
    if (this.readline !== null) this.readline.prompt(true);
    else if (this.question !== null) this.output.write(`${CLEAR_LINE}${this.question.question} `);
    else this.drawStatus();
  }

  private drawStatus(): void {
    if (this.status === null || this.question !== null || this.readline !== null) return;
    const seconds = Math.floor((Date.now() - this.statusSince) / 1000);
    const columns = this.output.columns ?? 80;
    const text = `… ${this.status} · ${seconds} s`;
    this.output.write(`${CLEAR_LINE}${this.colors.dim(text.length < columns ? text : text.slice(0, columns - 1))}`);
  }
}
