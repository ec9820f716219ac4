/*
 * A real terminal for the interactive commands: a tmux server of its own (its own socket), one
 * pane running the command, keys sent with `send-keys` and the screen read with `capture-pane`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
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
  /** The pane's command (`env` executes it in place). */
  readonly pid: number;

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
    this.pid = Number(this.tmux('display-message', '-p', '-t', this.target, '#{pane_pid}').trim());
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

  /** How the pane's command ended (its exit code, or the signal that ended it) once it has, else null. */
  exited(): { code: number | null; signal: string | null } | null {
    const format = '#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}';
    const [dead, code, signal] = this.tmux('display-message', '-p', '-t', this.target, format).trim().split('|');
    if (dead !== '1') return null;
    if (code !== '' || signal !== '') return { code: code === '' ? null : Number(code), signal: signal === '' ? null : signal };
    // tmux 3.3a at times misses the SIGCHLD of a pane's command (seen as Gemini CLI's chat ended): dead
    // (its terminal closed) but never reaped, the command stays a zombie whose status /proc keeps.
    return zombieStatus(this.pid);
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

/** How a zombie process ended, from its `/proc/<pid>/stat` (its `exit_code`, as waitpid reports it); null while it is not one. */
function zombieStatus(pid: number): { code: number | null; signal: string | null } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The fields after the command's name (in parentheses, which may hold anything): state first, exit_code (field 52) last.
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .trim()
    .split(' ');
  if (fields[0] !== 'Z') return null;
  const status = Number(fields[fields.length - 1]);
  const signal = status & 0x7f;
  if (signal === 0) return { code: (status >> 8) & 0xff, signal: null };
  return { code: null, signal: Object.entries(constants.signals).find(([, number]) => number === signal)?.[0] ?? String(signal) };
}
