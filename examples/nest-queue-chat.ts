import { Body, Controller, Get, Inject, Module, Param, Post, Res, UseFilters, UseGuards, type DynamicModule } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { pipeSessionTurnToResponse, type AccessOptions, type SessionJob, type SessionStore, type UIVersion } from '../src';
import { AccessGuard, HttpErrorFilter, Principal, RUNS_ACCESS } from '../src/nest';
import { QueueChats } from './queue-chat';

/**
 * A `useChat` back end over the queue from Nest (an example): each chat is a session on the store
 * (in this process, or on Redis with `cli-subprocess-core worker` processes playing the turns).
 * POST /api/chat streams the last user message's turn; GET /api/chat/:id/stream (`useChat({ resume: true })`)
 * replays the chat's running turn from its start, or answers 204. Every route needs the caller's
 * bearer token (AccessGuard); leaving a stream never stops the turn.
 */
export const QUEUE_CHAT = Symbol('queue chat');

export interface QueueChatSetup {
  readonly chats: QueueChats;
  /** The `ai` major version of the client (5, 6 or 7). */
  readonly uiVersion: UIVersion;
}

@Controller('api/chat')
@UseGuards(AccessGuard)
@UseFilters(HttpErrorFilter)
export class QueueChatController {
  constructor(@Inject(QUEUE_CHAT) private readonly chat: QueueChatSetup) {}

  @Post()
  async send(@Principal() principal: string, @Body() body: Record<string, unknown>, @Res() res: ServerResponse): Promise<void> {
    const { sessionId, turn } = await this.chat.chats.send(principal, body);
    await pipeSessionTurnToResponse(res, this.chat.chats.store, sessionId, turn, { uiVersion: this.chat.uiVersion });
  }

  @Get(':id/stream')
  async resume(@Principal() principal: string, @Param('id') chatId: string, @Res() res: ServerResponse): Promise<void> {
    const active = await this.chat.chats.active(principal, chatId);
    if (!active) return void res.writeHead(204, { 'cache-control': 'no-store' }).end();
    await pipeSessionTurnToResponse(res, this.chat.chats.store, active.sessionId, active.turn, { uiVersion: this.chat.uiVersion });
  }
}

@Module({})
export class QueueChatAppModule {
  /** The chat over sessions of `job` on `store`, for the callers `access` lets in (`{ token: process.env.CHAT_TOKEN }`). */
  static forStore(store: SessionStore, job: SessionJob, uiVersion: UIVersion, access: AccessOptions): DynamicModule {
    return {
      module: QueueChatAppModule,
      controllers: [QueueChatController],
      providers: [
        { provide: QUEUE_CHAT, useValue: { chats: new QueueChats(store, job), uiVersion } },
        { provide: RUNS_ACCESS, useValue: access },
      ],
    };
  }
}
