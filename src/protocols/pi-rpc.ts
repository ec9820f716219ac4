import type { ProviderProfile } from '../providers/profile';
import { partsText } from '../wire/prompt-content';
import { JsonLinesPeer, LATER, PI_RPC, PeerError, type RequestHandler } from '../wire/json-lines-peer';
import { PI_COMMANDS, PI_UI_REQUESTS, type PiUiRequest } from '../wire/pi-rpc';
import { piRpcProfile } from './pi-rpc-events';
import type { ProtocolFactory } from './protocol';

/*
 * pi's `pi --mode rpc` (0.73.1, measured against a scripted endpoint): commands on stdin, answers
 * and agent events on stdout. There is no handshake: `get_state` is asked first for the session id
 * (no event carries it). A `prompt` starts a turn, which ends with `agent_end`; `abort` ends it with
 * `stopReason: "aborted"`. Approvals are the approval extension's `confirm` dialogs
 * (pi-approval-extension.ts), answered `{confirmed}`; a withdrawn one is `cancelled`, a no.
 */

/** The dialogs this client answers: the approval's confirm, answered by the session (`answer`); any other is cancelled at once. */
const UI_REQUESTS = {
  [PI_UI_REQUESTS.confirm]: () => LATER,
} satisfies Record<PiUiRequest, RequestHandler>;

const reason = (error: unknown): string => (error instanceof PeerError ? error.message : String(error));

export const piRpc: ProtocolFactory = (host) => {
  const peer = new JsonLinesPeer(PI_RPC, host.write);
  for (const [method, handler] of Object.entries(UI_REQUESTS)) peer.onRequest(method, handler);
  return {
    profile: piRpcProfile as ProviderProfile,
    peer,
    open() {
      peer.request(PI_COMMANDS.getState).catch((error: unknown) => host.fail(`pi refused ${PI_COMMANDS.getState}: ${reason(error)}`));
    },
    prompt(_content, parts) {
      // Images apart from the text, as the `prompt` command takes them (`ImageContent`: data, mimeType).
      const images = parts.flatMap((part) => (part.type === 'image' ? [{ type: 'image', data: part.data, mimeType: part.mimeType }] : []));
      // A refusal is also an answer line, which the events mapping reports as an error.
      void peer.request(PI_COMMANDS.prompt, images.length === 0 ? { message: partsText(parts) } : { message: partsText(parts), images });
    },
    answer(approvalId, answer) {
      peer.respond(approvalId, answer === null ? { cancelled: true } : { confirmed: answer.decision === 'allow' });
    },
    interrupt() {
      peer.notify(PI_COMMANDS.abort);
    },
  };
};
