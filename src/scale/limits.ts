/*
 * The limits a server of runs has when the operator sets none: `serve`, `worker`,
 * `createRunsHandler` and `createWorker` all read them from here. A run may otherwise run forever,
 * queue without end, or fill the store (1,000 queued runs of 200 KB prompts were once all accepted;
 * one 30 MB run kept 78 MB for a day).
 */

/** The longest prompt a request may send, in UTF-8 bytes: 1 MiB (a prompt is text, not an upload). */
export const DEFAULT_MAX_PROMPT_BYTES = 1024 * 1024;
/** Room in a request body for the fields beside the prompt (and JSON escapes). */
export const BODY_ROOM_BYTES = 64 * 1024;
/** Runs waiting to start, of every principal, past which `POST /runs` is 429. */
export const DEFAULT_MAX_QUEUED = 100;
/** Runs one principal may have waiting or running at once. */
export const DEFAULT_MAX_RUNS_PER_PRINCIPAL = 20;
/** A run's whole life, in seconds (0: none): past it the CLI is stopped and the run ends `timed_out`. */
export const DEFAULT_MAX_RUN_SECONDS = 3600;
/** A run's stored events, in bytes of JSON: past it the CLI is stopped and the run fails `output_limit`. */
export const DEFAULT_MAX_RUN_BYTES = 64 * 1024 * 1024;
/** What a client is told to wait before asking again after a 429, in seconds. */
export const RETRY_AFTER_SECONDS = 10;
/** How long a session's CLI is kept with no turn, in seconds: past it the CLI is closed (no process idles), and the next message resumes it. */
export const DEFAULT_IDLE_SECONDS = 300;
