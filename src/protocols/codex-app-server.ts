import { arr, obj, str } from '../providers/drafts';
import type { ProviderProfile } from '../providers/profile';
import type { JsonObject, JsonValue } from '../schema/json';
import {
  CODEX_METHODS,
  CODEX_NOTIFICATIONS,
  CODEX_SERVER_REQUESTS,
  isMcpToolApproval,
  type CodexServerRequest,
} from '../wire/codex-app-server';
import { CODEX_JSON_RPC, JsonLinesPeer, LATER, PeerError, type RequestHandler } from '../wire/json-lines-peer';
import { appServerProfile, newAppServerState, type AppServerState } from './codex-app-server-events';
import type { McpServer, SessionOptions } from '../sessions/types';
import type { ProtocolFactory, ProtocolHost } from './protocol';

/*
 * Codex's `codex app-server` (JSON-RPC over stdio, one object a line, no "jsonrpc" field), as seen
 * on the wire with Codex 0.169.0: `initialize`, `initialized`, `thread/start`, then a `turn/start`
 * per prompt; approvals are the server's requests `item/commandExecution/requestApproval` and
 * `item/fileChange/requestApproval`, answered `{decision}`; `turn/interrupt` ends a turn.
 */

/** The server's requests this client answers: the approvals, answered by the session (`answer`); any other is refused at once. */
const SERVER_REQUESTS = {
  [CODEX_SERVER_REQUESTS.commandApproval]: () => LATER,
  [CODEX_SERVER_REQUESTS.fileChangeApproval]: () => LATER,
  // An MCP tool call's approval; a server's own form (no host here to fill it) is declined.
  [CODEX_SERVER_REQUESTS.mcpElicitation]: (params) => (isMcpToolApproval(params) ? LATER : { action: 'decline', content: null }),
} satisfies Record<CodexServerRequest, RequestHandler>;

/** A refused request's error message (what the session's failure says). */
const reason = (error: unknown): string => (error instanceof PeerError ? error.message : String(error));

/** What Codex's registry entry gives its protocol. */
export interface CodexQuirks {
  /** The host's MCP servers (`SessionOptions.mcpServers`, checked) as `config` overrides of `thread/start` and `thread/resume`. */
  readonly mcpConfig: (servers: readonly McpServer[]) => JsonObject;
}

/** Codex's app-server client; `quirks` are from its registry entry (src/clis/codex.ts). */
export const codexAppServer =
  (quirks: CodexQuirks): ProtocolFactory =>
  (host, _cli, options) =>
    appServer(quirks, host, options);

