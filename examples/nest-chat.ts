import { BadRequestException, Body, Controller, HttpCode, Inject, Module, NotFoundException, Post, Res, UseGuards, type DynamicModule, type OnModuleDestroy } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { SessionTurns, pipeUIMessageStreamToResponse, startSession, type AccessOptions, type SessionOptions, type UIVersion } from '../src';
import { AccessGuard, Principal, RUNS_ACCESS } from '../src/nest';

/**
 * A `useChat` back end over sessions of a CLI: POST /chat answers the last user message as the next
 * turn of that chat's own session (one per caller and chat id: nobody shares a conversation), in
 * the AI SDK's UI message stream; POST /approvals takes the user's answer to a tool call the CLI
 * asked about in one of the caller's chats. Every route needs the caller's bearer token.
 */
export const CHAT = Symbol('chat');

export interface ChatSetup {
  /** How each chat's session starts: the operator's choice, never the request's. */
  readonly session: SessionOptions;
  /** The `ai` major version of the client (5, 6 or 7): how approvals are sent. */
  readonly uiVersion: UIVersion;
}

interface ChatBody {
  /** The chat's id, which `useChat` sends with every message. */
  id?: unknown;
  messages: { role: string; parts: { type: string; text?: string }[] }[];
}

@Controller()
@UseGuards(AccessGuard)
export class ChatController implements OnModuleDestroy {
  /** Each caller's chats, by caller and chat id. */
  private readonly chats = new Map<string, SessionTurns>();

  constructor(@Inject(CHAT) private readonly chat: ChatSetup) {}

  @Post('chat')
  send(@Principal() principal: string, @Body() body: ChatBody, @Res() res: ServerResponse): Promise<void> {
    if (typeof body.id !== 'string' || body.id === '') throw new BadRequestException('the chat id is required');
    const last = body.messages.filter((message) => message.role === 'user').at(-1);
    const text = (last?.parts ?? []).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
    return pipeUIMessageStreamToResponse(res, this.turnsOf(principal, body.id).send(text), { uiVersion: this.chat.uiVersion });
  }

  @Post('approvals')
  @HttpCode(204)
  approve(@Principal() principal: string, @Body() body: { approval_id: string; decision: 'allow' | 'deny' }): void {
    const answer = { decision: body.decision, reason: body.decision === 'deny' ? 'The user said no.' : undefined };
    // Only the caller's own chats can be answered.
    const mine = [...this.chats].filter(([key]) => key.startsWith(`${principal}\n`));
    if (!mine.some(([, turns]) => turns.session.approve(body.approval_id, answer))) throw new NotFoundException(`no pending approval ${body.approval_id}`);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.chats.values()].map((turns) => turns.session.close()));
  }

  /** The chat's session: started at its first message, forgotten when it ends. */
  private turnsOf(principal: string, chatId: string): SessionTurns {
    const key = `${principal}\n${chatId}`;
    let turns = this.chats.get(key);
    if (!turns) {
      const session = startSession(this.chat.session);
      turns = new SessionTurns(session);
      this.chats.set(key, turns);
      void session.done.then(() => this.chats.delete(key));
    }
    return turns;
  }
}

@Module({})
export class ChatAppModule {
  /** The chat over sessions started with `session`, for the callers `access` lets in (`{ token: process.env.CHAT_TOKEN }`). */
  static forSessions(session: SessionOptions, uiVersion: UIVersion, access: AccessOptions): DynamicModule {
    return {
      module: ChatAppModule,
      controllers: [ChatController],
      providers: [
        { provide: CHAT, useValue: { session, uiVersion } },
        { provide: RUNS_ACCESS, useValue: access },
      ],
    };
  }
}
