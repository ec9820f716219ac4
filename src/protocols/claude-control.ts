import { claudeProfile, type ClaudeState } from '../providers/claude';
import type { ProviderProfile } from '../providers/profile';
import type { JsonObject, JsonValue } from '../schema/json';
import { textOnly } from '../wire/prompt-content';
import { CLAUDE_CONTROL, JsonLinesPeer, LATER, PeerError, type RequestHandler } from '../wire/json-lines-peer';
import { DENIED_BY_HOST, WITHDRAWN, type ProtocolFactory } from './protocol';

/*
 * Claude Code's stream-json control protocol (`claude -p --input-format stream-json
 * --output-format stream-json --verbose --permission-prompt-tool stdio`), as the Agent SDK speaks
 * it and as seen on the wire with Claude Code 2.1.328: an `initialize` control request, then each
 * user message a JSON line on stdin; the output is the usual stream-json (one `result` per turn,
 * decoded by the Claude profile); a tool that needs permission arrives as a `control_request`
 * `can_use_tool`, answered by a `control_response`; a `control_request` `interrupt` ends the turn.
 */

/** The control subtypes this client sends, each written once. */
const CONTROL_METHODS = { initialize: 'initialize', interrupt: 'interrupt', setModel: 'set_model' } as const;

/** The control requests of Claude this client answers; hooks and SDK MCP servers are not registered, so any other is refused at once. */
const CLAUDE_REQUESTS = {
  /** Answered by the session (`answer`). */
  can_use_tool: () => LATER,
} satisfies Record<string, RequestHandler>;

/** The Claude profile's state, and whether the session already started (Claude prints `system/init` again at every turn). */
interface ControlState {
  readonly claude: ClaudeState;
  started: boolean;
}

export const claudeControl: ProtocolFactory = (host) => {
  const state: ControlState = { claude: claudeProfile.newState(), started: false };
  const peer = new JsonLinesPeer(CLAUDE_CONTROL, host.write);
  for (const [subtype, handler] of Object.entries(CLAUDE_REQUESTS)) peer.onRequest(subtype, handler);

  const profile: ProviderProfile<ControlState> = {
    id: claudeProfile.id,
    detect: claudeProfile.detect,
    sessionId: claudeProfile.sessionId,
    timestamp: claudeProfile.timestamp,
    newState: () => state,
    decode(line, current) {
      // The session started once: the later `system/init` lines stay raw.
      if (line.type === 'system' && line.subtype === 'init') {
        if (current.started) return [];
        current.started = true;
      }
      return claudeProfile.decode(line, current.claude);
    },
  };

  return {
    profile: profile as ProviderProfile,
    peer,
    open() {
      peer
        .request(CONTROL_METHODS.initialize, { hooks: null })
        .catch((error: unknown) =>
          host.fail(`Claude Code refused the session: ${(error instanceof PeerError && error.message) || 'initialize failed'}`),
        );
    },
    prompt(_content, parts) {
      // Text alone as a string, as ever; with images the Messages API's content blocks, which Claude Code passes on as given.
      const content: JsonValue = textOnly(parts)
        ? parts[0].text
        : parts.map((part): JsonObject =>
            part.type === 'text'
              ? { type: 'text', text: part.text }
              : { type: 'image', source: { type: 'base64', media_type: part.mimeType, data: part.data } },
          );
      host.write({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: '' });
    },
    answer(approvalId, answer) {
      // The request as Claude asked it (the profile keeps each pending one); answered here, so a
      // `control_cancel_request` that crosses the answer withdraws nothing.
      const asked = state.claude.pendingApprovals.get(approvalId);
      state.claude.pendingApprovals.delete(approvalId);
      if (answer?.decision === 'allow') {
        // Claude wants the input back on an allow.
        const allow: JsonObject = { behavior: 'allow', updatedInput: asked?.input ?? {} };
        // The CLI's own "don't ask again" rules for this call.
        if (answer.remember && Array.isArray(asked?.permission_suggestions)) allow.updatedPermissions = asked.permission_suggestions;
        peer.respond(approvalId, allow);
      } else {
        peer.respond(approvalId, { behavior: 'deny', message: answer ? (answer.reason ?? DENIED_BY_HOST) : WITHDRAWN });
      }
    },
    interrupt: () => void peer.request(CONTROL_METHODS.interrupt),
    // Claude Code 2.1.328's `set_model` control request: its next model request names the model.
    setModel: async (model) => void (await peer.request(CONTROL_METHODS.setModel, { model })),
  };
};
