import type { HistoryCli } from '../clis';

/** One session a CLI stored on disk, as `listCliSessions` lists it and `readCliSession` takes it. */
export interface CliSessionRef {
  /** The CLI (its registry id). */
  readonly provider: HistoryCli;
  /** The CLI's session id (what its resume takes); the file's name when no line says it. */
  readonly id: string;
  /** The folder the session ran in, as its lines say (null: they do not). */
  readonly cwd: string | null;
  /** The CLI's title for it, else its first prompt (one line, at most 200 characters). */
  readonly title: string | null;
  /** ISO 8601 times of its first and last lines (the file's modification time when no line has one). */
  readonly started_at: string | null;
  readonly updated_at: string | null;
  /** The model it last used, where the lines say. */
  readonly model: string | null;
  /** How it was started, where the CLI records it: `exec` for `codex exec`, else the CLI's own word (null: not recorded). */
  readonly origin: string | null;
  /** The session's file. */
  readonly path: string;
}

/** Options of `listCliSessions`. */
export interface ListCliSessionsOptions {
  /** Only this CLI's sessions; default: every CLI whose history is read. */
  provider?: HistoryCli;
  /** Only sessions that ran in this folder (compared resolved). */
  cwd?: string;
  /** The environment that says where the stores are (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `HOME`…); default `process.env`. */
  env?: NodeJS.ProcessEnv;
}
