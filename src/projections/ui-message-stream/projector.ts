import { randomUUID } from 'node:crypto';
import type { AnyEvent, Event } from '../../events/event';
import type { JsonObject, JsonValue } from '../../schema/json';
import { approvalCall, messageText } from '../approval-call';
import { planOf } from '../plan';
import { StreamedText } from '../streamed-text';
import { toolOutputText } from '../tool-output';
import type { UIFinishReason, UIMessageChunk, UIVersion } from './chunks';

/** Options of `UIMessageStreamProjector` (and of the responses built on it). */
export interface UIMessageStreamOptions {
  /**
   * The major version of `ai` the client runs (default 5: chunks every version accepts). 6 and 7
   * ask approvals with `tool-approval-request`; 5 with `data-approval` parts. See `UIVersion`.
   */
  uiVersion?: UIVersion;
  /** The assistant message's id (default: a random UUID). Part ids start with it. */
  messageId?: string;
}

/** An approval the turn asked (about one tool call). */
interface Approval {
  id: string;
  toolCallId: string;
  subject: string | null;
  decision: 'pending' | 'allowed' | 'denied';
}

/** A tool call the client was told of. */
interface ToolCall {
  /** The approval asked about it, if one was. */
  approval: Approval | null;
  /** Its output was sent. */
  done: boolean;
}

/**
 * The events of one turn (a run, or one `send` of a session: `SessionTurns`) as the chunks of one
 * assistant message of the AI SDK's UI message stream: pure, no I/O. `push(event)` answers an
 * event's chunks, `end()` closes the message when the events stopped without a `result`. The
 * message begins with `start` and ends with `finish` (after a turn's `result`, later events are
 * left out): one projector per turn.
 *
 * Text and thinking are sent once when a CLI streams deltas and then the whole message; tool calls
 * are dynamic tool parts whose output is text; a to-do tool is a `data-plan` part; approvals are
 * native (ai 6 and 7) or `data-approval` parts (ai 5).
 *
 * @example
 * const projector = new UIMessageStreamProjector({ uiVersion: 6 });
 * for await (const event of turns.send('Say hello.')) for (const chunk of projector.push(event)) send(chunk);
 * for (const chunk of projector.end()) send(chunk);
 */
export class UIMessageStreamProjector {
  /** The id of the assistant message (the `start` chunk's `messageId`). */
  readonly messageId: string;
  private readonly version: UIVersion;
  private started = false;
  private finished = false;
  private readonly text = new StreamedText();
  private readonly thought = new StreamedText();
  /** The text or reasoning part being streamed. */
  private open: { kind: 'text' | 'reasoning'; id: string } | null = null;
  private parts = 0;
  private anonymous = 0;
  private readonly tools = new Map<string, ToolCall>();
  /** Calls of to-do tools: shown as the plan, their results have no tool part. */
  private readonly plans = new Set<string>();
  /** The approvals asked, by id. */
  private readonly approvals = new Map<string, Approval>();
  /** The turn's errors (all of them, for the finish reason), and the texts of those that fail it. */
  private readonly errorCodes: (string | null)[] = [];
  private readonly errorTexts: string[] = [];

  constructor(options: UIMessageStreamOptions = {}) {
    this.version = options.uiVersion ?? 5;
    this.messageId = options.messageId ?? randomUUID();
  }

  /** The `start` chunk, once (`push` and `end` send it themselves when it was not). */
  start(): UIMessageChunk[] {
    if (this.started) return [];
    this.started = true;
    return [{ type: 'start', messageId: this.messageId }];
  }

