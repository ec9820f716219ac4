import type { JsonObject, JsonValue } from '../schema/json';
import { INTERNAL_ERROR, type Dialect, type WireError, type WireMessage } from './dialects';

export {
  CLAUDE_CONTROL,
  CODEX_JSON_RPC,
  JSON_RPC,
  PI_RPC,
  METHOD_NOT_FOUND,
  INTERNAL_ERROR,
  type Dialect,
  type WireError,
  type WireMessage,
} from './dialects';

/** A request the other side refused or failed: its error response. */
export class PeerError extends Error {
  constructor(readonly error: WireError) {
    super(error.message);
  }
}

/** What a request handler returns: the result, a promise of it, or `LATER` (the handler answers with `respond`/`refuse`). */
export const LATER = Symbol('answered later');
export type RequestHandler = (params: JsonObject, id: JsonValue) => JsonValue | Promise<JsonValue> | typeof LATER;
export type NotificationHandler = (params: JsonObject) => void;

/** A request sent: the promise of its result, and its id (the mapping of the answer may need it). */
export type SentRequest = Promise<JsonValue> & { readonly id: JsonValue };

interface Pending {
  readonly resolve: (result: JsonValue) => void;
  readonly reject: (error: PeerError) => void;
}

const ignore = (): void => undefined;

/**
 * One end of a request/response protocol over JSON lines, in one of its dialects (JSON-RPC 2.0,
 * Codex's JSON-RPC without `"jsonrpc"`, Claude's control envelope): the id counter, the pending
 * requests, the handlers of the other side's requests and notifications, and the refusal of a
 * request nobody handles. The transport parses each line once and hands the object to `receive`;
 * the peer writes through `send`. It never throws on a message.
 */
export class JsonLinesPeer {
  private sent = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly requestHandlers = new Map<string, RequestHandler>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();

  constructor(
    readonly dialect: Dialect,
    private readonly send: (message: JsonObject) => void,
  ) {}

  /**
   * Sends a request; the promise resolves with its result and rejects with a `PeerError` when the
   * other side answers an error. A caller that does not wait for the answer may drop the promise:
   * its rejection is never unhandled.
   */
  request(method: string, params: JsonObject = {}): SentRequest {
    const id = this.dialect.id(this.sent++);
    const result = new Promise<JsonValue>((resolve, reject) => this.pending.set(String(id), { resolve, reject }));
    result.catch(ignore);
    this.send(this.dialect.request(id, method, params));
    return Object.assign(result, { id });
  }

  notify(method: string, params?: JsonObject): void {
    this.send(this.dialect.notification(method, params));
  }

  /** Handles the other side's requests of `method` (one handler a method: the last one set). */
  onRequest(method: string, handler: RequestHandler): this {
    this.requestHandlers.set(method, handler);
    return this;
  }

  onNotification(method: string, handler: NotificationHandler): this {
    this.notificationHandlers.set(method, handler);
    return this;
  }

  /** Answers request `id` of the other side (one its handler left for `LATER`). */
  respond(id: JsonValue, result: JsonValue): void {
    this.send(this.dialect.result(id, result));
  }

  refuse(id: JsonValue, error: WireError): void {
    this.send(this.dialect.error(id, error));
  }

  /**
   * Routes one parsed line: an answer settles its request, a request goes to its handler (or is
   * refused: method not found), a notification to its handler. Returns what the line was, so the
   * transport can give the rest (the events) to the mapping.
   */
  receive(message: JsonObject): WireMessage {
    const read = this.dialect.read(message);
    if (read.type === 'response') {
      const pending = this.pending.get(read.id);
      this.pending.delete(read.id);
      if (read.error) pending?.reject(new PeerError(read.error));
      else pending?.resolve(read.result);
    } else if (read.type === 'notification') {
      this.notificationHandlers.get(read.method)?.(read.params);
    } else if (read.type === 'request') {
      this.handle(read.id, read.method, read.params);
    }
    return read;
  }

  private handle(id: JsonValue, method: string, params: JsonObject): void {
    const handler = this.requestHandlers.get(method);
    if (!handler) return this.refuse(id, this.dialect.methodNotFound(method));
    let answer: ReturnType<RequestHandler>;
    try {
      answer = handler(params, id);
    } catch (error) {
      return this.refuse(id, asWireError(error));
    }
    if (answer === LATER) return;
    if (!(answer instanceof Promise)) return this.respond(id, answer);
    answer.then(
      (result) => this.respond(id, result),
      (error: unknown) => this.refuse(id, asWireError(error)),
    );
  }
}

/** A handler's failure as the error response: a `PeerError` as it says, anything else an internal error. */
function asWireError(error: unknown): WireError {
  if (error instanceof PeerError) return error.error;
  return { code: INTERNAL_ERROR, message: error instanceof Error ? error.message : String(error) };
}
