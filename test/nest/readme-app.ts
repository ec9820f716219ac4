import { Body, Controller, Module, Post, ValidationPipe } from '@nestjs/common';
import { type AnyEvent, ToolUsePayload } from '../../src';
import { CliSubprocessCoreModule, EventParser, ParseEventPipe, ParsePayloadPipe } from '../../src/nest';

@Controller('runs')
export class RunsController {
  constructor(private readonly events: EventParser) {}

  // One event: unknown keys kept in `extra`; invalid input answers 400 with the issue paths.
  @Post('events')
  receive(@Body(ParseEventPipe) event: AnyEvent) {
    return event; // JSON.stringify(event) is the wire form
  }

  // One payload class, parsed by the library the same way.
  @Post('tool-use')
  toolUse(@Body(new ParsePayloadPipe(ToolUsePayload)) payload: ToolUsePayload) {
    return payload;
  }

  // The same class as a DTO behind Nest's stock ValidationPipe (class-transformer + class-validator).
  @Post('tool-use-dto')
  toolUseDto(@Body(new ValidationPipe({ transform: true })) payload: ToolUsePayload) {
    return { tool_name: payload.tool_name, is_instance: payload instanceof ToolUsePayload };
  }

  // JSON lines as a CLI printed them, parsed with the module's registry.
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