  /** The chunks of one event (none for bookkeeping: `raw`, `stderr`, `cost_update`, the user's own message…). */
  push(event: AnyEvent): UIMessageChunk[] {
    if (this.finished) return [];
    const out = this.start();
    switch (event.kind) {
      case 'assistant_delta':
        this.say('text', this.text.delta(event.payload.content), out);
        break;
      case 'assistant_message':
        this.whole('text', this.text.whole(messageText(event.payload.content)), out);
        break;
      case 'thinking':
        if (event.payload.metadata.delta === true) this.say('reasoning', this.thought.delta(event.payload.content), out);
        else this.whole('reasoning', this.thought.whole(event.payload.content), out);
        break;
      case 'tool_use':
        this.toolUse(event, out);
        break;
      case 'tool_result':
        this.toolResult(event, out);
        break;
      case 'approval_requested':
        this.requested(event, out);
        break;
      case 'approval_resolved':
        this.resolved(event, out);
        break;
      case 'error':
        this.errorCodes.push(event.payload.code);
        if (event.payload.severity === 'error' || event.payload.severity === 'fatal')
          this.errorTexts.push(event.payload.message || event.payload.code || 'error');
        break;
      case 'result':
        this.finish(event, out);
        break;
      default:
        break;
    }
    return out;
  }

  /** Closes the message when the events ended without a `result` (nothing when one was seen). */
  end(): UIMessageChunk[] {
    if (this.finished) return [];
    const out = this.start();
    this.finish(null, out);
    return out;
  }

  /** Text or reasoning as it streams: a part of its kind is opened when another was open (or none). */
  private say(kind: 'text' | 'reasoning', delta: string, out: UIMessageChunk[]): void {
    if (delta === '') return;
    if (this.open?.kind !== kind) {
      this.close(out);
      this.open = { kind, id: `${this.messageId}-${kind}-${this.parts++}` };
      out.push({ type: `${kind}-start`, id: this.open.id });
    }
    out.push({ type: `${kind}-delta`, id: this.open.id, delta });
  }

  /** A whole message: what its deltas did not say, then its part is closed (the next message is a new part). */
  private whole(kind: 'text' | 'reasoning', rest: string, out: UIMessageChunk[]): void {
    this.say(kind, rest, out);
    if (this.open?.kind === kind) this.close(out);
  }

  private close(out: UIMessageChunk[]): void {
    if (this.open) out.push({ type: `${this.open.kind}-end`, id: this.open.id });
    this.open = null;
  }

  private toolUse(event: Event<'tool_use'>, out: UIMessageChunk[]): void {
    const { tool_name: name, input } = event.payload;
    const id = event.payload.tool_call_id ?? `${this.messageId}-tool-${this.anonymous++}`;
    const plan = planOf(name, input);
    if (plan !== null) {
      // Each call restates the whole list: one plan part per message, replaced in place (same id).
      this.plans.add(id);
      this.close(out);
      out.push({ type: 'data-plan', id: `${this.messageId}-plan`, data: { entries: plan } });
      return;
    }
    // A call is announced once: sending its input again would take back its approval or its output in the client.
    if (!this.tools.has(id)) this.announce(id, name ?? 'tool', input, out);
  }

  /** A tool part, after what was said before it (the open text part is closed, so later text follows the call). */
  private announce(id: string, name: string, input: JsonObject, out: UIMessageChunk[]): ToolCall {
    this.close(out);
    const call: ToolCall = { approval: null, done: false };
    this.tools.set(id, call);
    out.push({ type: 'tool-input-available', toolCallId: id, toolName: name, input, dynamic: true });
    return call;
  }

  private toolResult(event: Event<'tool_result'>, out: UIMessageChunk[]): void {
    const id = event.payload.tool_call_id;
    if (id === null || this.plans.has(id)) return;
    // A result of a call this turn did not announce (a task started in an earlier turn) gets its part first.
    const call = this.tools.get(id) ?? this.announce(id, 'tool', {}, out);
    if (call.done) return;
    // An approval the events never decided (a run's host answered the CLI itself; a replay): the
    // result says it: the call ran, or it was refused.
    if (call.approval?.decision === 'pending') this.settle(call.approval, event.payload.is_error ? 'deny' : 'allow', null, out);
    call.done = true;
    const text = toolOutputText(event.payload.content);
    // ai 6 and 7 refuse an output on a denied call's part (its approval says `approved: false`): the denial is its output.
    if (this.version >= 6 && call.approval?.decision === 'denied') out.push({ type: 'tool-output-denied', toolCallId: id });
    else if (event.payload.is_error)
      out.push({ type: 'tool-output-error', toolCallId: id, errorText: text || 'The tool call failed.', dynamic: true });
    else out.push({ type: 'tool-output-available', toolCallId: id, output: text, dynamic: true });
  }

