import { BadRequestException, Body, Controller, Headers, HttpCode, Inject, Module, Param, Post, Sse, type DynamicModule, type MessageEvent } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { RunStore } from '../src';
import { runEvents$ } from '../src/nest';

/**
 * Queued runs over HTTP from Nest: the web process queues runs and streams them; workers (this
 * process with an in-process store, or `cli-subprocess-core worker` processes on Redis) run them.
 */
export const RUN_STORE = Symbol('run store');

@Controller('runs')
export class RunsController {
  constructor(@Inject(RUN_STORE) private readonly store: RunStore) {}

  // POST /runs { prompt } → { id }: Claude Code on a worker; the server, not the request, says where it runs.
  @Post()
  async start(@Body('prompt') prompt?: string): Promise<{ id: string }> {
    if (typeof prompt !== 'string' || prompt.trim() === '') throw new BadRequestException('prompt is required');
    return { id: await this.store.enqueueRun({ provider: 'claude', prompt }) };
  }

  // GET /runs/:id/events: SSE whose ids are the stream's entry ids; a reconnecting EventSource resumes.
  @Sse(':id/events')
  events(@Param('id') id: string, @Headers('last-event-id') lastEventId?: string): Observable<MessageEvent> {
    return runEvents$(this.store, id, lastEventId);
  }

  @Post(':id/cancel')
  @HttpCode(202)
  async cancel(@Param('id') id: string): Promise<void> {
    await this.store.cancel(id);
  }

  // POST /runs/:id/approvals/:approvalId { decision: 'allow' | 'deny' }: to the worker holding the run.
  @Post(':id/approvals/:approvalId')
  @HttpCode(202)
  async approve(@Param('id') id: string, @Param('approvalId') approvalId: string, @Body('decision') decision?: string): Promise<void> {
    if (decision !== 'allow' && decision !== 'deny') throw new BadRequestException("decision must be 'allow' or 'deny'");
    await this.store.approve(id, approvalId, { decision });
  }
}

@Module({})
export class RunsAppModule {
  static forStore(store: RunStore): DynamicModule {
    return { module: RunsAppModule, controllers: [RunsController], providers: [{ provide: RUN_STORE, useValue: store }] };
  }
}
