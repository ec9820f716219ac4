import { activeTurn, HttpError, type SessionJob, type SessionStore } from '../src';

/**
 * What the `useChat`-over-the-queue examples share (examples/queue-chat-node.ts, examples/nest-queue-chat.ts):
 * each caller's chat (the id `useChat` sends) is a session on the store, opened at its first
 * message; each message is a turn, queued for a worker. The chats are kept in this process's memory:
 * an app keeps them with its chat history (its database), so that every web process finds them.
 */
export class QueueChats {
  /** Each caller's sessions, by caller and chat id (nobody shares a conversation). */
  private readonly sessions = new Map<string, Promise<string>>();

  /** `job`: how every chat's session starts (the CLI and its options): the operator's choice, never the request's. */
  constructor(
    readonly store: SessionStore,
    private readonly job: SessionJob,
  ) {}

  /**
   * Queues the last user message of a `useChat` request (`{ id, messages }`) as its chat's next
   * turn: the session and the turn to stream. 400 without a chat id or a text; 409 when the session
   * takes no more (closed, or 10 messages waiting).
   */
  async send(principal: string, body: Record<string, unknown>): Promise<{ sessionId: string; turn: number }> {
    if (typeof body.id !== 'string' || body.id === '') throw new HttpError(400, 'the chat id is required');
    const text = lastUserText(body.messages);
    if (text.trim() === '') throw new HttpError(400, 'the last user message has no text');
    const sessionId = await this.sessionOf(principal, body.id);
    const sent = await this.store.sendMessage(sessionId, text);
    if ('refused' in sent) throw new HttpError(409, `the chat takes no more messages: ${sent.refused}`);
    return { sessionId, turn: sent.turn };
  }

  /** The chat's turn still queued or running (what `useChat`'s resume asks for), or null (204). */
  async active(principal: string, chatId: string): Promise<{ sessionId: string; turn: number } | null> {
    const session = this.sessions.get(`${principal}\n${chatId}`);
    if (!session) return null;
    const sessionId = await session;
    const turn = await activeTurn(this.store, sessionId);
    return turn === null ? null : { sessionId, turn };
  }

  /** The chat's session, opened at its first message (once, however many messages come at once). */
  private sessionOf(principal: string, chatId: string): Promise<string> {
    const key = `${principal}\n${chatId}`;
    let session = this.sessions.get(key);
    if (!session) {
      session = this.store.openSession(this.job, { owner: principal });
      this.sessions.set(key, session);
      session.catch(() => this.sessions.delete(key));
    }
    return session;
  }
}

/** The text of the last user message of a `useChat` request's `messages` (its text parts, joined). */
export function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) throw new HttpError(400, 'messages must be an array');
  const last = (messages as { role?: unknown; parts?: unknown }[]).filter((message) => message?.role === 'user').at(-1);
  const parts = Array.isArray(last?.parts) ? (last.parts as { type?: unknown; text?: unknown }[]) : [];
  return parts.map((part) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}
