/*
 * The goldens as turns, for the UI message stream specs (the unit spec and the real clients' in
 * e2e/test): every provider fixture's and session capture's golden events (event-sources.ts) cut
 * into turns as SessionTurns cuts a session: each turn ends with its `result`.
 */
import type { AnyEvent } from '../../src';
import { eventSources } from './event-sources';

/** One golden: its label (`claude/captured-tool`, `session codex/deny`) and its turns. */
export interface GoldenTurns {
  readonly name: string;
  readonly turns: AnyEvent[][];
}

/** Events cut into turns: each ends with a `result`; events after the last one are a turn of their own. */
export function splitTurns(events: readonly AnyEvent[]): AnyEvent[][] {
  const turns: AnyEvent[][] = [[]];
  for (const event of events) {
    turns[turns.length - 1].push(event);
    if (event.kind === 'result') turns.push([]);
  }
  if (turns[turns.length - 1].length === 0) turns.pop();
  return turns;
}

/** Every golden, as turns. */
export function goldenTurns(): GoldenTurns[] {
  return eventSources().map((source) => ({ name: source.label, turns: splitTurns(source.events) }));
}

/**
 * What a turn said, worked out from its events without the projection's code: per message, its
 * whole text when it came (the deltas before it were its beginning), else its deltas (a turn cut
 * short). `text` is the assistant's, `reasoning` its thinking.
 */
export function turnText(turn: readonly AnyEvent[], kind: 'text' | 'reasoning'): string {
  let said = '';
  let deltas = '';
  for (const event of turn) {
    if (kind === 'text' && event.kind === 'assistant_delta') deltas += event.payload.content;
    else if (kind === 'reasoning' && event.kind === 'thinking' && event.payload.metadata.delta === true) deltas += event.payload.content;
    else if (kind === 'reasoning' && event.kind === 'thinking') {
      said += event.payload.content;
      deltas = '';
    } else if (kind === 'text' && event.kind === 'assistant_message') {
      said += event.payload.content
        .map((block) =>
          typeof block === 'string'
            ? block
            : typeof block === 'object' && block !== null && !Array.isArray(block) && block.type === 'text'
              ? String(block.text)
              : '',
        )
        .join('');
      deltas = '';
    }
  }
  return said + deltas;
}

/**
 * The decisions a user would give the approvals of a turn, in the order they were asked, as the
 * turn's events settle them: its `approval_resolved`, or (when none came first) its call's result:
 * the call ran, or it was refused. An approval never settled is denied.
 */
export function turnAnswers(turn: readonly AnyEvent[]): ('allow' | 'deny')[] {
  const answers: ('allow' | 'deny')[] = [];
  const open = new Map<string, { call: string; at: number }>(); // approval id → its call, its answer's index
  for (const event of turn) {
    if (event.kind === 'approval_requested' && event.payload.approval_id !== null) {
      const call =
        typeof event.payload.metadata.tool_call_id === 'string' ? event.payload.metadata.tool_call_id : event.payload.approval_id;
      open.set(event.payload.approval_id, { call, at: answers.push('deny') - 1 });
    } else if (event.kind === 'approval_resolved' && event.payload.approval_id !== null) {
      const asked = open.get(event.payload.approval_id);
      if (asked) answers[asked.at] = event.payload.decision === 'allow' ? 'allow' : 'deny';
      open.delete(event.payload.approval_id);
    } else if (event.kind === 'tool_result') {
      for (const [id, asked] of open) {
        if (asked.call !== event.payload.tool_call_id) continue;
        answers[asked.at] = event.payload.is_error ? 'deny' : 'allow';
        open.delete(id);
      }
    }
  }
  return answers;
}
