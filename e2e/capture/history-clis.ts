import { join } from 'node:path';
import { SCRIPTED_CHAT_MODEL } from '../scripted/openai-chat';
import { PI_PROVIDER, QWEN_ONE_SHOT_ARGS } from '../scripted/setup';

/*
 * How a terminal user's one-shot run of each pinned CLI is made, for its own history: the argv (a
 * second run resumes the first's session), where the session id is in its stdout, and where its
 * store is under the scripted HOME (with the files worth keeping as fixtures). Used by the capture
 * (history.ts) and the real-CLI spec (e2e/test/cli-history.spec.ts).
 */

/** Every file but another program's bookkeeping (settings, locks). */
const notSettings = (source: string) => !/\.(json|lock)$/.test(source);

/** An OpenCode-like CLI's `run --format json` (as e2e/capture/opencode.ts runs it), resuming with `--session`. */
const runFormatJson = (prompt: string, resume: string | null) => [
  'run',
  '--format',
  'json',
  '--auto',
  '--thinking',
  ...(resume ? ['--session', resume] : []),
  prompt,
];

/** Each CLI's one-shot argv (as e2e/capture/claude.ts and codex.ts run it) and where its store is under HOME. */
export const HISTORY_CLIS = {
  claude: {
    argv: (prompt: string, resume: string | null) => [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--allowedTools',
      'Bash',
      ...(resume ? ['--resume', resume] : []),
      '--',
      prompt,
    ],
    sessionId: (stdout: string) => /"session_id":"([^"]+)"/.exec(stdout)?.[1] ?? null,
    store: (home: string) => join(home, '.claude'),
    keep: 'projects',
    keepFile: notSettings,
  },
  codex: {
    argv: (prompt: string, resume: string | null) => [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      ...(resume ? ['resume', resume] : []),
      '--',
      prompt,
    ],
    sessionId: (stdout: string) => /"thread_id":"([^"]+)"/.exec(stdout)?.[1] ?? null,
    // pointCliAt sets CODEX_HOME to HOME.
    store: (home: string) => home,
    keep: 'sessions',
    keepFile: notSettings,
  },
  // As e2e/capture/gemini.ts runs it; `--resume <id>` continues a session.
  gemini: {
    argv: (prompt: string, resume: string | null) => [
      '--output-format',
      'stream-json',
      '--yolo',
      ...(resume ? ['--resume', resume] : []),
      `--prompt=${prompt}`,
    ],
    sessionId: (stdout: string) => /"session_id":"([^"]+)"/.exec(stdout)?.[1] ?? null,
    store: (home: string) => home,
    keep: '.gemini/tmp',
    // The chats and the project's root beside them (`.project_root`), which names the session's cwd.
    keepFile: (source: string) => !/\.(json|lock)$/.test(source) && !/\/(logs|tool-outputs)\b/.test(source),
  },
  // As e2e/capture/qwen.ts runs it (yolo: in `-p` the default mode leaves the shell out of the tools).
  qwen: {
    argv: (prompt: string, resume: string | null) => [...QWEN_ONE_SHOT_ARGS, ...(resume ? ['--resume', resume] : []), '-p', prompt],
    sessionId: (stdout: string) => /"session_id":"([^"]+)"/.exec(stdout)?.[1] ?? null,
    store: (home: string) => join(home, '.qwen'),
    keep: 'projects',
    // The chats only (not the project's memory, meta.json or the memory extractor's cursor).
    keepFile: (source: string) => !/\.(json|lock|md)$/.test(source) && !source.includes('/memory'),
  },
  // As e2e/capture/copilot.ts runs it; `--resume=<id>` continues a session.
  copilot: {
    argv: (prompt: string, resume: string | null) => [
      '--output-format',
      'json',
      '--allow-all-tools',
      '--no-auto-update',
      '--disable-client-telemetry',
      ...(resume ? [`--resume=${resume}`] : []),
      '-p',
      prompt,
    ],
    sessionId: (stdout: string) => /"sessionId":"([^"]+)"/.exec(stdout)?.[1] ?? null,
    // pointCliAt sets COPILOT_HOME to HOME/.copilot.
    store: (home: string) => join(home, '.copilot'),
    keep: 'session-state',
    // A session's events and its workspace.yaml, not its locks, checkpoints or rewind snapshots.
    keepFile: (source: string) =>
      !/\.(json|lock|md)$/.test(source) && !/\/(\.session-operation-locks|checkpoints|rewind-file-snapshots)\b/.test(source),
  },
  // `opencode run`: the registry gives OpenCode no one-shot mode, but a terminal user has it.
  opencode: {
    argv: runFormatJson,
    sessionId: (stdout: string) => /"sessionID":"(ses_[^"]+)"/.exec(stdout)?.[1] ?? null,
    // pointCliAt sets XDG_DATA_HOME to HOME/.local/share: the data dir itself is kept (tests name the file by OPENCODE_DB).
    store: (home: string) => join(home, '.local', 'share', 'opencode'),
    keep: '.',
    // The database and its write-ahead log as the CLI left them (every session is still in the log).
    keepFile: (source: string) => /\/opencode(\/opencode\.db(-wal)?)?$/.test(source),
  },
  kilo: {
    argv: runFormatJson,
    sessionId: (stdout: string) => /"sessionID":"(ses_[^"]+)"/.exec(stdout)?.[1] ?? null,
    store: (home: string) => join(home, '.local', 'share', 'kilo'),
    keep: '.',
    keepFile: (source: string) => /\/kilo(\/kilo\.db(-wal)?)?$/.test(source),
  },
  pi: {
    argv: (prompt: string, resume: string | null) => [
      '--offline',
      '--mode',
      'json',
      '--provider',
      PI_PROVIDER,
      '--model',
      SCRIPTED_CHAT_MODEL,
      ...(resume ? ['--session', resume] : []),
      '-p',
      prompt,
    ],
    sessionId: (stdout: string) => /^\{"type":"session","version":\d+,"id":"([^"]+)"/.exec(stdout)?.[1] ?? null,
    // pointCliAt sets PI_CODING_AGENT_DIR to HOME/.pi/agent.
    store: (home: string) => join(home, '.pi', 'agent'),
    keep: 'sessions',
    keepFile: notSettings,
  },
  // `cline --json` cannot resume (`--id` opens its TUI): the capture's second turn is a second prompt of one `cline --acp` session.
  cline: {
    argv: (prompt: string) => ['--json', '--', prompt],
    sessionId: () => null,
    // pointCliAt sets CLINE_DIR to HOME/.cline: its data dir is `data` in it. Its sessions are JSON files.
    store: (home: string) => join(home, '.cline', 'data'),
    keep: 'sessions',
    keepFile: () => true,
  },
} as const;
