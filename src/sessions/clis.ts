import { str } from '../providers/drafts';
import { refuseFlagLike } from '../runner/argument-value';
import { acpClient } from './acp';
import { claudeControl } from './claude-control';
import { codexAppServer } from './codex-app-server';
import type { ProtocolFactory } from './protocol';
import type { SessionProvider } from './types';

/*
 * Each CLI's session: its command line, the protocol it speaks and its quirks. The protocols are
 * written once (claude-control.ts, codex-app-server.ts, acp.ts); a CLI adds only what is its own.
 * Only flags the tested versions accept (Claude Code 2.1.328, Codex 0.169.0, Gemini CLI 0.61.0,
 * OpenCode 1.18.33, Qwen Code 0.15.10, Copilot CLI 1.0.102, checked against each `--help`).
 */

/** One CLI's session setup. */
export interface SessionCli {
  readonly executable: string;
  /** The protocol, for the sessions table of docs/sessions.md and errors. */
  readonly protocolName: string;
  /** The fixed argv after the executable. */
  readonly args: readonly string[];
  /** The argv that sets the model; `'protocol'`: the protocol sets it (Codex's `thread/start`); null: neither can. */
  readonly model: ((model: string) => string[]) | 'protocol' | null;
  /** The same for a session id to continue. */
  readonly resume: ((sessionId: string) => string[]) | 'protocol' | null;
  readonly protocol: ProtocolFactory;
  /** Variables of the host's environment the CLI must not inherit unless the caller sets them. */
  readonly dropEnv: readonly string[];
  /**
   * How long after a turn the CLI may still be saving it: `close()` ends the CLI's input no sooner
   * (a CLI that exits at end of input would lose the turn from the session it resumes later).
   */
  readonly savesTurnWithinMs?: number;
}

const flag = (name: string) => (model: string) => [name, model];

export const SESSION_CLIS: Readonly<Record<SessionProvider, SessionCli>> = {
  claude: {
    executable: 'claude',
    protocolName: 'stream-json control protocol',
    // Deltas always: a session feeds a live view (the other protocols stream text deltas too).
    args: ['--print', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--permission-prompt-tool', 'stdio'],
    model: flag('--model'),
    resume: flag('--resume'),
    protocol: claudeControl,
    // Claude Code refuses to start inside another Claude Code session (see flags.ts).
    dropEnv: ['CLAUDECODE'],
  },
  codex: {
    executable: 'codex',
    protocolName: 'app-server (JSON-RPC)',
    args: ['app-server'],
    model: 'protocol',
    // `thread/resume` instead of `thread/start` (codex-app-server.ts).
    resume: 'protocol',
    protocol: codexAppServer,
    dropEnv: [],
  },
  gemini: {
    executable: 'gemini',
    protocolName: 'ACP',
    args: ['--acp'],
    model: flag('--model'),
    // Gemini CLI 0.61.0 offers `session/load`, but it starts recording the session it loads before
    // reading it, which overwrites the saved conversation: the load fails ("No previous sessions
    // found") and the session is lost. Not offered until a Gemini CLI that loads what it saved.
    resume: null,
    // Gemini names a tool call after its tool: `run_shell_command__run_shell_command_1796…_0`.
    protocol: acpClient({ toolName: (call) => /^([A-Za-z0-9_.-]+?)__/.exec(str(call.toolCallId) ?? '')?.[1] ?? null }),
    dropEnv: [],
  },
  opencode: {
    executable: 'opencode',
    protocolName: 'ACP',
    args: ['acp'],
    // `opencode acp` has no model flag: the model is opencode.json's `model`.
    model: null,
    resume: 'protocol',
    // OpenCode's first `tool_call` (pending) is titled with the tool's name (`bash`); later titles are the command.
    protocol: acpClient({ toolName: (call) => (call.sessionUpdate === 'tool_call' ? str(call.title) : null) }),
    dropEnv: [],
  },
  qwen: {
    executable: 'qwen',
    protocolName: 'ACP',
    args: ['--acp'],
    model: flag('--model'),
    resume: 'protocol',
    // Qwen Code names the tool in `_meta.toolName` (read for every agent).
    protocol: acpClient(),
    dropEnv: [],
    // Qwen Code 0.15.10 writes a turn's answer to its session file after answering the prompt, and
    // exits at end of input without waiting for the write: closed at once, the file lacked the
    // answer; 50 ms later it had it.
    savesTurnWithinMs: 500,
  },
  copilot: {
    executable: 'copilot',
    protocolName: 'ACP',
    args: ['--acp'],
    model: flag('--model'),
    resume: 'protocol',
    // Copilot's prompt answers carry the session's running total of usage.
    protocol: acpClient({ promptUsage: 'cumulative' }),
    dropEnv: [],
  },
};

/**
 * The argv of `cli` for a session with `model` and `resume`: a TypeError when the CLI cannot take
 * one, or when either would be read as a flag (`refuseFlagLike`).
 */
export function sessionArgv(provider: SessionProvider, cli: SessionCli, model: string | undefined, resume: string | undefined): string[] {
  // Checked whichever way the CLI takes them, the protocol's included: one rule on every path.
  if (model) refuseFlagLike('model', model);
  if (resume) refuseFlagLike('resume', resume);
  const argv = [...cli.args];
  if (model && cli.model !== 'protocol') {
    if (!cli.model) throw new TypeError(`${provider} takes no model option in a session: set it in the CLI's own configuration`);
    argv.push(...cli.model(model));
  }
  if (resume && cli.resume !== 'protocol') {
    if (!cli.resume) throw new TypeError(`${provider} sessions cannot be resumed`);
    argv.push(...cli.resume(resume));
  }
  return argv;
}
