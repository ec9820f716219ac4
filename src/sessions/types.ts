import type { AnyEvent, Event } from '../events/event';
import type { CliModel } from '../protocols/protocol';
import type { AgentCli, RunOutcome } from '../runner/types';
import type { SessionPrompt } from '../wire/prompt-content';

/**
 * The CLIs `startSession` can hold a conversation with, and the protocol each speaks:
 * Claude Code its stream-json control protocol, Codex its app-server (JSON-RPC), and Gemini CLI,
 * OpenCode, Qwen Code and Copilot CLI the Agent Client Protocol.
 */
export type SessionProvider = AgentCli;

/** How a session answers the CLI's permission requests when the host does not: see `SessionOptions.approvals`. */
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** Every `ApprovalPolicy`, for the checks of what a caller, a command line or a request gives. */
export const APPROVAL_POLICIES = ['ask', 'allow', 'deny'] as const;

/** The host's answer to an `approval_requested` event. */
export interface ApprovalAnswer {
  decision: 'allow' | 'deny';
  /** Why (a deny's reason is what the model is told, where the CLI passes it on). */
  reason?: string;
  /**
   * Allow this kind of call for the rest of the session, where the CLI can (Claude's permission
   * suggestions, Codex `acceptForSession`, ACP `allow_always`); otherwise the same as a plain allow.
   */
  remember?: boolean;
}

/** An `approval_requested` event, as `onApproval` receives it. */
export type ApprovalRequestEvent = Event<'approval_requested'>;

/** A name and a value: an environment variable of a stdio MCP server, or a header of an HTTP/SSE one (ACP's shape). */
export interface McpNameValue {
  name: string;
  value: string;
}

/**
 * An MCP server for the CLI to start or reach, in the Agent Client Protocol's shapes (ACP's
 * `McpServer`, what an editor sends in `session/new`): a stdio server (no `type`), or an HTTP or
 * SSE one. `name` names its tools to the model (Claude Code and Codex call them `mcp__<name>__<tool>`).
 */
export type McpServer =
  | { name: string; command: string; args: readonly string[]; env: readonly McpNameValue[] }
  | { type: 'http' | 'sse'; name: string; url: string; headers: readonly McpNameValue[] };

/** The transports of `McpServer`: a CLI takes some of them (its registry entry says which). */
export type McpServerKind = 'stdio' | 'http' | 'sse';

/** Options of `startSession`. */
export interface SessionOptions {
  /** Which CLI to talk to. */
  provider: SessionProvider;
  /** Working directory of the CLI (and of the tools it runs); default the current one. */
  cwd?: string;
  /** The model, passed the way the CLI takes one (a flag, or the protocol's session parameters). */
  model?: string;
  /** The CLI's executable (a path, or a name looked up on `PATH`); default the CLI's usual name. */
  executable?: string;
  /** Extra native arguments for the CLI's command line. */
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
  /**
   * Who answers the CLI's permission requests: `'ask'` (default) leaves each to the host
   * (`onApproval`, or `session.approve`); `'allow'` and `'deny'` answer all of them at once. Every
   * request gets its `approval_requested` and exactly one `approval_resolved` either way.
   */
  approvals?: ApprovalPolicy;
  /**
   * Called with each `approval_requested` event (with `approvals: 'ask'`). Answer it, here or
   * later with `session.approve`; a callback that throws or rejects denies the call.
   */
  onApproval?: (event: ApprovalRequestEvent) => ApprovalAnswer | void | Promise<ApprovalAnswer | void>;
  /** A request nobody answers within this many milliseconds is denied (never allowed). Default 300000 (5 minutes). */
  approvalTimeoutMs?: number;
  /** After `interrupt()`, how long the CLI has to end its turn before the session stops it. Default 15000. */
  interruptTimeoutMs?: number;
  /**
   * The session's whole life, in milliseconds: past it the CLI is stopped, and the session (and the
   * turn it cuts short) ends with an `error` of code `timeout` and a `result` of status `timed_out`.
   */
  timeoutMs?: number;
  /**
   * A spending limit in USD: once the session's usage (its `cost_update` events, added up as
   * `RunOutcome.cost`) passes it, the CLI is stopped and the session (and the turn it cuts short)
   * ends with an `error` of code `budget_exceeded` and a `failed` `result`. A CLI that reports no
   * price (Codex, Gemini CLI…) is not limited by it: give `maxTokens` too.
   */
  maxCostUsd?: number;
  /** A limit on the session's tokens (input + output, as `RunCost.total_tokens`), enforced as `maxCostUsd`. */
  maxTokens?: number;
  /**
   * A session id to continue (the CLI's own, as `run_started` announced it), in a new process:
   * Claude Code `--resume`, Codex `thread/resume`, the ACP CLIs `session/load` (the history the
   * CLI replays while loading is not emitted again: its events were the earlier session's).
   */
  resume?: string;
  /**
   * MCP servers for the session, added to those of the CLI's own configuration, each passed the
   * way the CLI takes them (Claude Code `--mcp-config`, Codex `thread/start`'s config overrides, the
   * ACP CLIs `session/new` as given). A TypeError when the CLI cannot take one of them (a kind it
   * lacks, a CLI without MCP), when a name is not letters, digits, `_` and `-` (Codex takes it as
   * a config key, every CLI as part of tool names), or when two have the same name.
   */
  mcpServers?: readonly McpServer[];
  /** Aborting this signal closes the session, as `close()` does. */
  signal?: AbortSignal;
  /** Which events carry the native message in `raw`, as `RunOptions.keepRaw`; default `'none'`. */
  keepRaw?: 'all' | 'unmapped' | 'none';
  /** Milliseconds between SIGTERM and SIGKILL when stopping, and that the CLI has to exit after its input ends; default 2000. */
  killGraceMs?: number;
}

