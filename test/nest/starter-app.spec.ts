import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { Event } from '../../src';
import { requireCompiled } from './starter/compile';
import { startStarterApp } from './start-app';

/*
 * Issue #11: a NestJS 11 app set up as the starter and most Nest apps are (the starter tsconfig,
 * a global ValidationPipe with transform, whitelist and forbidNonWhitelisted, and a global
 * ClassSerializerInterceptor) keeps the wire contract: answers equal JSON.stringify(event),
 * unknown keys stay unknown keys, µs timestamps survive, bad input is a 400.
 */

const { FidelityModule } = requireCompiled<{ FidelityModule: new () => unknown }>(`${__dirname}/starter/app.ts`);

/** An event line with unknown keys at both levels and a µs timestamp. */
const BODY = {
  kind: 'tool_use',
  provider: 'claude',
  timestamp: '2026-03-19T00:00:00.123456Z',
  payload: { tool_name: ' shell ', tool_call_id: 'toolu_01', input: { cmd: 'ls' }, server: 'builtin' },
  trace_id: 'abc-123',
};

/** What the library writes for a body: JSON.parse(JSON.stringify(Event.parse(body))), the id aside. */
function wireOf(body: object, id: number): unknown {
  return JSON.parse(JSON.stringify(Event.parse({ ...body, id })));
}

describe('a Nest 11 app configured like the starter', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await startStarterApp({ imports: [FidelityModule] });
  });
  afterAll(() => app.close());

  const post = (path: string, body: object) => request(app.getHttpServer()).post(path).send(body);

  it('@EventBody(): unknown keys kept, µs timestamp kept, the answer is JSON.stringify(event)', async () => {
    const res = await post('/events', BODY).expect(201);
    expect(res.body).toStrictEqual(wireOf(BODY, res.body.id));
    expect(res.body.timestamp).toBe('2026-03-19T00:00:00.123456Z');
    expect(res.body.trace_id).toBe('abc-123');
    expect(res.body.payload.server).toBe('builtin');
    expect(res.body).not.toHaveProperty('extra');
    expect(res.body.payload).not.toHaveProperty('extra');
  });

  it('@EventBody(): invalid input answers 400 with the issues', async () => {
    const res = await post('/events', { kind: 'cost_update', payload: { cost_usd: -1 } }).expect(400);
    expect(res.body).toMatchObject({
      tag: 'invalid_event_payload',
      kind: 'cost_update',
      issues: [{ code: 'too_small', path: ['payload', 'cost_usd'] }],
    });
  });

  it('@PayloadBody(X): unknown keys kept under forbidNonWhitelisted', async () => {
    const res = await post('/tool-use', { tool_name: ' shell ', server: 'builtin' }).expect(201);
    expect(res.body).toStrictEqual({ tool_name: 'shell', tool_call_id: null, input: {}, metadata: {}, server: 'builtin' });
    const bad = await post('/tool-use', { tool_name: 42 }).expect(400);
    expect(bad.body).toMatchObject({ tag: 'invalid_payload', kind: 'tool_use', issues: [{ code: 'invalid_type', path: ['tool_name'] }] });
  });

  it('the serializer writes events and payloads in arrays and wrapped in objects as JSON.stringify does', async () => {
    const res = await post('/wrapped', BODY).expect(201);
    const event = wireOf(BODY, res.body.event.id) as { payload: unknown };
    expect(res.body).toStrictEqual({ event, list: [event, event.payload], nested: { payload: event.payload } });
  });

  it('an incoming "extra" key is an ordinary unknown key, kept as it came (as parse keeps it)', async () => {
    const body = { kind: 'stderr', timestamp: BODY.timestamp, payload: { content: 'x', extra: { server: 'x' } }, extra: 5 };
    const res = await post('/events', body).expect(201);
    const expected = wireOf(body, res.body.id) as Record<string, unknown>;
    expect(expected).toMatchObject({ extra: 5, payload: { extra: { server: 'x' } } });
    // The serializer writes it too (#18): the instance shows an incoming `extra` as an own key.
    expect(res.body).toStrictEqual(expected);
    const text = await post('/events-text', body).expect(201);
    expect(JSON.parse(text.text)).toStrictEqual(wireOf(body, JSON.parse(text.text).id));
  });

  it('@Body(ParseEventPipe) typed AnyEvent: the global pipe sees Object and passes the body on', async () => {
    const res = await post('/pipe-union', BODY).expect(201);
    expect(res.body).toStrictEqual(wireOf(BODY, res.body.id));
  });

  it('@Body(ParseEventPipe) typed Event: the global ValidationPipe runs first and rejects unknown keys', async () => {
    const res = await post('/pipe-class', BODY).expect(400);
    expect(res.body.message).toEqual(expect.arrayContaining(['property trace_id should not exist']));
  });

  it('a payload class as a DTO of the global pipe: forbidNonWhitelisted rejects unknown keys, known fields are read as parse reads them', async () => {
    await post('/dto', { tool_name: 'shell', server: 'x' }).expect(400);
    const res = await post('/dto', { tool_name: ' shell ' }).expect(201);
    expect(res.body).toStrictEqual({ tool_name: 'shell', tool_call_id: null, input: {}, metadata: {} });
  });

  it('a DTO body with "extra" keeps it as an unknown key, never as the unknown keys themselves', async () => {
    // The whitelist allows `extra` (#18): the key is kept and answered as sent, as parse keeps it.
    const res = await post('/dto', { tool_name: 'shell', extra: { server: 'x' } }).expect(201);
    expect(res.body).not.toHaveProperty('server');
    expect(res.body.extra).toStrictEqual({ server: 'x' });
    const scalar = await post('/dto', { tool_name: 'shell', extra: 5 }).expect(201);
    expect(scalar.body).toStrictEqual({ tool_name: 'shell', tool_call_id: null, input: {}, metadata: {}, extra: 5 });
    // The other unknown keys are rejected as without it.
    const other = await post('/dto', { tool_name: 'shell', server: 'x', extra: 5 }).expect(400);
    expect(other.body.message).toEqual(['property server should not exist']);
  });

  it('a SchemaError thrown in a handler (EventParser.fromJSON on a bad line) answers 400 with the issues', async () => {
    const res = await post('/lines', { lines: ['{"kind":"stderr"}', '{"kind":"nope"}'] }).expect(400);
    expect(res.body).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      tag: 'invalid_event',
      issues: [{ code: 'invalid_enum', path: ['kind'] }],
    });
    const json = await post('/lines', { lines: ['not json'] }).expect(400);
    expect(json.body.issues).toEqual([expect.objectContaining({ code: 'json', path: [] })]);
  });

  it('tool data through the serializer is its JSON', async () => {
    const res = await request(app.getHttpServer()).get('/tools').expect(200);
    expect(res.body).toStrictEqual([
      {
        name: 'shell',
        description: 'Runs a command',
        input_schema: { type: 'object' },
        output_schema: null,
        provider_metadata: {},
        origin: 'builtin',
      },
    ]);
  });
});
