import { AcpProjector, type AnyEvent } from '../../src';
import { acpErrors, acpMessageErrors } from './acp-schema';
import { eventSources } from './event-sources';

/*
 * Every recorded stream (each provider fixture, each session capture of a real CLI) projected to
 * ACP: every message valid against the protocol's JSON Schema, and what a client builds of it
 * faithful (text not doubled, each tool call announced once and then updated, edits' diffs kept).
 */

/** Everything the projector says of a stream, as the `acp` agent would write it. */
function project(events: readonly AnyEvent[]) {
  const projector = new AcpProjector();
  const notifications: Record<string, unknown>[] = [];
  const permissions: Record<string, unknown>[] = [];
  const answers: Record<string, unknown>[] = [];
  for (const event of events) {
    for (const update of projector.updates(event))
      notifications.push({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'session-1', update } });
    if (event.kind === 'approval_requested')
      permissions.push({
        jsonrpc: '2.0',
        id: permissions.length,
        method: 'session/request_permission',
        params: { sessionId: 'session-1', ...projector.permission(event) },
      });
    if (event.kind === 'result') answers.push({ jsonrpc: '2.0', id: 100 + answers.length, ...projector.answer(event) });
  }
  return { notifications, permissions, answers };
}

const updates = (notifications: Record<string, unknown>[]) =>
  notifications.map((message) => (message.params as { update: Record<string, unknown> }).update);

describe.each(eventSources().map((source) => [source.label, source] as const))('%s', (_label, source) => {
  const { notifications, permissions, answers } = project(source.events);

  it('every message is valid ACP (the SDK schema)', () => {
    for (const message of [...notifications, ...permissions, ...answers])
      expect({ message, errors: acpMessageErrors(message) }).toEqual({ message, errors: [] });
    for (const message of notifications) expect(acpErrors('SessionNotification', message.params)).toEqual([]);
    for (const message of permissions) expect(acpErrors('RequestPermissionRequest', message.params)).toEqual([]);
    for (const answer of answers) if ('result' in answer) expect(acpErrors('PromptResponse', answer.result)).toEqual([]);
  });

  it("the agent's text reaches the client once: its chunks spell each turn's answer", () => {
    const chunks = updates(notifications).filter((update) => update.sessionUpdate === 'agent_message_chunk');
    const said = chunks.map((update) => (update.content as { text?: string }).text ?? '').join('');
    for (const event of source.events) {
      if (event.kind !== 'assistant_message') continue;
      const text = event.payload.content
        .map((block) =>
          typeof block === 'object' && block !== null && !Array.isArray(block) && block.type === 'text' ? String(block.text) : '',
        )
        .join('');
      if (text !== '') expect(said).toContain(text);
    }
    const wholes = source.events
      .filter((event) => event.kind === 'assistant_message')
      .map((event) => JSON.stringify(event.payload.content));
    // No message's text twice in a row (deltas, then the whole message).
    for (const whole of wholes) {
      const text = (JSON.parse(whole) as { text?: string }[]).map((block) => block.text ?? '').join('');
      if (text.length > 8) expect(said.split(text).length - 1).toBeLessThanOrEqual(wholes.filter((other) => other === whole).length);
    }
  });

  it('each tool call is announced once, before its updates; an edit keeps its diff', () => {
    const seen = new Set<string>();
    const diffs = new Set<string>();
    for (const update of updates(notifications)) {
      const id = update.toolCallId as string | undefined;
      if (update.sessionUpdate === 'tool_call') {
        expect(seen.has(id ?? '')).toBe(false);
        seen.add(id ?? '');
        if (Array.isArray(update.content) && update.content.some((item) => (item as { type?: string }).type === 'diff'))
          diffs.add(id ?? '');
      } else if (update.sessionUpdate === 'tool_call_update') {
        expect(seen.has(id ?? '')).toBe(true);
        if (diffs.has(id ?? '')) expect(update.content).toBeUndefined();
      }
    }
  });

  it('each turn gets one answer: end_turn, cancelled, a limit, or an error for a failed run', () => {
    const results = source.events.filter((event) => event.kind === 'result');
    expect(answers).toHaveLength(results.length);
    results.forEach((result, index) => {
      const answer = answers[index] as { result?: { stopReason: string }; error?: { message: string } };
      if (result.kind !== 'result') return;
      if (result.payload.status === 'completed') expect(answer.result?.stopReason).toMatch(/^(end_turn|max_tokens)$/);
      else if (result.payload.status === 'aborted') expect(answer.result?.stopReason).toBe('cancelled');
      else expect(answer.error?.message ?? answer.result?.stopReason).toBeTruthy();
    });
  });
});

describe("a CLI without its credentials: ACP's auth-required error, on which an editor offers the agent's authMethods", () => {
  const source = (label: string) => {
    const found = eventSources().find((candidate) => candidate.label === label);
    if (!found) throw new Error(`no event source ${label}`);
    return found;
  };

  it('Claude Code\'s "Not logged in" (a real capture) answers -32000, not a generic -32603', () => {
    const { answers } = project(source('claude/public-bb-auth-failure').events);
    expect(answers.map((answer) => answer.error)).toEqual([
      { code: -32000, message: 'Not logged in · Please run /login', data: { code: 'auth', stop_reason: 'stop_sequence' } },
    ]);
    for (const answer of answers) expect(acpMessageErrors(answer)).toEqual([]);
  });

  it('any other failure stays -32603', () => {
    const failed = eventSources().flatMap((candidate) =>
      project(candidate.events).answers.filter(
        (answer) => answer.error !== undefined && candidate.label !== 'claude/public-bb-auth-failure',
      ),
    );
    expect(failed.length).toBeGreaterThan(0);
    for (const answer of failed)
      expect((answer.error as { code: number; data: { code: string } }).code).toBe(
        (answer.error as { data: { code: string } }).data.code === 'auth' ? -32000 : -32603,
      );
  });
});
