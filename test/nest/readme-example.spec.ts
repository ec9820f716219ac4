import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { AppModule } from './readme-app';
import { startApp } from './start-app';

describe("README's NestJS example", () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp({ imports: [AppModule] });
  });
  afterAll(() => app.close());

  it('the recommended setup (readme-starter-app.ts) is shown verbatim in the README', () => {
    const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
    const example = readFileSync(join(__dirname, 'readme-starter-app.ts'), 'utf8')
      .replace("from '../../src/nest'", "from 'cli-subprocess-core/nest'")
      .replace("from '../../src'", "from 'cli-subprocess-core'");
    expect(readme).toContain(example);
  });

  it('POST /runs/events: 201 with the normalized event, 400 with issue paths', async () => {
    const server = app.getHttpServer();
    const ok = await request(server)
      .post('/runs/events')
      .send({ kind: 'stderr', provider: ' codex ', payload: { content: ' warn\n' }, host: 'ci-1' })
      .expect(201);
    expect(ok.body).toMatchObject({ kind: 'stderr', provider: 'codex', payload: { content: ' warn\n', metadata: {} }, host: 'ci-1' });
    const bad = await request(server).post('/runs/events').send({ kind: 'cost_update', payload: { cost_usd: 'lots' } }).expect(400);
    expect(bad.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([['payload', 'cost_usd']]);
  });

  it('POST /runs/tool-use and /runs/tool-use-dto parse the same class', async () => {
    const server = app.getHttpServer();
    const parsed = await request(server).post('/runs/tool-use').send({ tool_name: ' shell ', server: 'builtin' }).expect(201);
    expect(parsed.body).toEqual({ tool_name: 'shell', tool_call_id: null, input: {}, metadata: {}, server: 'builtin' });
    const dto = await request(server).post('/runs/tool-use-dto').send({ tool_name: ' shell ' }).expect(201);
    expect(dto.body).toEqual({ tool_name: 'shell', is_instance: true });
    await request(server).post('/runs/tool-use-dto').send({ tool_name: ['x'] }).expect(400);
  });

  it('POST /runs/lines parses JSON lines with the injected EventParser', async () => {
    const lines = ['{"kind":"thinking","payload":{"content":"hm"}}', '{"kind":"result","payload":{"status":"ok"}}'];
    const res = await request(app.getHttpServer()).post('/runs/lines').send({ lines }).expect(201);
    expect(res.body.map((event: { kind: string }) => event.kind)).toEqual(['thinking', 'result']);
  });
});
