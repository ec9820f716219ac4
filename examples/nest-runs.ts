import { BadRequestException, Body, Controller, Headers, HttpCode, Inject, Module, NotFoundException, Param, Post, Sse, UseFilters, UseGuards, type DynamicModule, type MessageEvent } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { isOwnedRun, queueRequestedRun, type AccessOptions, type RunPolicy, type RunStore } from '../src';
import { AccessGuard, HttpErrorFilter, Principal, RUNS_ACCESS, runEvents$ } from '../src/nest';

/**
 * Queued runs over HTTP from Nest: the web process queues runs and streams them; workers (this
 * process with an in-process store, or `cli-subprocess-core worker` processes on Redis) run them.
 * Every route needs the caller's bearer token (AccessGuard), and a run is its caller's alone.
 */
export const RUN_STORE = Symbol('run store');

/** The operator's policy: Claude Code only, approvals asked (or denied), never allowed by a request. */
const POLICY: RunPolicy = { allow: { approvals: ['ask', 'deny'] } };

@Controller('runs')
@UseGuards(AccessGuard)
@UseFilters(HttpErrorFilter)
export class RunsController {
  constructor(@Inject(RUN_STORE) private readonly store: RunStore) {}

  // POST /runs { prompt, approvals? } → { id }: Claude Code on a worker; the server, not the request, says where it runs.
  @Post()
  async start(@Principal() principal: string, @Body() body: Record<string, unknown>): Promise<{ id: string }> {
    return { id: await queueRequestedRun(this.store, { ...body, provider: 'claude' }, principal, POLICY) };
  }

  // GET /runs/:id/events: SSE whose ids are the stream's entry ids; a client that reconnects with Last-Event-ID resumes.
  @Sse(':id/events')
  async events(@Principal() principal: string, @Param('id') id: string, @Headers('last-event-id') lastEventId?: string): Promise<Observable<MessageEvent>> {
    await this.own(principal, id);
    return runEvents$(this.store, id, lastEventId);
  }

  @Post(':id/cancel')
  @HttpCode(202)
  async cancel(@Principal() principal: string, @Param('id') id: string): Promise<void> {
    await this.own(principal, id);
    await this.store.cancel(id);
  }

  // POST /runs/:id/approvals/:approvalId { decision: 'allow' | 'deny' }: to the worker holding the run.
  @Post(':id/approvals/:approvalId')
  @HttpCode(202)
  async approve(@Principal() principal: string, @Param('id') id: string, @Param('approvalId') approvalId: string, @Body('decision') decision?: string): Promise<void> {
    await this.own(principal, id);
    if (decision !== 'allow' && decision !== 'deny') throw new BadRequestException("decision must be 'allow' or 'deny'");
    await this.store.approve(id, approvalId, { decision });
  }

  /** Another caller's run is answered as one that does not exist. */
  private async own(principal: string, id: string): Promise<void> {
    if (!(await isOwnedRun(this.store, id, principal))) throw new NotFoundException('no such run');
  }
}

@Module({})
export class RunsAppModule {
  /** The runs API over `store`, for the callers `access` lets in (`{ token: process.env.RUNS_TOKEN }`). */
  static forStore(store: RunStore, access: AccessOptions): DynamicModule {
    return {
      module: RunsAppModule,
      controllers: [RunsController],
      providers: [
        { provide: RUN_STORE, useValue: store },
        { provide: RUNS_ACCESS, useValue: access },
      ],
    };
  }
}
