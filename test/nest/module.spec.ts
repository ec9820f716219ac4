import { Body, Controller, Get, Injectable, type INestApplication, Module, Post } from '@nestjs/common';
import { wire } from '../wire';
import request from 'supertest';
import { type AnyEvent, OptionalTrimmedString, Registry, ToolUsePayload } from '../../src';
import { CliSubprocessCoreModule, EventParser, ParseEventPipe } from '../../src/nest';
import { startApp } from './start-app';

class ClaudeToolUsePayload extends ToolUsePayload {
  @OptionalTrimmedString() server_name!: string | null;
}

@Controller('events')
class EventsController {
  constructor(private readonly parser: EventParser) {}

  /** The pipe is given as a class, so Nest builds it and injects the module's options. */
  @Post()
  receive(@Body(ParseEventPipe) event: AnyEvent): Record<string, unknown> {
    return { ...this.parser.toJSON(event), payload_class: event.payload.constructor.name };
  }

  @Post('line')
  line(@Body() body: { line: string }): Record<string, unknown> {
    const event = this.parser.fromJSON(body.line);
    return { payload_class: event.payload.constructor.name, json: this.parser.toJSON(event) };
  }

  @Get('registry')
  registry(): { isDefault: boolean } {
    return { isDefault: this.parser.registry === Registry.default };
  }
}

const toolUse = { kind: 'tool_use', payload: { tool_name: 'mcp_call', server_name: ' github ' } };

describe('CliSubprocessCoreModule', () => {
  describe('forRoot() with the default registry', () => {
    let app: INestApplication;
    beforeAll(async () => {
      app = await startApp({ imports: [CliSubprocessCoreModule.forRoot()], controllers: [EventsController] });
    });
    afterAll(() => app.close());

    it('injects EventParser with Registry.default', async () => {
      expect(app.get(EventParser).registry).toBe(Registry.default);
      await request(app.getHttpServer()).get('/events/registry').expect(200, { isDefault: true });
    });

    it('parses with the default class; unknown payload keys stay in extra', async () => {
      const res = await request(app.getHttpServer()).post('/events').send(toolUse).expect(201);
      expect(res.body.payload_class).toBe('ToolUsePayload');
      expect(res.body.payload.server_name).toBe(' github '); // kept exactly, not a declared field here
    });

    it('EventParser.safeParse reports issues without throwing', () => {
      const result = app.get(EventParser).safeParse({ kind: 'cost_update', payload: { input_tokens: -3 } });
      expect(result.success).toBe(false);
      if (!result.success) expect(result.error.issues.map((issue) => issue.path)).toEqual([['payload', 'input_tokens']]);
    });
  });

  describe('forRoot({ registry }) with a derived registry', () => {
    const registry = Registry.default.with('tool_use', ClaudeToolUsePayload);
    let app: INestApplication;
    beforeAll(async () => {
      app = await startApp({ imports: [CliSubprocessCoreModule.forRoot({ registry })], controllers: [EventsController] });
    });
    afterAll(() => app.close());

    it('the injected ParseEventPipe parses with the subclass', async () => {
      const res = await request(app.getHttpServer()).post('/events').send(toolUse).expect(201);
      expect(res.body.payload_class).toBe('ClaudeToolUsePayload');
      expect(res.body.payload.server_name).toBe('github'); // a declared, trimmed field now
    });

    it('the injected EventParser parses JSON lines with the subclass', async () => {
      const res = await request(app.getHttpServer())
        .post('/events/line')
        .send({ line: JSON.stringify(toolUse) })
        .expect(201);
      expect(res.body.payload_class).toBe('ClaudeToolUsePayload');
      expect(res.body.json.payload.server_name).toBe('github');
      expect(app.get(EventParser).registry).toBe(registry);
    });
  });

  describe('isGlobal', () => {
    @Injectable()
    class FeatureService {
      constructor(readonly parser: EventParser) {}
    }
    @Module({ providers: [FeatureService] })
    class FeatureModule {}

    it('lets a module that does not import it inject EventParser', async () => {
      const registry = Registry.default.with('tool_use', ClaudeToolUsePayload);
      const app = await startApp({ imports: [CliSubprocessCoreModule.forRoot({ registry, isGlobal: true }), FeatureModule] });
      try {
        expect(app.get(FeatureService).parser.registry).toBe(registry);
      } finally {
        await app.close();
      }
    });

    it('without isGlobal, such a module cannot resolve EventParser', async () => {
      await expect(startApp({ imports: [CliSubprocessCoreModule.forRoot(), FeatureModule] })).rejects.toThrow(/EventParser/);
    });
  });

  it('EventParser and ParseEventPipe work without Nest DI, on Registry.default', () => {
    const parser = new EventParser();
    expect(parser.registry).toBe(Registry.default);
    const event = new ParseEventPipe().transform(toolUse);
    expect(event.payload).toBeInstanceOf(ToolUsePayload);
    expect(parser.toJSON(event)).toEqual(wire(event));
  });
});
