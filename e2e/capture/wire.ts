/*
 * Records an interactive CLI session on the wire: a CLI started with stdin, stdout and stderr
 * piped, JSON lines written to its stdin and read from its stdout, each recorded in order with the
 * time it passed. The session captures (test/fixtures/sessions/<cli>/wire-*.jsonl) are written
 * with it: one JSON object a line, `{"from":"host"|"cli"|"stderr","at_ms":N,"line":…}` where
 * `line` is the parsed JSON message (or the text when it is not JSON).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';

/** One recorded line. */
export interface WireLine {
  from: 'host' | 'cli' | 'stderr';
  at_ms: number;
  line: unknown;
}

export class WireSession {
  readonly lines: WireLine[] = [];
  private readonly child: ChildProcess;
  private readonly started = Date.now();
  private buffer = '';
  private waiters: (() => void)[] = [];
  readonly exited: Promise<{ code: number | null; signal: string | null }>;

  constructor(bin: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn(bin, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => {
      this.buffer += chunk;
      let at: number;
      while ((at = this.buffer.indexOf('\n')) >= 0) {
        const text = this.buffer.slice(0, at);
        this.buffer = this.buffer.slice(at + 1);
        if (text.trim() !== '') this.record('cli', text);
      }
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      for (const text of chunk.split('\n')) if (text.trim() !== '') this.record('stderr', text);
    });
    this.child.stdin?.on('error', () => undefined);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Writes one JSON message to the CLI's stdin. */
  send(message: unknown): void {
    const text = JSON.stringify(message);
    this.record('host', text);
    this.child.stdin?.write(`${text}\n`);
  }

  /** The CLI's messages so far (parsed). */
  fromCli(): unknown[] {
    return this.lines.filter((line) => line.from === 'cli').map((line) => line.line);
  }

  /** Resolves with the first CLI message from index `after` on that `test` accepts; rejects after `timeoutMs`. */
  async waitFor<T = Record<string, unknown>>(
    test: (message: Record<string, unknown>) => boolean,
    timeoutMs = 60_000,
    after = 0,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const messages = this.fromCli();
      for (let i = after; i < messages.length; i++) {
        const message = messages[i];
        if (typeof message === 'object' && message !== null && test(message as Record<string, unknown>)) return message as T;
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting on the wire; last lines:\n${this.lines
            .slice(-8)
            .map((line) => JSON.stringify(line))
            .join('\n')}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Closes stdin and waits for the exit; kills the process group after `graceMs`. */
  async close(graceMs = 10_000): Promise<{ code: number | null; signal: string | null }> {
    this.child.stdin?.end();
    const timer = setTimeout(() => this.kill(), graceMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }

  /** SIGKILL to the CLI's whole process group (it was started detached, in a group of its own). */
  kill(): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  /** Writes the recorded lines as JSONL. */
  save(path: string): void {
    writeFileSync(path, this.lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  }

  private record(from: WireLine['from'], text: string): void {
    let line: unknown = text;
    try {
      line = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    this.lines.push({ from, at_ms: Date.now() - this.started, line });
    for (const wake of this.waiters.splice(0)) wake();
  }
}
