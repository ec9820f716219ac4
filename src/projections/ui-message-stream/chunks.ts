import type { JsonObject, JsonValue } from '../../schema/json';
import type { PlanEntry } from '../plan';

/**
 * The major version of the `ai` package (the Vercel AI SDK) the client runs: the versions' chunk
 * schemas differ, and a client refuses a chunk its schema does not list.
 *
 * - `5`: no approval chunks (approvals are `data-approval` parts).
 * - `6`: `tool-approval-request` and `tool-output-denied`; no chunk carries a decision.
 * - `7`: as 6, plus `tool-approval-response` (a decision) and the finish reason `interrupted`.
 */
export type UIVersion = 5 | 6 | 7;

/** Why a turn's message finished, in the words every client version accepts (`interrupted`: ai 7 only). */
export type UIFinishReason = 'stop' | 'length' | 'content-filter' | 'error' | 'other' | 'interrupted';

/** The data of a `data-approval` part (the approvals of an ai 5 client): the request, and its decision once made. */
export interface UIApprovalData {
  approval_id: string;
  tool_call_id: string;
  subject: string | null;
  /** `null` while the approval waits; then `'allow'`, `'deny'` or `'cancelled'` (the `approval_resolved` decision). */
  decision: JsonValue;
  reason: string | null;
}

/**
 * One chunk of the AI SDK's UI message stream (what `useChat` and `readUIMessageStream` read), as
 * `UIMessageStreamProjector` sends them: plain JSON objects. Tool calls are `dynamic` tool parts
 * (`type: 'dynamic-tool'` in the client): a CLI's tools are not the app's own. Their outputs say
 * `dynamic` too: ai 5 looks for a static tool part otherwise (and fails the stream).
 */
export type UIMessageChunk =
  | { type: 'start'; messageId: string }
  | { type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; id: string }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; delta: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: JsonObject; dynamic: true }
  | { type: 'tool-output-available'; toolCallId: string; output: string; dynamic: true }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string; dynamic: true }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string }
  | { type: 'data-plan'; id: string; data: { entries: PlanEntry[] } }
  | { type: 'data-approval'; id: string; data: UIApprovalData }
  | { type: 'error'; errorText: string }
  | { type: 'finish'; finishReason: UIFinishReason };
