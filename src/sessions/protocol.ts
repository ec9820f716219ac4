import type { ProviderProfile } from '../providers/profile';
import type { JsonObject } from '../schema/json';
import type { ApprovalAnswer, SessionOptions, SessionProvider } from './types';

/** What a protocol may ask of the session that runs it. */
export interface ProtocolHost {
  /** Writes one message to the CLI's stdin, as one JSON line (nothing once the input is closed). */
  write(message: JsonObject): void;
  /** The CLI refused the handshake (or the protocol cannot go on): the session ends with this error. */
  fail(message: string): void;
}

/**
 * One interactive protocol (Claude's stream-json control protocol, Codex's app-server, the Agent
 * Client Protocol), written once; each CLI adds only its command line and quirks (`clis.ts`). The
 * session owns the process, the turns, the approvals and the ending; a protocol only knows its wire.
 */
export interface SessionProtocol {
  /**
   * Turns the CLI's stdout lines into event drafts (the session's decoder adds the envelope). Its
   * state is this protocol's: reading a line may answer it (a request the host has no say in).
   * Every permission request becomes an `approval_requested` whose `approval_id` the protocol can
   * answer with `answer`, and every turn ends in one `result` (an interrupted one `aborted`).
   */
  readonly profile: ProviderProfile;
  /** Writes the opening handshake. */
  open(): void;
  /** Starts a turn (the session starts one at a time); a protocol still in its handshake sends it once ready. */
  prompt(text: string): void;
  /** Answers a permission request; null withdraws it (the turn was interrupted, the session is closing). */
  answer(approvalId: string, answer: ApprovalAnswer | null): void;
  /** Asks the CLI to end the running turn. */
  interrupt(): void;
}

/** Makes a CLI's protocol for one session. */
export type ProtocolFactory = (host: ProtocolHost, cli: SessionProvider, options: SessionOptions) => SessionProtocol;

/** A deny's message when the host gave no reason: what the model is told. */
export const DENIED_BY_HOST = 'The host denied this tool call.';
/** What the model is told of a request withdrawn because the turn was interrupted or the session closed. */
export const WITHDRAWN = 'The request was withdrawn: the turn was interrupted.';
