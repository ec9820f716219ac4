import { Controller, type INestApplication, Post, ValidationPipe } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { type AnyEvent, ToolUsePayload } from '../../src';
import { EventBody, PayloadBody } from '../../src/nest';

@Controller()
class BodiesController {
  @Post('event')
  event(@EventBody() event: AnyEvent) {
    return event;
  }

  @Post('payload')
  payload(@PayloadBody(ToolUsePayload) payload: ToolUsePayload) {
    return payload;
  }
}

// Nest runs a global ValidationPipe on custom parameter decorators when validateCustomDecorators is
// set; the library's body decorators type their parameter as Object for pipes, so it still skips them.
describe('@EventBody() / @PayloadBody(X) under ValidationPipe({ validateCustomDecorators: true, whitelist, forbidNonWhitelisted })', () => {
  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [BodiesController] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalPipes(
      new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true, validateCustomDecorators: true }),
    );
    await app.init();
  });
  afterAll(() => app.close());

  it('the body reaches the library with its unknown keys', async () => {
    const server = app.getHttpServer();
    const event = await request(server)
      .post('/event')
      .send({ kind: 'stderr', payload: { content: 'x', hint: 1 }, host: 'ci' })
      .expect(201);
    expect(event.body).toMatchObject({ kind: 'stderr', host: 'ci', payload: { content: 'x', hint: 1 } });
    const payload = await request(server).post('/payload').send({ tool_name: 'shell', server: 'x' }).expect(201);
    expect(payload.body).toStrictEqual({ tool_name: 'shell', tool_call_id: null, input: {}, metadata: {}, server: 'x' });
  });
});
