import type { AnyEvent, Event } from '../../events/event';
import { num, obj } from '../../providers/drafts';
import type { JsonObject, JsonValue } from '../../schema/json';
import { approvalCall, messageText } from '../approval-call';
import { planOf } from '../plan';
import { StreamedText } from '../streamed-text';
import { toolOutputText } from '../tool-output';
import { ACP_ERRORS } from '../../wire/acp';
import { viewToolCall } from './tool-calls';

/** ACP's stop reasons (`StopReason`): why a `session/prompt` turn ended. */
export type AcpStopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled';

/** The answer to a `session/prompt`: its stop reason, or a JSON-RPC error (a failed turn). */
export type AcpPromptAnswer = { result: { stopReason: AcpStopReason } } | { error: { code: number; message: string; data: JsonObject } };

/** A `session/request_permission`'s parameters but the session id, and which option answers what. */
export interface AcpPermission {
  toolCall: JsonObject;
  options: { optionId: string; name: string; kind: 'allow_once' | 'allow_always' | 'reject_once' }[];
}

/** The options every permission offers; their ids are the host's answers (`session.approve`). */
const PERMISSION_OPTIONS: AcpPermission['options'] = [
  { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
];

/** JSON-RPC's "internal error": the code of a failed turn's answer. */
const TURN_FAILED = -32603;

/** A tool call the client was told of. */
interface Shown {
  /** Edits show their diffs: a result must not replace them. */
  readonly hasDiff: boolean;
  /** A to-do tool, shown as a `plan`: its result has no tool call to update. */
  readonly plan: boolean;
}

/**
 * The events of a session as Agent Client Protocol `session/update`s, for an editor (Zed,
 * JetBrains, Neovim): pure, no I/O. `updates(event)` answers the updates of one event (none for
 * most bookkeeping); `permission(event)` a permission request's parameters; `answer(result)` the
 * `session/prompt` answer that ends the turn. One projector per session: tool calls and message ids
 * are the session's.
 */
export class AcpProjector {
  private readonly text = new StreamedText();
  private readonly thought = new StreamedText();
  private readonly tools = new Map<string, Shown>();
  /** The tool call each approval is about. */
  private readonly approvals = new Map<string, string>();
  /** The turn's errors, for its answer. */
  private errors: Event<'error'>[] = [];
  private turn = 0;
  private messages = 0;
  /** The message id of the text (or thought) being streamed, unique across the session's turns. */
  private textId: string | null = null;
  private thoughtId: string | null = null;
  private anonymous = 0;

  /**
   * @param idPrefix Begins every id the projector makes (message ids, ids of tool calls the CLI left
   *   unnamed). A session continued by a new projector (a loaded one) needs a new prefix, so that its
   *   ids stay unique across the session's turns.
   */
  constructor(private readonly idPrefix = '') {}

  updates(event: AnyEvent): JsonObject[] {
    switch (event.kind) {
      case 'assistant_delta':
        return this.chunk('agent_message_chunk', this.text.delta(event.payload.content));
      case 'assistant_message':
        return this.message(event.payload.content);
      case 'thinking':
        return event.payload.metadata.delta === true
          ? this.chunk('agent_thought_chunk', this.thought.delta(event.payload.content))
          : this.chunk('agent_thought_chunk', this.thought.whole(event.payload.content), true);
      case 'tool_use':
        return this.toolUse(event);
      case 'tool_result':
        return this.toolResult(event);
      case 'approval_requested':
        return this.requested(event);
      case 'approval_resolved':
        return this.resolved(event);
      case 'cost_update':
        return usageUpdate(event);
      case 'error':
        this.errors.push(event);
        return [];
      default:
        return [];
    }
  }

  /** The parameters (but the session id) of the `session/request_permission` an approval asks, about the tool call `updates` announced. */
  permission(event: Event<'approval_requested'>): AcpPermission {
    const { toolCall } = this.askedCall(event);
    return { toolCall, options: PERMISSION_OPTIONS };
  }

  /** The `session/prompt` answer a turn's `result` gives; the turn is over. */
  answer(result: Event<'result'>): AcpPromptAnswer {
    const errors = this.errors;
    this.errors = [];
    this.text.reset();
    this.thought.reset();
    this.turn += 1;
    const status = result.payload.status;
    const codes = errors.map((error) => error.payload.code);
    if (status === 'aborted') return { result: { stopReason: 'cancelled' } };
    if (status === 'completed') return { result: { stopReason: result.payload.stop_reason === 'max_tokens' ? 'max_tokens' : 'end_turn' } };
    // A failure the protocol has a stop reason for; any other is the prompt's error.
    if (codes.includes('max_turns')) return { result: { stopReason: 'max_turn_requests' } };
    if (codes.includes('refusal')) return { result: { stopReason: 'refusal' } };
    const failure = errors.find((error) => error.payload.severity !== 'warning' && error.payload.severity !== 'info') ?? errors.at(-1);
    return {
      error: {
        // A CLI without its credentials (each decoder's `auth` code: Claude's "Not logged in", a 401):
        // ACP's own error, on which an editor offers the agent's `authMethods`.
        code: failure?.payload.code === 'auth' ? ACP_ERRORS.authRequired : TURN_FAILED,
        message: failure?.payload.message ?? 'the turn failed',
        data: { code: failure?.payload.code ?? null, stop_reason: result.payload.stop_reason },
      },
    };
  }

  /** A chunk of text or thought, in its message (a new message id when the last one was closed). */
  private chunk(update: 'agent_message_chunk' | 'agent_thought_chunk', text: string, closes = false): JsonObject[] {
    if (text === '') {
      if (closes) this.close(update);
      return [];
    }
    const messageId = this.messageId(update);
    if (closes) this.close(update);
    return [{ sessionUpdate: update, content: { type: 'text', text }, messageId }];
  }

  /** A whole assistant message: its text blocks as what their deltas did not say, other blocks as they are. */
  private message(content: readonly JsonValue[]): JsonObject[] {
    const updates = this.chunk('agent_message_chunk', this.text.whole(messageText(content)), true);
    for (const value of content) {
      const block = obj(value);
      if (block?.type === 'image' || block?.type === 'resource_link')
        updates.push({ sessionUpdate: 'agent_message_chunk', content: block, messageId: this.messageId('agent_message_chunk') });
    }
    return updates;
  }

  private messageId(update: 'agent_message_chunk' | 'agent_thought_chunk'): string {
    if (update === 'agent_message_chunk') return (this.textId ??= `${this.idPrefix}msg-${this.turn}-${this.messages++}`);
    return (this.thoughtId ??= `${this.idPrefix}thought-${this.turn}-${this.messages++}`);
  }

  private close(update: 'agent_message_chunk' | 'agent_thought_chunk'): void {
    if (update === 'agent_message_chunk') this.textId = null;
    else this.thoughtId = null;
  }

  private toolUse(event: Event<'tool_use'>): JsonObject[] {
    const { tool_name: name, input, metadata } = event.payload;
    const id = event.payload.tool_call_id ?? `${this.idPrefix}tool-${this.anonymous++}`;
    const plan = planOf(name, input);
    if (plan !== null) {
      this.tools.set(id, { hasDiff: false, plan: true });
      return [
        {
          sessionUpdate: 'plan',
          entries: plan.map((entry) => ({ content: entry.content, priority: entry.priority, status: entry.status })),
        },
      ];
    }
    const view = viewToolCall(name, input, metadata);
    const known = this.tools.has(id);
    this.tools.set(id, { hasDiff: view.diffs.length > 0, plan: false });
    const call: JsonObject = {
      sessionUpdate: known ? 'tool_call_update' : 'tool_call',
      toolCallId: id,
      title: view.title,
      kind: view.kind,
      status: 'pending',
      rawInput: input,
    };
    if (name !== null) call.name = name;
    if (view.locations.length > 0) call.locations = view.locations;
    if (view.diffs.length > 0) call.content = view.diffs;
    return [call];
  }

  private toolResult(event: Event<'tool_result'>): JsonObject[] {
    const id = event.payload.tool_call_id;
    const shown = id === null ? undefined : this.tools.get(id);
    if (id === null || !shown || shown.plan) return [];
    const update: JsonObject = {
      sessionUpdate: 'tool_call_update',
      toolCallId: id,
      status: event.payload.is_error ? 'failed' : 'completed',
      rawOutput: { content: event.payload.content },
    };
    // An edit keeps its diff on screen: its result (often only "The file was updated") does not replace it.
    const text = toolOutputText(event.payload.content);
    if (!shown.hasDiff && text !== '') update.content = [{ type: 'content', content: { type: 'text', text } }];
    return [update];
  }

  /** The tool call an approval asks about, announced first when no `tool_use` did (a CLI that asks before it says). */
  private requested(event: Event<'approval_requested'>): JsonObject[] {
    const { id, toolCall } = this.askedCall(event);
    if (event.payload.approval_id !== null) this.approvals.set(event.payload.approval_id, id);
    if (this.tools.has(id)) return [];
    this.tools.set(id, { hasDiff: false, plan: false });
    return [{ sessionUpdate: 'tool_call', ...toolCall }];
  }

  /** The tool call of an approval: its id (the one its `tool_use` had), and its fields. */
  private askedCall(event: Event<'approval_requested'>): { id: string; toolCall: JsonObject } {
    const { id, name, input, native } = approvalCall(event);
    const view = viewToolCall(name, input, native);
    const toolCall: JsonObject = { toolCallId: id, title: view.title, kind: view.kind, status: 'pending', rawInput: input };
    if (view.locations.length > 0) toolCall.locations = view.locations;
    return { id, toolCall };
  }

  /** An allowed call runs; a denied or withdrawn one has its result to come (or its turn's end). */
  private resolved(event: Event<'approval_resolved'>): JsonObject[] {
    const id = event.payload.approval_id === null ? undefined : this.approvals.get(event.payload.approval_id);
    if (event.payload.approval_id !== null) this.approvals.delete(event.payload.approval_id);
    if (event.payload.decision !== 'allow' || id === undefined || !this.tools.has(id)) return [];
    return [{ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'in_progress' }];
  }
}

/**
 * ACP's `usage_update` (tokens in the context window, and its size; the session's cost) where the
 * CLI names its window: Claude Code's `modelUsage` (`contextWindow`; the last model call's input is
 * what the window holds), Codex's `modelContextWindow` (with its last call's tokens).
 */
function usageUpdate(event: Event<'cost_update'>): JsonObject[] {
  const { metadata, cost_usd } = event.payload;
  const native = obj(metadata.native_usage);
  let size = num(native?.modelContextWindow);
  let used: number | null = null;
  if (size !== null) {
    const last = obj(native?.last);
    used = (num(last?.inputTokens) ?? 0) + (num(last?.outputTokens) ?? 0);
  }
  const models = obj(metadata.model_usage);
  if (size === null && models) {
    for (const model of Object.values(models)) size = Math.max(size ?? 0, num(obj(model)?.contextWindow) ?? 0) || null;
    const main = obj(metadata.main_loop_usage);
    used =
      (num(main?.input_tokens) ?? 0) +
      (num(main?.cache_read_input_tokens) ?? 0) +
      (num(main?.cache_creation_input_tokens) ?? 0) +
      (num(main?.output_tokens) ?? 0);
  }
  if (size === null || used === null) return [];
  const update: JsonObject = { sessionUpdate: 'usage_update', used, size };
  if (metadata.cost_reported === true) update.cost = { amount: cost_usd, currency: 'USD' };
  return [update];
}
