import { BadRequestException, Controller, type MessageEvent, Module, Query, Sse } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { CliRunner, CliSubprocessCoreModule } from '../src/nest';

@Controller('runs')
export class RunsController {
  constructor(private readonly runner: CliRunner) {}

  // GET /runs/stream?prompt=…: the run's events as server-sent events, one Event JSON per message.
  // Claude Code inherits the app's environment (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, PATH…).
  // A client that disconnects stops the CLI and every process it started. keepRaw 'none': the
  // CLI's native lines are not sent along (each event would carry its line in `raw`).
  @Sse('stream')
  stream(@Query('prompt') prompt?: string): Observable<MessageEvent> {
    if (!prompt?.trim()) throw new BadRequestException('prompt is required');
    return this.runner.events$({ provider: 'claude', prompt, permission: 'accept-edits', keepRaw: 'none' });
  }
}

@Module({
  imports: [CliSubprocessCoreModule.forRoot()],
  controllers: [RunsController],
})
export class SseAppModule {}