/**
 * One CLI process speaking its interactive protocol: a conversation of turns. Iterate it (once) for
 * its events: `run_started` once, then each turn's events, each turn closed by its `result`; the
 * stream ends when the session does. Iterate it while it runs: as for a run, at most 256 events are
 * held, and past that the CLI's output (and so its turns) waits for the reader. `done` resolves once
 * the CLI and every process it started are gone and the stream is drained.
 */
export interface Session extends AsyncIterable<AnyEvent> {
  readonly provider: SessionProvider;
  /** The CLI's process id (undefined only if the spawn failed). */
  readonly pid: number | undefined;
  /** The full argv the CLI was started with (executable first). */
  readonly argv: readonly string[];
  /** The CLI's session (thread) id, once it has announced one; null before. */
  readonly sessionId: string | null;
  /**
   * Starts a turn with `prompt` (or queues it behind the running turn: one turn at a time) and
   * resolves with the `result` event that closes it. The prompt is text, or blocks of content
   * (`PromptContent`: text, images, embedded resources, resource links, in ACP's shapes), each
   * passed in the CLI's own form: images where the CLI takes them (`SessionSetup.imageTypes`),
   * resources and links as text where it takes no resource. Rejects when the session ends before
   * the turn starts, and with a TypeError (the session goes on) for a prompt holding a NUL byte (no
   * CLI can take one), a malformed block, or an image the CLI cannot take; throws a TypeError for a
   * prompt that is neither a string nor an array.
   */
  send(prompt: SessionPrompt): Promise<Event<'result'>>;
  /**
   * Answers a pending approval: `approvalId` is its event's, a random id the session gives each
   * request (never the CLI's own, which a caller could guess). Answers false when `approvalId` is
   * not pending (never asked, already answered, timed out, or withdrawn), true otherwise.
   */
  approve(approvalId: string, answer: ApprovalAnswer): boolean;
  /** The approval ids still waiting for an answer, oldest first. */
  readonly pendingApprovals: readonly string[];
  /**
   * Who answers the requests asked from now on (`SessionOptions.approvals`, which it starts as):
   * setting it answers no request already pending. A TypeError for a value not in `APPROVAL_POLICIES`.
   */
  approvalPolicy: ApprovalPolicy;
  /**
   * Ends the running turn (its `result` has status `aborted`; pending approvals are cancelled) and
   * keeps the session for the next one. Resolves once the turn is over; at once when none runs.
   */
  interrupt(): Promise<void>;
  /**
   * Switches the model from the next turn, in this process, where the CLI can (its registry entry's
   * `session.models.switchesRunning`: Claude Code's control `set_model`, Codex's per-turn model).
   * Resolves once the CLI took it; rejects with a TypeError where it cannot (start a session with
   * `resume` and `model` instead), and when the CLI refused it or the session is closed.
   */
  setModel(model: string): Promise<void>;
  /** The models the CLI lists (Codex's `model/list`); null where its protocol lists none. */
  models(): Promise<readonly CliModel[] | null>;
  /** Ends the session: its input is closed, then the CLI and every process it started are stopped. Resolves with `done`. */
  close(): Promise<RunOutcome>;
  /**
   * Resolves when the session is over; never rejects. `completed` when it was closed between turns,
   * `aborted` when it was closed during a turn, `failed` when the CLI ended (or failed to start) by itself.
   */
  readonly done: Promise<RunOutcome>;
}
