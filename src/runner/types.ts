import type { RunCli, StartedCli } from '../clis';
import type { AnyEvent } from '../events/event';
import type { EventKind } from '../registry/kinds';

/** The CLIs `startRun` can run: those of the registry (`src/clis`) with a one-shot mode. */
export type RunProvider = RunCli;

/** Every agent CLI this package starts (runs, sessions, or both). */
export type AgentCli = StartedCli;

/**
 * A permission preset, mapped to each CLI's own flags (the table in `src/runner/flags.ts`):
 * - `default`: no flag, the CLI's own default.
 * - `accept-edits`: Claude `--permission-mode acceptEdits`; Codex `--sandbox workspace-write`; Gemini `--approval-mode auto_edit`.
 * - `bypass`: Claude `--dangerously-skip-permissions`, Codex `--dangerously-bypass-approvals-and-sandbox`, Gemini `--yolo`.
 * - `plan`: read-only: Claude `--permission-mode plan`, Codex `--sandbox read-only`, Gemini `--approval-mode plan`.
 */
export type PermissionPreset = 'default' | 'accept-edits' | 'bypass' | 'plan';

/** How a run ended: the runner's own stop (`aborted`, `timed_out`) wins over whatever the CLI exited with. */
export type RunStatus = 'completed' | 'failed' | 'aborted' | 'timed_out';

/** Options of `startRun`. */
export interface RunOptions {
  /** Which CLI to run. */
  provider: RunProvider;
  /** The prompt: passed as one argv element, never through a shell. */
  prompt: string;
  /** Working directory of the CLI; default the current one. */
  cwd?: string;
  /** The model, passed with the CLI's `--model` flag. */
  model?: string;
  /** The CLI's executable (a path, or a name looked up on `PATH`); default `claude`, `codex` or `gemini`. */
  executable?: string;
  /** Extra native arguments, placed before the prompt. */
  args?: readonly string[];
  /** Environment variables set over the inherited ones (see `inheritEnv`; a value of `undefined` removes the variable). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether the CLI inherits this process's whole environment, as `child_process` does; default
   * true. False, for a server running CLIs for requests: the CLI gets only what any program needs
   * (`PATH`, `HOME`, locale, temporary and XDG dirs, proxies, certificates), the variables its own
   * documentation names for its credentials and configuration (`ANTHROPIC_*` for Claude Code,
   * `OPENAI_*` and `CODEX_*` for Codex…, the lists in `src/runner/environment.ts`), and `passEnv`;
   * then `env` over them. A cloud key, `GITHUB_TOKEN` or `DATABASE_URL` of the host never reaches it unless named.
   */
  inheritEnv?: boolean;
  /** With `inheritEnv: false`, more of this process's variables to pass, by name; a name ending in `*` is a prefix (`MYCORP_*`). */
  passEnv?: readonly string[];
  /** A permission preset; default `'default'` (no flag). */
  permission?: PermissionPreset;
  /** Tools the CLI may use without asking (Claude `--allowedTools`, Gemini `--allowed-tools`); Codex has no such flag and refuses it. */
  allowedTools?: readonly string[];
  /** A session id to resume (Claude `--resume`, Codex `exec resume`, Gemini `--resume`). */
  resume?: string;
  /** Claude only: `--include-partial-messages`, so text arrives as `assistant_delta` events. */
  partial?: boolean;
  /** Stop the run after this many milliseconds; it then ends with status `timed_out`. */
  timeoutMs?: number;
  /** Stop the run when the CLI prints nothing (stdout or stderr) for this many milliseconds; it then ends `timed_out` (error code `idle_timeout`). */
  idleTimeoutMs?: number;
  /**
   * After the CLI's completed result, how long it may take to exit by itself before it is stopped
   * (a CLI may hang on after its result: claude-code #25629); the run stays `completed`. Default 5000.
   */
  resultGraceMs?: number;
  /** Aborting this signal stops the run, as `abort()` does. */
  signal?: AbortSignal;
  /**
   * Which events carry the native line in `raw` (the decoder's option). Default `'none'`, unlike
   * `createDecoder`: a live stream feeds UIs and logs, and the native line doubles to quadruples an
   * event (Claude's tool results repeat their content). Nothing is lost: a line with no normalized
   * meaning is a `raw` event whose payload holds the line. `'all'` keeps every native line.
   */
  keepRaw?: 'all' | 'unmapped' | 'none';
  /** Milliseconds between SIGTERM and SIGKILL when stopping; default 2000. */
  killGraceMs?: number;
}

/**
 * A run's own token usage and price, added up from its `cost_update` events by the usage convention
 * (docs/decoding.md, "Usage and cost"): all input (cache included), all output (reasoning included), their
 * parts, and the price, or null when the CLI reported none (Codex, Gemini). For a resumed session,
 * the earlier runs' usage is left out.
 */
export interface RunCost {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cache_read_input_tokens: number;
  cache_write_input_tokens: number;
  reasoning_output_tokens: number;
  /** The price in USD; null when the CLI reported none (not $0). */
  cost_usd: number | null;
}

/** What `run.done` resolves to, once the CLI and every process it started are gone and the stream is drained. */
export interface RunOutcome {
  status: RunStatus;
  /** The CLI's exit code, or null when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended the CLI (`'SIGTERM'`…), or null. */
  signal: string | null;
  /** The session id the CLI announced, or null. */
  sessionId: string | null;
  /** How many events of each kind the run produced (every kind present, 0 when none). */
  counts: Record<EventKind, number>;
  /** The run's own usage, or null when the CLI reported none. */
  cost: RunCost | null;
}

/**
 * One running CLI. Iterate it (once) for its events; leaving the `for await` early stops the run.
 * `done` resolves whether or not anyone iterates (events are then produced and counted, not kept
 * beyond the bounded queue: an un-iterated run's stdout stays paused until someone reads it).
 */
export interface Run extends AsyncIterable<AnyEvent> {
  /** The CLI's process id (undefined only if the spawn failed). */
  readonly pid: number | undefined;
  readonly provider: RunProvider;
  /** The full argv the CLI was started with (executable first). */
  readonly argv: readonly string[];
  /** Stops the run: SIGTERM to the CLI and every process it started, SIGKILL after the grace period. Idempotent. */
  abort(reason?: string): void;
  /** Resolves when the run is over; never rejects. */
  readonly done: Promise<RunOutcome>;
}
