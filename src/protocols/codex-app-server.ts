import { arr, obj, str } from '../providers/drafts';
import type { ProviderProfile } from '../providers/profile';
import type { JsonObject, JsonValue } from '../schema/json';
import { CODEX_METHODS, CODEX_NOTIFICATIONS, CODEX_SERVER_REQUESTS, type CodexServerRequest } from '../wire/codex-app-server';
import { CODEX_JSON_RPC, JsonLinesPeer, LATER, PeerError, type RequestHandler } from '../wire/json-lines-peer';
import { appServerProfile, newAppServerState, type AppServerState } from './codex-app-server-events';
import type { ProtocolFactory } from './protocol';

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
} satisfies Record<CodexServerRequest, RequestHandler>;

/** A refused request's error message (what the session's failure says). */
const reason = (error: unknown): string => (error instanceof PeerError ? error.message : String(error));

export const codexAppServer: ProtocolFactory = (host, _cli, options) => {
  const state = newAppServerState();
  const peer = new JsonLinesPeer(CODEX_JSON_RPC, host.write);
  for (const [method, handler] of Object.entries(SERVER_REQUESTS)) peer.onRequest(method, handler);
  /** The thread's id once `thread/start` answered; prompts sent before wait for it. */
  let threadId: string | null = null;
  const waiting: string[] = [];
  /** The running turn's id (from `turn/start`'s answer), for `turn/interrupt`. */
  let turnId: string | null = null;
  let interruptAsked = false;
  /** The model chosen during the session (`setModel`): each later `turn/start` names it. */
  let model: string | null = null;
  // An interrupt asked for a turn that has not started yet holds until that turn is over.
  peer.onNotification(CODEX_NOTIFICATIONS.turnCompleted, () => (interruptAsked = false));

  const startTurn = (text: string): void => {
    turnId = null;
    const params: JsonObject = { threadId: threadId ?? '', input: [{ type: 'text', text, text_elements: [] }] };
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
    for (const text of waiting.splice(0)) startTurn(text);
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
      const method = options.resume ? CODEX_METHODS.threadResume : CODEX_METHODS.threadStart;
      peer.request(method, options.resume ? { ...params, threadId: options.resume } : params).then(threadReady, refused(method));
    },
    prompt(text) {
      if (threadId === null) waiting.push(text);
      else startTurn(text);
    },
    answer(approvalId, answer) {
      state.asked.delete(approvalId);
      // `cancel` declines and ends the turn: what a withdrawn request means.
      const decision =
        answer === null ? 'cancel' : answer.decision === 'deny' ? 'decline' : answer.remember ? 'acceptForSession' : 'accept';
      peer.respond(/^\d+$/.test(approvalId) ? Number(approvalId) : approvalId, { decision });
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
};
