import { Body, Controller, Post } from '@nestjs/common';
import { Event, ToolDescriptor, ToolUsePayload } from '../../../src';

/*
 * Library classes as DTOs of the starter's global ValidationPipe (`@Body()` with a class type),
 * compiled with the starter's tsconfig like ./app.ts. Each route keeps the instance the pipe
 * made in `received`, so the tests can compare it, and the answer, with what `parse` makes of
 * the same body (issue #18).
 */

/** The DTO instances the routes were given, latest last. */
export const received: object[] = [];

@Controller('dto-of')
export class DtoRoutes {
  @Post('tool-use')
  toolUse(@Body() payload: ToolUsePayload) {
    received.push(payload);
    return payload;
  }

  @Post('event')
  event(@Body() event: Event) {
    received.push(event);
    return event;
  }

  @Post('tool')
  tool(@Body() tool: ToolDescriptor) {
    received.push(tool);
    return tool;
  }
}
