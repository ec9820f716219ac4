import { finishDrafts, obj, str } from '../providers/drafts';
import { piProfile, type PiState } from '../providers/pi';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import type { JsonObject } from '../schema/json';
import { PI_APPROVAL_TITLE, PI_COMMANDS, PI_UI_REQUESTS } from '../wire/pi-rpc';

/*
 * What pi's `--mode rpc` lines mean: its agent events are those of `--mode json` (the pi decoder
 * profile reads them); besides them come the answers to our commands and the extensions' UI
 * requests. No event names the session: the answer to `get_state` (asked at the start) does, and
 * announces the run. The approval extension's `confirm` is a permission request.
 */

/** The `data` of `get_state`'s answer: the session. */
function stateAnswer(line: JsonObject): EventDraft[] {
  const data = obj(line.data);
  if (line.command !== PI_COMMANDS.getState || line.success !== true || !data) return [];
  const model = obj(data.model);
  return [
    {
      kind: 'run_started',
      payload: {
        provider_session_id: str(data.sessionId),
        metadata: { session_file: data.sessionFile ?? null, model: model?.id ?? null, provider: model?.provider ?? null },
      },
    },
  ];
}

/**
 * pi's refusals for want of credentials (0.73.1's dist/core/auth-guidance.js and agent-session.js):
 * no key for the model's provider (the prompt is refused before any request), no model at all with
 * one, or an OAuth login that no longer works.
 */
const NOT_LOGGED_IN = /^(No API key found for|No models available\.|Authentication failed for)/;

/** A refused command is an error (`auth` for want of credentials); a refused prompt also ends its turn, which never started. */
function refused(line: JsonObject): EventDraft[] {
  if (line.success !== false) return [];
  const command = str(line.command);
  const message = str(line.error) ?? `pi refused ${command ?? 'a command'}`;
  const code = NOT_LOGGED_IN.test(message) ? 'auth' : 'execution';
  if (command === PI_COMMANDS.prompt)
    return finishDrafts({ failed: true, errorMessage: message, errorCode: code, errorMetadata: { command } });
  return [{ kind: 'error', payload: { message, severity: 'error', code, metadata: { command } } }];
}

/** The approval extension's `confirm` (its message is the call's JSON); another extension's confirm is asked as it is. */
function uiRequest(line: JsonObject): EventDraft[] {
  if (line.method !== PI_UI_REQUESTS.confirm) return [];
  const details = line.title === PI_APPROVAL_TITLE ? parseDetails(str(line.message)) : null;
  return [
    {
      kind: 'approval_requested',
      payload: {
        approval_id: str(line.id),
        subject: str(details?.toolName) ?? str(line.title),
        details: details ?? { title: line.title ?? null, message: line.message ?? null },
        metadata: { tool_call_id: details?.toolCallId ?? null },
      },
    },
  ];
}

function parseDetails(text: string | null): JsonObject | null {
  try {
    return obj(JSON.parse(text ?? ''));
  } catch {
    return null;
  }
}

/** The events of a pi RPC session. */
export const piRpcProfile: ProviderProfile<PiState> = {
  ...piProfile,
  sessionId: (line) => (line.type === 'response' && line.command === PI_COMMANDS.getState ? str(obj(line.data)?.sessionId) : null),
  decode(line, state) {
    if (line.type === 'response') return [...stateAnswer(line), ...refused(line)];
    if (line.type === 'extension_ui_request') return uiRequest(line);
    return piProfile.decode(line, state);
  },
};
