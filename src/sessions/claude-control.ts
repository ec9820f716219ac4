import { claudeProfile, type ClaudeState } from '../providers/claude';
import { obj, str } from '../providers/drafts';
import type { ProviderProfile } from '../providers/profile';
import type { JsonObject, JsonValue } from '../schema/json';
import { DENIED_BY_HOST, WITHDRAWN, type ProtocolFactory } from './protocol';

/*
 * Claude Code's stream-json control protocol (`claude -p --input-format stream-json
 * --output-format stream-json --verbose --permission-prompt-tool stdio`), as the Agent SDK speaks
 * it and as seen on the wire with Claude Code 2.1.328: an `initialize` control request, then each
 * user message a JSON line on stdin; the output is the usual stream-json (one `result` per turn,
 * decoded by the Claude profile); a tool that needs permission arrives as a `control_request`
 * `can_use_tool`, answered by a `control_response`; a `control_request` `interrupt` ends the turn.
 */

/** A `can_use_tool` request as the answer needs it: Claude wants the input back on an allow. */
interface ToolRequest {
  readonly input: JsonValue;
  readonly suggestions: JsonValue;
}

interface ControlState {
  readonly claude: ClaudeState;
  readonly requests: Map<string, ToolRequest>;
}

export const claudeControl: ProtocolFactory = (host) => {
  const state: ControlState = { claude: claudeProfile.newState(), requests: new Map() };
  let sent = 0;
  let started = false;
  /** Our own control requests, by id: what each asked for. */
  const ours = new Map<string, string>();

  const request = (subtype: string, fields: JsonObject = {}): void => {
    const id = `host_${++sent}`;
    ours.set(id, subtype);
    host.write({ type: 'control_request', request_id: id, request: { subtype, ...fields } });
  };

  const respond = (requestId: string, response: JsonObject): void => {
    host.write({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } });
  };

  /** What a line asks of the protocol (before the Claude profile maps it). */
  const observe = (line: JsonObject): void => {
    if (line.type === 'control_request') {
      const id = str(line.request_id);
      const body = obj(line.request);
      if (id === null) return;
      if (body?.subtype === 'can_use_tool') state.requests.set(id, { input: body.input ?? {}, suggestions: body.permission_suggestions ?? null });
      // Hooks and SDK MCP servers are not registered by this client: Claude must not wait on an answer.
      else host.write({ type: 'control_response', response: { subtype: 'error', request_id: id, error: `not supported by this client: ${String(body?.subtype)}` } });
    } else if (line.type === 'control_cancel_request') {
      const id = str(line.request_id);
      if (id !== null) state.requests.delete(id);
    } else if (line.type === 'control_response') {
      const response = obj(line.response);
      const id = str(response?.request_id);
      const subtype = id === null ? undefined : ours.get(id);
      if (id !== null) ours.delete(id);
      if (subtype === 'initialize' && response?.subtype === 'error') host.fail(`Claude Code refused the session: ${str(response.error) ?? 'initialize failed'}`);
    }
  };

  const profile: ProviderProfile<ControlState> = {
    id: claudeProfile.id,
    detect: claudeProfile.detect,
    sessionId: claudeProfile.sessionId,
    timestamp: claudeProfile.timestamp,
    newState: () => state,
    decode(line, current) {
      observe(line);
      // Claude prints `system/init` again at every turn: the session started once (the later ones stay raw).
      if (line.type === 'system' && line.subtype === 'init') {
        if (started) return [];
        started = true;
      }
      return claudeProfile.decode(line, current.claude);
    },
  };

  return {
    profile: profile as ProviderProfile,
    open: () => request('initialize', { hooks: null }),
    prompt(text) {
      host.write({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' });
    },
    answer(approvalId, answer) {
      const asked = state.requests.get(approvalId);
      state.requests.delete(approvalId);
      // Answered here: a `control_cancel_request` that crosses the answer withdraws nothing.
      state.claude.pendingApprovals.delete(approvalId);
      if (answer?.decision === 'allow') {
        const allow: JsonObject = { behavior: 'allow', updatedInput: asked?.input ?? {} };
        // The CLI's own "don't ask again" rules for this call.
        if (answer.remember && Array.isArray(asked?.suggestions)) allow.updatedPermissions = asked.suggestions;
        respond(approvalId, allow);
      } else {
        respond(approvalId, { behavior: 'deny', message: answer ? (answer.reason ?? DENIED_BY_HOST) : WITHDRAWN });
      }
    },
    interrupt: () => request('interrupt'),
  };
};
