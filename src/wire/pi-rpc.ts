/*
 * The commands of pi's `--mode rpc` this library sends, and the extension dialogs it answers, each
 * written once (pi 0.73.1, docs/rpc.md). The client (protocols/pi-rpc.ts) and the events mapping
 * (protocols/pi-rpc-events.ts) key their handlers by these tables, so a renamed one fails to compile.
 */

/** The client's commands (`type` of the line; `abort` is sent without an id). */
export const PI_COMMANDS = {
  prompt: 'prompt',
  abort: 'abort',
  /** Answers the session id (`data.sessionId`), which no event carries. */
  getState: 'get_state',
} as const;

/** The dialog of pi's `extension_ui_request`s the approval extension asks through. */
export const PI_UI_REQUESTS = {
  confirm: 'confirm',
} as const;
export type PiUiRequest = (typeof PI_UI_REQUESTS)[keyof typeof PI_UI_REQUESTS];

/** The `title` of the approval extension's `confirm`; its `message` is the JSON of `PiApprovalDetails`. */
export const PI_APPROVAL_TITLE = 'cli-subprocess-core: allow this tool call?';

/** What the approval extension says of the tool call it asks about. */
export interface PiApprovalDetails {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}
