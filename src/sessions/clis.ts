import { acpClient } from './acp';
import { claudeControl } from './claude-control';
import { codexAppServer } from './codex-app-server';
import { str } from '../providers/drafts';
import type { ProtocolFactory } from './protocol';
import type { SessionOptions, SessionProvider } from './types';

/*
 * Each CLI's session: its command line, the protocol it speaks and its quirks. The protocols are
 * written once (claude-control.ts, codex-app-server.ts, acp.ts); a CLI adds only what is its own.
 * Only flags the tested versions accept (Claude Code 2.1.328, Codex 0.169.0, Gemini CLI 0.61.0,
 * OpenCode 1.18.33, Qwen Code 0.15.10, Copilot CLI 1.0.102).
 */

/** One CLI's session setup. */
export interface SessionCli {
  readonly executable: string;
  /** The argv after the executable (the caller's `args` follow it). */
  argv(options: SessionOptions): string[];
  readonly protocol: ProtocolFactory;
  /** Variables of the host's environment the CLI must not inherit unless the caller sets them. */
  readonly dropEnv: readonly string[];
  /** Variables set for the CLI unless the caller sets them. */
  readonly env: Readonly<Record<string, string>>;
}

const model = (flag: string) => (options: SessionOptions) => (options.model ? [flag, options.model] : []);

export const SESSION_CLIS: Readonly<Record<SessionProvider, SessionCli>> = {
  claude: {
    executable: 'claude',
    // Deltas always: a session feeds a live view (the other protocols stream text deltas too).
    argv: (options: SessionOptions) => ['--print', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--permission-prompt-tool', 'stdio', ...model('--model')(options)],
    protocol: claudeControl,
    // Claude Code refuses to start inside another Claude Code session (see flags.ts).
    dropEnv: ['CLAUDECODE'],
    env: {},
  },
  codex: {
    executable: 'codex',
    // The model goes in `thread/start`, not on the command line.
    argv: () => ['app-server'],
    protocol: codexAppServer,
    dropEnv: [],
    env: {},
  },
  gemini: {
    executable: 'gemini',
    argv: (options: SessionOptions) => ['--acp', ...model('--model')(options)],
    // Gemini names a tool call after its tool: `run_shell_command__run_shell_command_1796…_0`.
    protocol: acpClient({ toolName: (call) => /^([A-Za-z0-9_.-]+?)__/.exec(str(call.toolCallId) ?? '')?.[1] ?? null }),
    dropEnv: [],
    env: {},
  },
} as unknown as Record<SessionProvider, SessionCli>;
