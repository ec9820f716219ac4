import { arr, errorDraft, obj, str } from '../providers/drafts';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import { usageDraft } from '../providers/usage';
import type { JsonObject } from '../schema/json';
import { noteTime, titleOf, type StoredFormat, type StoredSummary } from './stored-format';

/*
 * Copilot CLI's sessions, `<COPILOT_HOME or ~/.copilot>/session-state/<session id>/events.jsonl`
 * (read from stores of 1.0.102; a `--resume` appends to the same file). Each line a session event
 * `{type, data, id, timestamp, parentId}`, the events `copilot -p --output-format json` prints,
 * less the ephemeral ones (deltas, `session.tools_updated`…): `session.start` (`sessionId`,
 * `context.cwd`, `selectedModel`, `copilotVersion`), `session.resume`, `user.message` (`content`;
 * `transformedContent` is what the model got), `assistant.message` (`content`, `toolRequests`,
 * `model`), `assistant.reasoning`, `tool.execution_start`/`_complete` (`toolCallId`, `success`,
 * `result.content`), `session.usage_record` (one model request's `usage`), `assistant.turn_*`,
 * `session.shutdown` (the process's totals), `system.message` (the system prompt). Beside it,
 * `workspace.yaml` holds the session's `name` (the first prompt unless the user named it), not
 * read here: the title is the first prompt.
 */

interface EventsState {
  started: boolean;
}

function decode(line: JsonObject, state: EventsState): EventDraft[] {
  const data = obj(line.data);
  if (!data) return [];
  switch (line.type) {
    case 'session.start': {
      if (state.started) return [];
      state.started = true;
      const metadata: JsonObject = {};
      for (const [from, to] of [
        ['copilotVersion', 'version'],
        ['producer', 'producer'],
        ['selectedModel', 'model'],
      ] as const)
        if (data[from] !== undefined) metadata[to] = data[from];
      return [{ kind: 'run_started', payload: { provider_session_id: str(data.sessionId), cwd: str(obj(data.context)?.cwd), metadata } }];
    }
    case 'user.message': {
      const text = str(data.content);
      return text === null
        ? []
        : [{ kind: 'user_message', payload: { content: [{ type: 'text', text }], metadata: idOf(data, 'messageId') } }];
    }
    case 'assistant.reasoning': {
      const text = str(data.content);
      return text === null ? [] : [{ kind: 'thinking', payload: { content: text, metadata: idOf(data, 'reasoningId') } }];
    }
    case 'assistant.message':
      return assistantMessage(data);
    case 'tool.execution_complete': {
      const result = obj(data.result);
      const error = obj(data.error);
      const content = result?.content ?? str(error?.message) ?? null;
      return [
        { kind: 'tool_result', payload: { tool_call_id: str(data.toolCallId), content, is_error: data.success === false, metadata: {} } },
      ];
    }
    case 'session.usage_record': {
      const usage = obj(data.usage);
      if (!usage) return [];
      // One model request's usage (a bring-your-own-key provider's `cost` is not a price: none is reported).
      return [
        usageDraft(
          {
            input_tokens: usage.inputTokens,
            output_tokens: usage.outputTokens,
            cache_read_input_tokens: usage.cacheReadTokens,
            cache_write_input_tokens: usage.cacheWriteTokens,
            reasoning_output_tokens: usage.reasoningTokens,
          },
          'delta',
          { native_usage: usage },
        ),
      ];
    }
    case 'session.error': {
      const message = str(data.message) ?? 'session error';
      return [errorDraft(message, 'error', 'execution', typeof data.errorType === 'string' ? { native_code: data.errorType } : {})];
    }
    default:
      // tool.execution_start (the assistant message's tool requests again), turns, resume, shutdown, system prompt: raw.
      return [];
  }
}

function idOf(data: JsonObject, key: string): JsonObject {
  return typeof data[key] === 'string' ? { message_id: data[key] } : {};
}

function assistantMessage(data: JsonObject): EventDraft[] {
  const drafts: EventDraft[] = [];
  const metadata = idOf(data, 'messageId');
  const reasoning = str(data.reasoningText);
  if (reasoning) drafts.push({ kind: 'thinking', payload: { content: reasoning, metadata } });
  const text = str(data.content);
  if (text) drafts.push({ kind: 'assistant_message', payload: { content: [{ type: 'text', text }], model: str(data.model), metadata } });
  for (const value of arr(data.toolRequests)) {
    const request = obj(value);
    if (!request) continue;
    const input = obj(request.arguments) ?? (request.arguments === undefined ? {} : { arguments: request.arguments });
    drafts.push({ kind: 'tool_use', payload: { tool_name: str(request.name), tool_call_id: str(request.toolCallId), input, metadata } });
  }
  return drafts;
}

const profile: ProviderProfile<EventsState> = {
  id: 'copilot',
  detect: (line) => line.type === 'session.start' && typeof obj(line.data)?.sessionId === 'string',
  newState: () => ({ started: false }),
  sessionId: (line) => (line.type === 'session.start' ? str(obj(line.data)?.sessionId) : null),
  timestamp: (line) => str(line.timestamp),
  decode,
};

function summarize(line: JsonObject, into: StoredSummary): void {
  noteTime(line.timestamp, into);
  const data = obj(line.data);
  if (!data) return;
  switch (line.type) {
    case 'session.start':
    case 'session.resume':
      into.id ??= str(data.sessionId);
      into.cwd ??= str(obj(data.context)?.cwd);
      into.model = str(data.selectedModel) ?? into.model;
      noteTime(data.startTime, into);
      break;
    case 'session.model_change':
      into.model = str(data.newModel) ?? into.model;
      break;
    case 'assistant.message':
      into.model = str(data.model) ?? into.model;
      break;
    case 'user.message': {
      const text = str(data.content);
      if (into.title === null && text !== null) into.title = titleOf(text);
      break;
    }
  }
}

/** Copilot CLI's session events format. */
export const copilotEvents: StoredFormat = { profile, summarize };
