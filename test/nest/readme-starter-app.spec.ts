import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { writeFileSync } from 'node:fs';
import request from 'supertest';
import { Event } from '../../src';
import { AppModule, configure } from './readme-starter-app';

/*
 * The recommended setup of docs/nest.md (readme-starter-app.ts), on a real app with
 * the global ValidationPipe and ClassSerializerInterceptor. WRITE_SWAGGER=<file> writes its Swagger
 * document, the source of the excerpts in docs/nest.md.
 */
describe('the recommended NestJS setup', () => {
  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    configure(app);
    await app.init();
  });
  afterAll(() => app.close());

  it('POST /runs/events answers JSON.stringify(event): unknown keys and µs timestamps kept', async () => {
    const body = { kind: 'stderr', timestamp: '2026-03-19T00:00:00.123456Z', payload: { content: ' warn\n', stream: 2 }, host: 'ci-1' };
    const res = await request(app.getHttpServer()).post('/runs/events').send(body).expect(201);
    expect(res.body).toStrictEqual(JSON.parse(JSON.stringify(Event.parse({ ...body, id: res.body.id }))));
    expect(res.body).toMatchObject({ host: 'ci-1', timestamp: '2026-03-19T00:00:00.123456Z', payload: { stream: 2 } });
  });

  it('POST /runs/tool-use keeps unknown keys; bad input answers 400 with the issues', async () => {
    const server = app.getHttpServer();
    const res = await request(server).post('/runs/tool-use').send({ tool_name: ' shell ', server: 'builtin' }).expect(201);
    expect(res.body).toStrictEqual({ tool_name: 'shell', tool_call_id: null, input: {}, metadata: {}, server: 'builtin' });
    const bad = await request(server).post('/runs/tool-use').send({ input: 'ls' }).expect(400);
    expect(bad.body.issues).toEqual([{ code: 'invalid_type', message: expect.any(String), path: ['input'] }]);
  });

  it('POST /runs/lines: a bad line answers 400 with the issues, through the module filter', async () => {
    const res = await request(app.getHttpServer())
      .post('/runs/lines')
      .send({ lines: ['{"kind":"thinking"}', '{"kind":"thinking","payload":{"content":1}}'] })
      .expect(400);
    expect(res.body).toMatchObject({ tag: 'invalid_event_payload', kind: 'thinking', issues: [{ path: ['payload', 'content'] }] });
  });

  it('has a Swagger document with the event union and the payload classes', () => {
    const doc = SwaggerModule.createDocument(app, new DocumentBuilder().setTitle('runs').build());
    if (process.env.WRITE_SWAGGER) writeFileSync(process.env.WRITE_SWAGGER, JSON.stringify(doc, null, 2));
    const body = (doc.paths['/runs/events'].post as any).requestBody.content['application/json'].schema;
    expect(body.discriminator.propertyName).toBe('kind');
    expect(Object.keys(doc.components?.schemas ?? {})).toEqual(expect.arrayContaining(['ToolUseEvent', 'ToolUsePayload', 'StderrPayload']));
  });
});
