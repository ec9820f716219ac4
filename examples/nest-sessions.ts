import { Body, Controller, Delete, HttpCode, Module, NotFoundException, Param, Post, Sse, UseGuards, type DynamicModule, type MessageEvent, BadRequestException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Observable } from 'rxjs';
import type { AccessOptions, Session } from '../src';
import { AccessGuard, CliRunner, CliSubprocessCoreModule, Principal, RUNS_ACCESS } from '../src/nest';

/**
 * Sessions over HTTP: open one, stream its events (SSE), send prompts, answer its approvals,
 * interrupt a turn, close it. The CLI asks before each write; the browser (or any client) answers.
 * Every route needs the caller's bearer token, and a session is its caller's alone.
 */
@Controller('sessions')
@UseGuards(AccessGuard)
export class SessionsController {
  private readonly sessions = new Map<string, { owner: string; session: Session }>();

  constructor(private readonly runner: CliRunner) {}

  // POST /sessions → { id }: Claude Code in the app's working directory, with the allow-list of its
  // own variables (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL…) rather than the app's secrets, an hour at most.
  @Post()
  open(@Principal() owner: string): { id: string } {
    const id = randomUUID();
    const session = this.runner.startSession({ provider: 'claude', approvalTimeoutMs: 120_000, inheritEnv: false, timeoutMs: 3_600_000 });
    this.sessions.set(id, { owner, session });
    void session.done.then(() => this.sessions.delete(id));
    return { id };
  }

  // GET /sessions/:id/events: every event of the session, one Event JSON per message.
  @Sse(':id/events')
  events(@Principal() owner: string, @Param('id') id: string): Observable<MessageEvent> {
    return this.runner.sessionEvents$(this.find(owner, id));
  }

  // POST /sessions/:id/prompts { text }: starts a turn (queued behind a running one).
  @Post(':id/prompts')
  @HttpCode(202)
  prompt(@Principal() owner: string, @Param('id') id: string, @Body('text') text?: string): void {
    if (typeof text !== 'string' || text.trim() === '') throw new BadRequestException('text is required');
    void this.find(owner, id).send(text).catch(() => undefined); // the turn's outcome is in the event stream
  }

  // POST /sessions/:id/approvals/:approvalId { decision: 'allow' | 'deny', reason? }
  @Post(':id/approvals/:approvalId')
  @HttpCode(204)
  approve(@Principal() owner: string, @Param('id') id: string, @Param('approvalId') approvalId: string, @Body() body: { decision?: string; reason?: string }): void {
    if (body.decision !== 'allow' && body.decision !== 'deny') throw new BadRequestException("decision must be 'allow' or 'deny'");
    if (!this.find(owner, id).approve(approvalId, { decision: body.decision, reason: body.reason })) throw new NotFoundException(`no pending approval ${approvalId}`);
  }

  // POST /sessions/:id/interrupt: ends the running turn; the session stays.
  @Post(':id/interrupt')
  @HttpCode(204)
  async interrupt(@Principal() owner: string, @Param('id') id: string): Promise<void> {
    await this.find(owner, id).interrupt();
  }

  // DELETE /sessions/:id: ends the session, its CLI and every process it started.
  @Delete(':id')
  @HttpCode(204)
  async close(@Principal() owner: string, @Param('id') id: string): Promise<void> {
    await this.find(owner, id).close();
  }

  /** Another caller's session is answered as one that does not exist. */
  private find(owner: string, id: string): Session {
    const found = this.sessions.get(id);
    if (!found || found.owner !== owner) throw new NotFoundException(`no session ${id}`);
    return found.session;
  }
}

@Module({})
export class SessionsAppModule {
  /** The routes, for the callers `access` lets in (`{ token: process.env.SESSIONS_TOKEN }`). */
  static withAccess(access: AccessOptions): DynamicModule {
    return { module: SessionsAppModule, imports: [CliSubprocessCoreModule.forRoot()], controllers: [SessionsController], providers: [{ provide: RUNS_ACCESS, useValue: access }] };
  }
}
