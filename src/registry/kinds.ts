/** The fourteen normalized event kinds, in their stable order. */
export const KINDS = [
  'run_started',
  'assistant_delta',
  'assistant_message',
  'user_message',
  'thinking',
  'tool_use',
  'tool_result',
  'approval_requested',
  'approval_resolved',
  'cost_update',
  'result',
  'error',
  'stderr',
  'raw',
] as const;

/** One of the normalized event kinds. */
export type EventKind = (typeof KINDS)[number];

/** True when `value` names a normalized event kind. */
export function isEventKind(value: unknown): value is EventKind {
  return (KINDS as readonly unknown[]).includes(value);
}
