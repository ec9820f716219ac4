import {
  ApprovalRequestedPayload,
  ApprovalResolvedPayload,
  AssistantDeltaPayload,
  AssistantMessagePayload,
  CostUpdatePayload,
  ErrorPayload,
  RawPayload,
  ResultPayload,
  RunStartedPayload,
  StderrPayload,
  ThinkingPayload,
  ToolResultPayload,
  ToolUsePayload,
  UserMessagePayload,
} from '../payloads';
import type { EventKind } from './kinds';

/**
 * The default payload class of each kind. `satisfies` makes a missing kind, or a class
 * filed under another kind than its own `kind`, a compile error.
 */
export const PAYLOAD_CLASSES = {
  run_started: RunStartedPayload,
  assistant_delta: AssistantDeltaPayload,
  assistant_message: AssistantMessagePayload,
  user_message: UserMessagePayload,
  thinking: ThinkingPayload,
  tool_use: ToolUsePayload,
  tool_result: ToolResultPayload,
  approval_requested: ApprovalRequestedPayload,
  approval_resolved: ApprovalResolvedPayload,
  cost_update: CostUpdatePayload,
  result: ResultPayload,
  error: ErrorPayload,
  stderr: StderrPayload,
  raw: RawPayload,
} as const satisfies { [K in EventKind]: { readonly kind: K } };

/** The default class map's type. */
export type DefaultPayloadClasses = typeof PAYLOAD_CLASSES;

/** The default payload class of kind `K`'s instance type: `PayloadFor<'tool_use'>` is `ToolUsePayload`. */
export type PayloadFor<K extends EventKind> = InstanceType<DefaultPayloadClasses[K]>;