function appServer(quirks: CodexQuirks, host: ProtocolHost, options: SessionOptions): ReturnType<ProtocolFactory> {
  const state = newAppServerState();
  const peer = new JsonLinesPeer(CODEX_JSON_RPC, host.write);
  for (const [method, handler] of Object.entries(SERVER_REQUESTS)) peer.onRequest(method, handler);
  /** The thread's id once `thread/start` answered; prompts sent before wait for it. */
  let threadId: string | null = null;
  const waiting: JsonObject[][] = [];
  /** The running turn's id (from `turn/start`'s answer), for `turn/interrupt`. */
  let turnId: string | null = null;
  let interruptAsked = false;
  /** The model chosen during the session (`setModel`): each later `turn/start` names it. */
  let model: string | null = null;
  // An interrupt asked for a turn that has not started yet holds until that turn is over.
  peer.onNotification(CODEX_NOTIFICATIONS.turnCompleted, () => (interruptAsked = false));

  const startTurn = (input: JsonObject[]): void => {
    turnId = null;
    const params: JsonObject = { threadId: threadId ?? '', input };
    if (model !== null) params.model = model;
    peer.request(CODEX_METHODS.turnStart, params).then(
      (result) => {
        turnId = str(obj(obj(result)?.turn)?.id);
        // An interrupt asked before the turn had an id.
        if (interruptAsked) interruptTurn();
      },
      (error: unknown) => host.fail(`Codex refused the turn: ${reason(error)}`),
    );
  };

  const interruptTurn = (): void => {
    if (threadId === null || turnId === null) return;
    void peer.request(CODEX_METHODS.turnInterrupt, { threadId, turnId });
    // An interrupt alone leaves the turn's commands running (a `sleep 300` outlived it, and the next
    // turn): the thread's background terminals are cleaned with it.
    void peer.request(CODEX_METHODS.cleanBackgroundTerminals, { threadId });
  };

  /** The thread is there: the prompts that waited for it start. */
  const threadReady = (result: JsonValue): void => {
    threadId = str(obj(obj(result)?.thread)?.id);
    for (const input of waiting.splice(0)) startTurn(input);
  };

  // Pure: the protocol's state is shared only to read what the server asked (`asked`), never to write the wire.
  const profile: ProviderProfile<AppServerState> = { ...appServerProfile, newState: () => state };

  return {
    profile: profile as ProviderProfile,
    peer,
    open() {
      const refused = (method: string) => (error: unknown) => host.fail(`Codex refused ${method}: ${reason(error)}`);
      // experimentalApi: `thread/backgroundTerminals/clean` (see `interruptTurn`).
      peer
        .request(CODEX_METHODS.initialize, {
          clientInfo: { name: 'cli-subprocess-core', title: 'cli-subprocess-core', version: '0' },
          capabilities: { experimentalApi: true, requestAttestation: false },
        })
        .catch(refused(CODEX_METHODS.initialize));
      peer.notify(CODEX_METHODS.initialized);
      // `untrusted`: every command asks (with `on-request` a write inside the cwd runs unasked).
      const params: JsonObject = { cwd: options.cwd ?? process.cwd(), approvalPolicy: 'untrusted', sandbox: 'workspace-write' };
      if (options.model) params.model = options.model;
      if (options.mcpServers?.length) params.config = quirks.mcpConfig(options.mcpServers);
      const method = options.resume ? CODEX_METHODS.threadResume : CODEX_METHODS.threadStart;
      peer.request(method, options.resume ? { ...params, threadId: options.resume } : params).then(threadReady, refused(method));
    },
    prompt(_content, parts) {
      // 0.169's `UserInput` items: text, and an image as a data URL (`localImage` wants a file).
      const input = parts.map((part): JsonObject =>
        part.type === 'text'
          ? { type: 'text', text: part.text, text_elements: [] }
          : { type: 'image', url: `data:${part.mimeType};base64,${part.data}` },
      );
      if (threadId === null) waiting.push(input);
      else startTurn(input);
    },
    answer(approvalId, answer) {
      state.asked.delete(approvalId);
      const id = /^\d+$/.test(approvalId) ? Number(approvalId) : approvalId;
      if (state.elicitations.delete(approvalId)) {
        // An elicitation's answer (Codex 0.169: `accept` runs the MCP tool, `decline` refuses it).
        // Remembering it (its `persist` options) is not asked: a remembered allow is a plain one here.
        const action = answer === null ? 'cancel' : answer.decision === 'deny' ? 'decline' : 'accept';
        peer.respond(id, { action, content: action === 'accept' ? {} : null });
        return;
      }
      // `cancel` declines and ends the turn: what a withdrawn request means.
      const decision =
        answer === null ? 'cancel' : answer.decision === 'deny' ? 'decline' : answer.remember ? 'acceptForSession' : 'accept';
      peer.respond(id, { decision });
    },
    interrupt() {
      interruptAsked = true;
      interruptTurn();
    },
    // `turn/start`'s `model` overrides "for this turn and subsequent turns".
    setModel(next) {
      model = next;
      return Promise.resolve();
    },
    async listModels() {
      // One page: the picker's models (hidden ones left out, as Codex's own picker does).
      const listed = arr(obj(await peer.request(CODEX_METHODS.modelList, { limit: 100 }))?.data);
      return listed.flatMap((entry) => {
        const found = obj(entry);
        const id = str(found?.model) ?? str(found?.id);
        if (!found || id === null || found.hidden === true) return [];
        return [
          { id, name: str(found.displayName) ?? id, ...(str(found.description) ? { description: str(found.description) as string } : {}) },
        ];
      });
    },
  };
}