  private requested(event: Event<'approval_requested'>, out: UIMessageChunk[]): void {
    const { approval_id: approvalId, subject } = event.payload;
    if (approvalId === null) return;
    const asked = approvalCall(event);
    const toolCallId = asked.id;
    if (this.plans.has(toolCallId)) return;
    // A CLI that asks before it announces the call: the request's details describe it.
    const call = this.tools.get(toolCallId) ?? this.announce(toolCallId, asked.name ?? 'tool', asked.input, out);
    if (call.done || call.approval) return;
    call.approval = { id: approvalId, toolCallId, subject, decision: 'pending' };
    this.approvals.set(approvalId, call.approval);
    if (this.version >= 6) {
      out.push({ type: 'tool-approval-request', approvalId, toolCallId });
    } else {
      this.close(out);
      out.push(this.approvalPart(call.approval, null, null));
    }
  }

  private resolved(event: Event<'approval_resolved'>, out: UIMessageChunk[]): void {
    const { approval_id: approvalId, decision, reason } = event.payload;
    // Only an approval this turn asked: Claude's own denials come without a request, and a CLI may
    // withdraw a request after its turn ended (Codex); the call's result says what happened.
    const approval = approvalId === null ? undefined : this.approvals.get(approvalId);
    if (approval?.decision === 'pending') this.settle(approval, decision, reason, out);
  }

  /** An approval decided: ai 5's data part shows the decision, ai 7's `tool-approval-response` carries it. */
  private settle(approval: Approval, decision: JsonValue, reason: string | null, out: UIMessageChunk[]): void {
    approval.decision = decision === 'allow' ? 'allowed' : 'denied';
    if (this.version === 5) out.push(this.approvalPart(approval, decision, reason));
    // ai 6 has no chunk for a decision: its client records the one it made (`addToolApprovalResponse`).
    if (this.version === 7)
      out.push({
        type: 'tool-approval-response',
        approvalId: approval.id,
        approved: decision === 'allow',
        ...(reason === null ? {} : { reason }),
      });
  }

  /** An ai 5 approval: a data part, replaced in place by its decision (same id). */
  private approvalPart(approval: Approval, decision: JsonValue, reason: string | null): UIMessageChunk {
    return {
      type: 'data-approval',
      id: `${this.messageId}-approval-${approval.id}`,
      data: { approval_id: approval.id, tool_call_id: approval.toolCallId, subject: approval.subject, decision, reason },
    };
  }

  /** The end of the message: open parts closed, every tool call given an outcome, the errors, `finish`. */
  private finish(result: Event<'result'> | null, out: UIMessageChunk[]): void {
    this.finished = true;
    this.close(out);
    this.text.reset();
    this.thought.reset();
    for (const [id, call] of this.tools) {
      if (call.done) continue;
      call.done = true;
      if (call.approval?.decision === 'pending')
        this.settle(call.approval, 'cancelled', 'The turn ended before the approval was answered.', out);
      // Asked and not allowed: the call did not run.
      if (this.version >= 6 && call.approval?.decision === 'denied') out.push({ type: 'tool-output-denied', toolCallId: id });
      else
        out.push({ type: 'tool-output-error', toolCallId: id, errorText: 'The turn ended before the tool call finished.', dynamic: true });
    }
    // The clients stop reading at an `error` chunk (useChat keeps the error and drops the rest):
    // errors come last, so nothing the turn said after one is lost.
    for (const errorText of this.errorTexts) out.push({ type: 'error', errorText });
    out.push({ type: 'finish', finishReason: this.finishReason(result) });
  }

  private finishReason(result: Event<'result'> | null): UIFinishReason {
    switch (result?.payload.status) {
      case 'completed':
        return result.payload.stop_reason === 'max_tokens' ? 'length' : 'stop';
      case 'aborted':
        return this.version === 7 ? 'interrupted' : 'other';
      case 'failed':
        if (this.errorCodes.includes('max_tokens')) return 'length';
        return this.errorCodes.includes('refusal') ? 'content-filter' : 'error';
      default:
        // No result (the events stopped), or a status the library does not name.
        return 'other';
    }
  }
}
