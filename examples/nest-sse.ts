import { BadRequestException, Body, Controller, Module, NotFoundException, Param, Post, Sse, UseGuards, type DynamicModule, type MessageEvent } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Observable } from 'rxjs';
import type { AccessOptions, Run } from '../src';
import { AccessGuard, CliRunner, CliSubprocessCoreModule, Principal, RUNS_ACCESS } from '../src/nest';

@Controller('runs')
@UseGuards(AccessGuard)
export class RunsController {
  /** Runs started and not yet streamed, with the caller each belongs to. */
  private readonly started = new Map<string, { owner: string; run: Run }>();

  constructor(private readonly runner: CliRunner) {}

  // POST /runs { prompt } → { id }: starts Claude Code (a POST: no page of another site can start one).
  // The CLI gets the allow-list of its own variables (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL…), not the
  // app's secrets, and an hour at most. Until its events are read, the run waits for its reader.
  @Post()
  start(@Principal() owner: string, @Body('prompt') prompt?: string): { id: string } {
    if (typeof prompt !== 'string' || prompt.trim() === '' || prompt.includes('\0')) throw new BadRequestException('prompt is required, without NUL bytes');
    const id = randomUUID();
    const run = this.runner.start({ provider: 'claude', prompt, keepRaw: 'none', inheritEnv: false, timeoutMs: 3_600_000 });
    this.started.set(id, { owner, run });
    // A run nobody comes to read is stopped after a minute.
    setTimeout(() => this.started.get(id)?.run === run && (this.started.delete(id), run.abort('its events were never read')), 60_000).unref();
    return { id };
  }

  // GET /runs/:id/events: the run's events as server-sent events, one Event JSON per message, for its
  // caller only. A client that disconnects stops the CLI and every process it started.
  @Sse(':id/events')
  events(@Principal() owner: string, @Param('id') id: string): Observable<MessageEvent> {
    const started = this.started.get(id);
    if (!started || started.owner !== owner) throw new NotFoundException('no such run');
    this.started.delete(id);
    return this.runner.events$(started.run);
  }
}

@Module({})
export class SseAppModule {
  /** The routes, for the callers `access` lets in (`{ token: process.env.RUNS_TOKEN }`). */
  static withAccess(access: AccessOptions): DynamicModule {
    return { module: SseAppModule, imports: [CliSubprocessCoreModule.forRoot()], controllers: [RunsController], providers: [{ provide: RUNS_ACCESS, useValue: access }] };
  }
}
