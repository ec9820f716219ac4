import { Body, Controller, HttpCode, Inject, Module, NotFoundException, Post, Res, type DynamicModule } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { SessionTurns, pipeUIMessageStreamToResponse, type Session, type UIVersion } from '../src';

/**
 * A `useChat` back end over a session of any CLI: POST /chat answers the last user message as the
 * session's next turn, in the AI SDK's UI message stream; POST /approvals takes the user's answer
 * to a tool call the CLI asked about.
 */
export const CHAT = Symbol('chat');

export interface ChatSetup {
  readonly turns: SessionTurns;
  /** The `ai` major version of the client (5, 6 or 7): how approvals are sent. */
  readonly uiVersion: UIVersion;
}

interface ChatBody {
  messages: { role: string; parts: { type: string; text?: string }[] }[];
}

@Controller()
export class ChatController {
  constructor(@Inject(CHAT) private readonly chat: ChatSetup) {}

  @Post('chat')
  send(@Body() body: ChatBody, @Res() res: ServerResponse): Promise<void> {
    const last = body.messages.filter((message) => message.role === 'user').at(-1);
    const text = (last?.parts ?? []).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
    return pipeUIMessageStreamToResponse(res, this.chat.turns.send(text), { uiVersion: this.chat.uiVersion });
  }

  @Post('approvals')
  @HttpCode(204)
  approve(@Body() body: { approval_id: string; decision: 'allow' | 'deny' }): void {
    const answer = { decision: body.decision, reason: body.decision === 'deny' ? 'The user said no.' : undefined };
    if (!this.chat.turns.session.approve(body.approval_id, answer)) throw new NotFoundException(`no pending approval ${body.approval_id}`);
  }
}

@Module({})
export class ChatAppModule {
  /** The chat over `session` (one conversation; an app with many keeps a session per chat id). */
  static forSession(session: Session, uiVersion: UIVersion): DynamicModule {
    return { module: ChatAppModule, controllers: [ChatController], providers: [{ provide: CHAT, useValue: { turns: new SessionTurns(session), uiVersion } }] };
  }
}
