import { Body, Controller, Delete, HttpCode, Module, NotFoundException, Param, Post, Sse, type MessageEvent, BadRequestException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Observable } from 'rxjs';
import type { Session } from '../src';
import { CliRunner, CliSubprocessCoreModule } from '../src/nest';

/**
 * Sessions over HTTP: open one, stream its events (SSE), send prompts, answer its approvals,
 * interrupt a turn, close it. The CLI asks before each write; the browser (or any client) answers.
 */
@Controller('sessions')
export class SessionsController {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly runner: CliRunner) {}

  // POST /sessions → { id }: Claude Code in the app's working directory, with the app's environment.
  @Post()
  open(): { id: string } {
    const id = randomUUID();
    const session = this.runner.startSession({ provider: 'claude', approvalTimeoutMs: 120_000 });
    this.sessions.set(id, session);
    void session.done.then(() => this.sessions.delete(id));
    return { id };
  }

  // GET /sessions/:id/events: every event of the session, one Event JSON per message.
  @Sse(':id/events')
  events(@Param('id') id: string): Observable<MessageEvent> {
    return this.runner.sessionEvents$(this.find(id));
  }

  // POST /sessions/:id/prompts { text }: starts a turn (queued behind a running one).
  @Post(':id/prompts')
  @HttpCode(202)
  prompt(@Param('id') id: string, @Body('text') text?: string): void {
    if (typeof text !== 'string' || text.trim() === '') throw new BadRequestException('text is required');
    void this.find(id).send(text).catch(() => undefined); // the turn's outcome is in the event stream
  }

  // POST /sessions/:id/approvals/:approvalId { decision: 'allow' | 'deny', reason? }
  @Post(':id/approvals/:approvalId')
  @HttpCode(204)
  approve(@Param('id') id: string, @Param('approvalId') approvalId: string, @Body() body: { decision?: string; reason?: string }): void {
    if (body.decision !== 'allow' && body.decision !== 'deny') throw new BadRequestException("decision must be 'allow' or 'deny'");
    if (!this.find(id).approve(approvalId, { decision: body.decision, reason: body.reason })) throw new NotFoundException(`no pending approval ${approvalId}`);
  }

  // POST /sessions/:id/interrupt: ends the running turn; the session stays.
  @Post(':id/interrupt')
  @HttpCode(204)
  async interrupt(@Param('id') id: string): Promise<void> {
    await this.find(id).interrupt();
  }

  // DELETE /sessions/:id: ends the session, its CLI and every process it started.
  @Delete(':id')
  @HttpCode(204)
  async close(@Param('id') id: string): Promise<void> {
    await this.find(id).close();
  }

  private find(id: string): Session {
    const session = this.sessions.get(id);
    if (!session) throw new NotFoundException(`no session ${id}`);
    return session;
  }
}

@Module({
  imports: [CliSubprocessCoreModule.forRoot()],
  controllers: [SessionsController],
})
export class SessionsAppModule {}
