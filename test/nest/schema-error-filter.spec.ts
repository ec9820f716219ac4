import { Body, Controller, type INestApplication, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Event } from '../../src';
import { CliSubprocessCoreModule, SchemaErrorFilter } from '../../src/nest';
import { startApp } from './start-app';

@Controller()
class LinesController {
  @Post('line')
  line(@Body('line') line: string) {
    return Event.fromJSON(line);
  }
}

const BAD_LINE = { line: '{"kind":"cost_update","payload":{"cost_usd":-1}}' };

describe('SchemaErrorFilter', () => {
  const apps: INestApplication[] = [];
  afterAll(() => Promise.all(apps.map((app) => app.close())));
  const start = async (...imports: ReturnType<typeof CliSubprocessCoreModule.forRoot>[]) => {
    const app = await startApp({ imports, controllers: [LinesController] });
    apps.push(app);
    return app;
  };

  it('forRoot() installs it: a SchemaError thrown in a handler answers 400 with the issues body of the pipes', async () => {
    const app = await start(CliSubprocessCoreModule.forRoot());
    const res = await request(app.getHttpServer()).post('/line').send(BAD_LINE).expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'invalid_event_payload (cost_update): 1 issue',
      tag: 'invalid_event_payload',
      kind: 'cost_update',
      issues: [{ code: 'too_small', message: expect.any(String), path: ['payload', 'cost_usd'] }],
    });
    await request(app.getHttpServer()).post('/line').send({ line: '{"kind":"stderr"}' }).expect(201);
  });

  it('forRoot({ schemaErrorFilter: false }) leaves it out (Nest answers 500)', async () => {
    const app = await start(CliSubprocessCoreModule.forRoot({ schemaErrorFilter: false }));
    await request(app.getHttpServer()).post('/line').send(BAD_LINE).expect(500);
  });

  it('works on its own with app.useGlobalFilters(new SchemaErrorFilter())', async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [LinesController] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    apps.push(app);
    app.useGlobalFilters(new SchemaErrorFilter());
    await app.init();
    await request(app.getHttpServer()).post('/line').send(BAD_LINE).expect(400);
  });
});
