import type { AnyEvent } from '../events/event';
import type { ErrorCode } from '../providers/error-codes';
import type { Decoder } from '../decode/decoder';
import type { ProviderProfile } from '../providers/profile';
import type { JsonObject } from '../schema/json';
import { parseLine } from '../wire/json-line';
import type { JsonLinesPeer } from '../wire/json-lines-peer';
import type { CliPromptPart, PromptContent } from '../wire/prompt-content';
import type { ApprovalAnswer, SessionOptions, SessionProvider } from '../sessions/types';

/** What a protocol may ask of the session that runs it. */
export interface ProtocolHost {
  /** Writes one message to the CLI's stdin, as one JSON line (nothing once the input is closed). */
  write(message: JsonObject): void;
  /**
   * The CLI refused the handshake (or the protocol cannot go on): the session ends with this error,
   * of `code` (`execution` unless the CLI said why: `auth` when it is not logged in).
   */
  fail(message: string, code?: ErrorCode): void;
}

/**
 * One interactive protocol (Claude's stream-json control protocol, Codex's app-server, the Agent
 * Client Protocol), written once; each CLI adds only its command line and quirks (`clis.ts`). The
 * session owns the process, the turns, the approvals and the ending; a protocol only knows its wire.
 */
export interface SessionProtocol {
  /**
   * Turns the CLI's stdout lines into event drafts (the session's decoder adds the envelope): a pure
   * mapping, which writes nothing (the peer answers). Every permission request becomes an
   * `approval_requested` whose `approval_id` the protocol can answer with `answer`, and every turn
   * ends in one `result` (an interrupted one `aborted`).
   */
  readonly profile: ProviderProfile;
  /** The protocol's end of the wire: each line goes here first (answers to our requests, the CLI's requests). */
  readonly peer: JsonLinesPeer;
  /** Writes the opening handshake. */
  open(): void;
  /**
   * Starts a turn (the session starts one at a time); a protocol still in its handshake sends it
   * once ready. `content` is the prompt's checked blocks (as given: the ACP CLIs take them so),
   * `parts` the same as text and images, already checked against the CLI's `imageTypes`.
   */
  prompt(content: readonly PromptContent[], parts: readonly CliPromptPart[]): void;
  /** Answers a permission request; null withdraws it (the turn was interrupted, the session is closing). */
  answer(approvalId: string, answer: ApprovalAnswer | null): void;
  /** Asks the CLI to end the running turn. */
  interrupt(): void;
  /**
   * Switches the model from the next turn, in this process (only a protocol whose CLI's registry
   * entry says `models.switchesRunning`); resolves once the CLI took it, rejects when it refused.
   */
  setModel?(model: string): Promise<void>;
  /** The models the CLI lists, where its protocol can ask (Codex's `model/list`). */
  listModels?(): Promise<CliModel[]>;
}

/** A model a CLI lists. */
export interface CliModel {
  /** What the CLI takes as its model. */
  readonly id: string;
  /** Its name for people. */
  readonly name: string;
  readonly description?: string;
  /** The CLI said it is its session's model now (an ACP CLI's `currentModelId` or model option's `currentValue`). */
  readonly current?: boolean;
}

/** Makes a CLI's protocol for one session. */
export type ProtocolFactory = (host: ProtocolHost, cli: SessionProvider, options: SessionOptions) => SessionProtocol;

/** A deny's message when the host gave no reason: what the model is told. */
export const DENIED_BY_HOST = 'The host denied this tool call.';
/** What the model is told of a request withdrawn because the turn was interrupted or the session closed. */
export const WITHDRAWN = 'The request was withdrawn: the turn was interrupted.';

/**
 * One stdout line of the CLI: parsed once, routed by the protocol's peer (an answer settles our
 * request, a request the protocol does not handle is refused), then mapped to events by the
 * decoder. The session and the capture replays read lines through here.
 */
export function readLine(protocol: SessionProtocol, decoder: Decoder, line: string): AnyEvent[] {
  const value = parseLine(line);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) protocol.peer.receive(value);
  return decoder.pushParsed(value, line);
}
