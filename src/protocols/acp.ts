import type { InitializeRequest, LoadSessionRequest, NewSessionRequest, PermissionOption, PromptRequest } from '@agentclientprotocol/sdk';
import { obj, str } from '../providers/drafts';
import type { ProviderProfile } from '../providers/profile';
import type { JsonObject, JsonValue } from '../schema/json';
import { ACP_AGENT_METHODS, ACP_CLIENT_METHODS, ACP_ERRORS, PERMISSION_KINDS } from '../wire/acp';
import { JSON_RPC, JsonLinesPeer, LATER, PeerError } from '../wire/json-lines-peer';
import { acpProfile, newAcpState, type AcpQuirks, type AcpState } from './acp-events';
import { contentText, type PromptContent } from '../wire/prompt-content';
import type { ProtocolFactory } from './protocol';

/*
 * The client side of the Agent Client Protocol, for every ACP agent CLI (`gemini --acp`,
 * `opencode acp`, `qwen --acp`, `copilot --acp`): `initialize`, `session/new` (or `session/load` to
 * resume a session of an earlier process: every one of them offers `loadSession`), a `session/prompt`
 * per turn, `session/request_permission` answered with one of the offered options (chosen by its
 * `kind`: the ids differ per agent), and `session/cancel` to end a turn. The client offers no file
 * system and no terminal, and knows no extension: every other request of the agent is refused (Qwen
 * Code's `craft/drainMidTurnQueue` must be answered, even with an error, or its turn waits).
 */

const reason = (error: unknown): string => (error instanceof PeerError ? error.message : String(error));
/**
 * A refusal's code: `auth` for ACP's "authentication required", which Qwen Code and Copilot CLI answer
 * to `session/new` when they have no credentials (OpenCode to `session/prompt`: acp-events.ts).
 */
const refusalCode = (error: unknown): 'auth' | 'execution' =>
  error instanceof PeerError && error.error.code === ACP_ERRORS.authRequired ? 'auth' : 'execution';

/** An ACP client for one CLI; `quirks` are that CLI's own (clis.ts). */
export function acpClient(quirks: AcpQuirks = {}): ProtocolFactory {
  return (host, cli, options) => {
    const state: AcpState = newAcpState(quirks);
    const peer = new JsonLinesPeer(JSON_RPC, host.write);
    // Answered by the session (`answer`), with one of the options the mapping kept (`AcpState.asked`).
    peer.onRequest(ACP_CLIENT_METHODS.requestPermission, () => LATER);
    /** The session's id once `session/new` answered; prompts sent before wait for it. */
    let sessionId: string | null = null;
    const waiting: (readonly PromptContent[])[] = [];
    /** Whether the agent takes embedded resources (its `initialize` answer's `promptCapabilities.embeddedContext`). */
    let embeddedContext = false;
    /** An interrupt asked before the session existed: the waiting prompt is cancelled once sent. */
    let cancelWaiting = false;

    const cancel = (): void => {
      cancelWaiting = sessionId === null;
      if (sessionId !== null) peer.notify(ACP_AGENT_METHODS.sessionCancel, { sessionId });
    };

    const prompt = (content: readonly PromptContent[]): void => {
      // The blocks as given (ACP's own); an embedded resource as text (or an image) to an agent that takes none.
      const blocks = content.map((block): JsonObject => {
        if (block.type !== 'resource' || embeddedContext) return { ...block } as JsonObject;
        const text = contentText(block);
        const { resource } = block;
        return text !== null
          ? { type: 'text', text }
          : { type: 'image', mimeType: resource.mimeType ?? '', data: 'blob' in resource ? resource.blob : '' };
      });
      const params = { sessionId: sessionId ?? '', prompt: blocks } as unknown as PromptRequest;
      // Its answer ends the turn: the mapping reads it (a failed prompt is a failed turn, not the session's end).
      state.promptRequests.add(String(peer.request(ACP_AGENT_METHODS.sessionPrompt, params as JsonObject).id));
    };

    /** The session is there: the prompts that waited for it go. */
    const sessionReady = (result: JsonValue): void => {
      sessionId = str(obj(result)?.sessionId) ?? options.resume ?? null;
      for (const content of waiting.splice(0)) prompt(content);
      if (cancelWaiting) cancel();
    };

    const startSession = (): void => {
      const cwd = options.cwd ?? process.cwd();
      const resume = options.resume;
      // The host's MCP servers as given (checked by the session: ACP's shapes exactly).
      const mcpServers = [...(options.mcpServers ?? [])] as NewSessionRequest['mcpServers'];
      const params: NewSessionRequest | LoadSessionRequest =
        resume === undefined ? { cwd, mcpServers } : { sessionId: resume, cwd, mcpServers };
      if (resume !== undefined) state.loading = resume;
      const sent = peer.request(resume === undefined ? ACP_AGENT_METHODS.sessionNew : ACP_AGENT_METHODS.sessionLoad, params as JsonObject);
      state.sessionRequests.add(String(sent.id));
      sent.then(sessionReady, (error: unknown) =>
        host.fail(
          `${cli} refused ${resume === undefined ? 'a new session' : `to load session ${resume}`}: ${reason(error)}`,
          refusalCode(error),
        ),
      );
    };

    // Pure: the protocol's state is shared only so the mapping knows which answers start the session and end a turn.
    const profile: ProviderProfile<AcpState> = { ...acpProfile(cli), newState: () => state };

    return {
      profile: profile as ProviderProfile,
      peer,
      open() {
        const params: InitializeRequest = {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: 'cli-subprocess-core', version: '0' },
        };
        peer.request(ACP_AGENT_METHODS.initialize, params as JsonObject).then(
          (result) => {
            embeddedContext =
              quirks.resourcesAsText !== true && obj(obj(obj(result)?.agentCapabilities)?.promptCapabilities)?.embeddedContext === true;
            startSession();
          },
          (error: unknown) => host.fail(`${cli} refused to initialize: ${reason(error)}`, refusalCode(error)),
        );
      },
      prompt(content) {
        if (sessionId === null) waiting.push(content);
        else prompt(content);
      },
      answer(approvalId, answer) {
        const asked = state.asked.get(approvalId);
        state.asked.delete(approvalId);
        const call = asked?.toolCallId ? state.tools.get(asked.toolCallId) : undefined;
        const kinds =
          answer === null
            ? []
            : answer.decision === 'deny'
              ? PERMISSION_KINDS.deny
              : answer.remember
                ? PERMISSION_KINDS.remember
                : PERMISSION_KINDS.allow;
        const chosen = pickOption(asked?.options ?? [], kinds);
        if (call && answer?.decision !== 'allow') call.denied = answer !== null;
        // No option of the kind asked (or a withdrawn request): `cancelled`, which runs nothing.
        const outcome: JsonObject = chosen === null ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: chosen };
        peer.respond(/^\d+$/.test(approvalId) ? Number(approvalId) : approvalId, { outcome });
      },
      interrupt: cancel,
    };
  };
}

/** The id of the first offered option of the first of `kinds` offered; null when none is. */
function pickOption(offered: readonly JsonValue[], kinds: readonly PermissionOption['kind'][]): string | null {
  for (const kind of kinds) {
    for (const option of offered) if (obj(option)?.kind === kind && str(obj(option)?.optionId) !== null) return str(obj(option)?.optionId);
  }
  return null;
}
