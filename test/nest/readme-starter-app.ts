import { Body, ClassSerializerInterceptor, Controller, type INestApplication, Module, Post, ValidationPipe } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type AnyEvent, ToolUsePayload } from '../../src';
import { CliSubprocessCoreModule, EventBody, EventParser, PayloadBody } from '../../src/nest';

@Controller('runs')
export class RunsController {
  constructor(private readonly events: EventParser) {}

  // One event, parsed by the library: unknown keys and µs timestamps kept; bad input answers 400 with the issues.
  @Post('events')
  receive(@EventBody() event: AnyEvent) {
    return event; // the answer is JSON.stringify(event), also through ClassSerializerInterceptor
  }

  // One payload class, parsed the same way.
  @Post('tool-use')
  toolUse(@PayloadBody(ToolUsePayload) payload: ToolUsePayload) {
    return payload;
  }

  // JSON lines as a CLI printed them: a bad line throws a SchemaError, which the module answers with 400.
  @Post('lines')
  lines(@Body('lines') lines: string[]) {
    return lines.map((line) => this.events.fromJSON(line));
  }
}

@Module({
  // forRoot({ registry }) takes a registry with provider subclasses, e.g. Registry.default.with('tool_use', …).
  imports: [CliSubprocessCoreModule.forRoot({ isGlobal: true })],
  controllers: [RunsController],
})
export class AppModule {}

// In main.ts, the global settings most Nest apps have: the routes above keep the wire contract under both.
export function configure(app: INestApplication): void {
  app.useGlobalPipes(new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true }));
  app.useGlobalInterceptors(new ClassSerializerInterceptor(app.get(Reflector)));
}
