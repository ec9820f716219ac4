import { Body, Controller, type INestApplication, Post, ValidationPipe } from '@nestjs/common';
import { wire } from '../wire';
import request from 'supertest';
import { AssistantDeltaPayload, Event, ToolUsePayload } from '../../src';
import { startApp } from './start-app';

// Stock NestJS validation, nothing from this library: if the payload classes' decorators were
// not real class-validator / class-transformer decorators, these DTOs would not validate or trim.
@Controller('dto')
class DtoController {
  @Post('tool-use')
  toolUse(@Body(new ValidationPipe({ transform: true })) body: ToolUsePayload): Record<string, unknown> {
    return { is_instance: body instanceof ToolUsePayload, tool_name: body.tool_name, tool_call_id: body.tool_call_id, input: body.input };
  }

  @Post('delta')
  delta(@Body(new ValidationPipe({ transform: true })) body: AssistantDeltaPayload): Record<string, unknown> {
    return { is_instance: body instanceof AssistantDeltaPayload, content: body.content, index: body.index };
  }

  @Post('strict')
  strict(
    @Body(new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true })) body: ToolUsePayload,
  ): Record<string, unknown> {
    return { tool_name: body.tool_name };
  }

  @Post('event')
  event(@Body(new ValidationPipe({ transform: true })) body: Event): Record<string, unknown> {
    return {
      is_event: body instanceof Event,
      payload_class: body.payload?.constructor.name,
      tool_name: (body.payload as ToolUsePayload).tool_name,
    };
  }

  @Post('whitelist')
  whitelist(@Body(new ValidationPipe({ transform: true, whitelist: true })) body: ToolUsePayload): Record<string, unknown> {
    return { keys: Object.keys(body).sort(), json: wire(body) };
  }
}

describe('payload classes as DTOs behind stock ValidationPipe', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp({ controllers: [DtoController] });
  });
  afterAll(() => app.close());

  it('a good body becomes an instance of the payload class with trimmed strings', async () => {
    const res = await request(app.getHttpServer())
      .post('/dto/tool-use')
      .send({ tool_name: '  shell ', tool_call_id: ' toolu_01 ', input: { cmd: 'ls' } })
      .expect(201);
    expect(res.body).toEqual({ is_instance: true, tool_name: 'shell', tool_call_id: 'toolu_01', input: { cmd: 'ls' } });
  });

  it('text content is not trimmed, as the field convention says', async () => {
    const res = await request(app.getHttpServer()).post('/dto/delta').send({ content: '  hi  ', index: 2 }).expect(201);
    expect(res.body).toEqual({ is_instance: true, content: '  hi  ', index: 2 });
  });

  it('a bad body is a 400 from class-validator naming the field', async () => {
    const res = await request(app.getHttpServer()).post('/dto/tool-use').send({ tool_name: 42 }).expect(400);
    expect(res.body.error).toBe('Bad Request');
    expect(res.body.message).toEqual([expect.stringContaining('tool_name')]);
  });

  it('a negative index is a 400 from class-validator', async () => {
    const res = await request(app.getHttpServer()).post('/dto/delta').send({ index: -1 }).expect(400);
    expect(res.body.message).toEqual([expect.stringContaining('index')]);
  });

  it('whitelist strips unknown keys (they do not reach extra)', async () => {
    const res = await request(app.getHttpServer()).post('/dto/whitelist').send({ tool_name: 'shell', server: 'builtin' }).expect(201);
    // `extra` is an accessor, not an own key: the DTO's own keys are exactly its fields.
    expect(res.body.keys).toEqual(['input', 'metadata', 'tool_call_id', 'tool_name']);
    expect(res.body.json).toEqual({ tool_name: 'shell', tool_call_id: null, input: {}, metadata: {} });
  });

  it('forbidNonWhitelisted rejects unknown keys with a 400', async () => {
    const res = await request(app.getHttpServer()).post('/dto/strict').send({ tool_name: 'shell', server: 'builtin' }).expect(400);
    expect(res.body.message).toEqual(['property server should not exist']);
    await request(app.getHttpServer()).post('/dto/strict').send({ tool_name: ' shell ' }).expect(201, { tool_name: 'shell' });
  });

  it('an Event body validates its nested payload by kind (@Type + @ValidateNested)', async () => {
    const good = await request(app.getHttpServer())
      .post('/dto/event')
      .send({ kind: 'tool_use', payload: { tool_name: ' shell ' } })
      .expect(201);
    expect(good.body).toEqual({ is_event: true, payload_class: 'ToolUsePayload', tool_name: 'shell' });
    const bad = await request(app.getHttpServer())
      .post('/dto/event')
      .send({ kind: 'tool_use', payload: { tool_name: 42 } })
      .expect(400);
    expect(bad.body.message).toEqual([expect.stringContaining('tool_name')]);
  });
});
