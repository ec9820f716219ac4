/*
 * A real terminal for the interactive commands: a tmux server of its own (its own socket), one
 * pane running the command, keys sent with `send-keys` and the screen read with `capture-pane`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the pane runs, and in what terminal. */
export interface TmuxCommand {
  /** The argv (executable first), run directly with exactly `env` (nothing of this process's). */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly columns?: number;
  readonly rows?: number;
}

/** How often a wait reads the screen again. */
const POLL_MS = 200;

let servers = 0;

/** One tmux server with one pane; `kill()` (always call it) stops the server by its socket. */
export class TmuxTerminal {
  private readonly socket = `csc-e2e-${process.pid}-${++servers}`;
  private readonly dir = mkdtempSync(join(tmpdir(), 'tmux-terminal-'));
  private readonly target = 'main';

  constructor(command: TmuxCommand) {
    const config = join(this.dir, 'tmux.conf');
    // The pane stays once its command exits (its exit status is read), no status line takes a row.
    writeFileSync(config, 'set -g remain-on-exit on\nset -g status off\nset -g history-limit 10000\n');
    const env = Object.entries(command.env).map(([name, value]) => `${name}=${value}`);
    this.tmux(
      '-f',
      config,
      'new-session',
      '-d',
      '-s',
      this.target,
      '-x',
      String(command.columns ?? 100),
      '-y',
      String(command.rows ?? 40),
      '-c',
      command.cwd,
      'env',
      '-i',
      ...env,
      ...command.argv,
    );
  }

  /** Sends keys by tmux's names (`Enter`, `C-c`, `C-d`, `Up`) or single characters. */
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.target, ...keys);
  }

  /** Types `text` as it is (no key names), then Enter. */
  typeLine(text: string): void {
    this.tmux('send-keys', '-t', this.target, '-l', text);
    this.keys('Enter');
  }

  /** Everything the pane showed, scrollback included, with wrapped lines joined and trailing blank lines dropped. */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', this.target).replace(/\n+$/, '\n');
  }

  /** The process the pane runs (the command itself: `env` executes it in place). */
  panePid(): number {
    return Number(this.tmux('display-message', '-p', '-t', this.target, '#{pane_pid}').trim());
  }

  /** The pane's command's exit status once it has exited, else null. */
  exitStatus(): number | null {
    const [dead, status] = this.tmux('display-message', '-p', '-t', this.target, '#{pane_dead} #{pane_dead_status}').trim().split(' ');
    return dead === '1' ? Number(status) : null;
  }

  /** Polls the screen until `holds` answers a value; fails with the screen after `timeoutMs`. */
  async waitFor<T>(what: string, holds: (screen: string) => T | null | undefined | false, timeoutMs = 150_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      const value = holds(screen);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Stops the tmux server (and so the pane's command, if still running) and removes its files. */
  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // Already gone.
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}
