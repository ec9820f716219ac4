import { Body, Controller, Get, Header, Module, Post } from '@nestjs/common';
import { type AnyEvent, Event, ToolDescriptor, ToolUsePayload } from '../../../src';
import { CliSubprocessCoreModule, EventBody, EventParser, ParseEventPipe, PayloadBody } from '../../../src/nest';

/*
 * The routes of the NestJS fidelity test (issue #11), compiled with the NestJS 11 starter's
 * tsconfig (./tsconfig.json) and run behind the starter's global ValidationPipe and
 * ClassSerializerInterceptor (see starter-app.spec.ts).
 */
@Controller()
export class FidelityController {
  constructor(private readonly events: EventParser) {}

  /** The recommended way: the library parses the body, the global ValidationPipe leaves it alone. */
  @Post('events')
  receive(@EventBody() event: AnyEvent) {
    return event;
  }

  /** JSON text, which the serializer passes through: unknown keys naming an inherited member (`extra`, `toMap`) included. */
  @Post('events-text')
  @Header('content-type', 'application/json')
  receiveText(@EventBody() event: AnyEvent) {
    return JSON.stringify(event);
  }

  @Post('tool-use')
  toolUse(@PayloadBody(ToolUsePayload) payload: ToolUsePayload) {
    return payload;
  }

  /** Events and payloads in arrays and wrapped in objects, through the serializer. */
  @Post('wrapped')
  wrapped(@EventBody() event: AnyEvent) {
    return { event, list: [event, event.payload], nested: { payload: event.payload } };
  }

  /** `@Body(ParseEventPipe)` typed with the `AnyEvent` union: its metatype is Object, so the global pipe passes it on. */
  @Post('pipe-union')
  pipeUnion(@Body(ParseEventPipe) event: AnyEvent) {
    return event;
  }

  /** `@Body(ParseEventPipe)` typed with the `Event` class: the global ValidationPipe runs first. */
  @Post('pipe-class')
  pipeClass(@Body(ParseEventPipe) event: Event) {
    return event;
  }

  /** The payload class as a DTO of the global ValidationPipe. */
  @Post('dto')
  dto(@Body() payload: ToolUsePayload) {
    return payload;
  }

  /** JSON lines parsed in the handler: a bad line is a SchemaError, answered by the module's filter. */
  @Post('lines')
  lines(@Body('lines') lines: string[]) {
    return lines.map((line) => this.events.fromJSON(line));
  }

  @Get('tools')
  tools() {
    return [ToolDescriptor.create({ name: 'shell', description: 'Runs a command', input_schema: { type: 'object' }, origin: 'builtin' })];
  }
}

@Module({
  imports: [CliSubprocessCoreModule.forRoot({ isGlobal: true })],
  controllers: [FidelityController],
})
export class FidelityModule {}
