import { Body, Controller, type INestApplication, Post } from '@nestjs/common';
import { wire } from '../wire';
import { expectTypeOf } from 'expect-type';
import request from 'supertest';
import { type AnyEvent, AssistantDeltaPayload, Event, ToolUsePayload } from '../../src';
import { ParseEventPipe, ParsePayloadPipe } from '../../src/nest';
import { startApp } from './start-app';

@Controller()
class EventsController {
  @Post('events')
  receive(@Body(new ParseEventPipe()) event: AnyEvent): Record<string, unknown> {
    // Only a real Event instance with a real payload instance gets through.
    if (!(event instanceof Event)) throw new Error('not an Event');
    return { ...wire(event), payload_class: event.payload.constructor.name };
  }

  @Post('tool-use')
  toolUse(@Body(new ParsePayloadPipe(ToolUsePayload)) payload: ToolUsePayload): Record<string, unknown> {
    return { ...wire(payload), is_instance: payload instanceof ToolUsePayload };
  }

  @Post('delta')
  delta(@Body(new ParsePayloadPipe(AssistantDeltaPayload)) payload: AssistantDeltaPayload): Record<string, unknown> {
    return wire(payload);
  }
}

describe('ParseEventPipe and ParsePayloadPipe in a Nest app', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp({ controllers: [EventsController] });
  });
  afterAll(() => app.close());

  const body = {
    id: 7,
    kind: 'tool_use',
    provider: ' claude ',
    timestamp: '2026-03-19T00:00:00.123456Z',
    payload: { tool_name: ' shell ', input: { cmd: 'ls' }, server: 'builtin' },
    trace_id: 'abc-123',
  };

  it('answers 201 with the normalized event, unknown keys kept at both levels', async () => {
    const res = await request(app.getHttpServer()).post('/events').send(body).expect(201);
    const expected = wire(Event.parse(body));
    expect(res.body).toEqual({ ...expected, payload_class: 'ToolUsePayload' });
    expect(res.body).toMatchObject({
      provider: 'claude',
      timestamp: '2026-03-19T00:00:00.123456Z',
      trace_id: 'abc-123',
      payload: { tool_name: 'shell', tool_call_id: null, input: { cmd: 'ls' }, metadata: {}, server: 'builtin' },
    });
  });

  it('answers 400 with the issues and their paths for an invalid payload', async () => {
    const res = await request(app.getHttpServer())
      .post('/events')
      .send({ kind: 'assistant_delta', payload: { index: -1 } })
      .expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'invalid_event_payload (assistant_delta): 1 issue',
      tag: 'invalid_event_payload',
      kind: 'assistant_delta',
      issues: [{ code: 'too_small', message: 'too small: must be at least 0', path: ['payload', 'index'] }],
    });
  });

  it('answers 400 for envelope problems, listing every issue', async () => {
    const res = await request(app.getHttpServer()).post('/events').send({ kind: 'nope', sequence: 'x' }).expect(400);
    expect(res.body.tag).toBe('invalid_event');
    expect(res.body).not.toHaveProperty('kind');
    expect(res.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual(expect.arrayContaining([['kind'], ['sequence']]));
  });

  it('ParsePayloadPipe gives an instance of the class, trimmed, with unknown keys in extra', async () => {
    const res = await request(app.getHttpServer())
      .post('/tool-use')
      .send({ tool_name: ' grep ', tool_call_id: 'toolu_9', future_field: [1, 2] })
      .expect(201);
    expect(res.body).toEqual({
      tool_name: 'grep',
      tool_call_id: 'toolu_9',
      input: {},
      metadata: {},
      future_field: [1, 2],
      is_instance: true,
    });
  });

  it('ParsePayloadPipe answers 400 with payload-relative paths', async () => {
    const res = await request(app.getHttpServer()).post('/delta').send({ content: 'hi', index: 1.5 }).expect(400);
    expect(res.body).toMatchObject({ statusCode: 400, tag: 'invalid_payload', kind: 'assistant_delta' });
    expect(res.body.issues).toEqual([expect.objectContaining({ code: 'invalid_type', path: ['index'] })]);
  });

  it('a non-object body is a 400, not a crash', async () => {
    const res = await request(app.getHttpServer()).post('/events').set('content-type', 'application/json').send('[1,2]').expect(400);
    expect(res.body.tag).toBe('invalid_event');
    expect(res.body.issues[0].path).toEqual([]);
  });

  it('types: the pipes return the parsed types', () => {
    expectTypeOf(new ParsePayloadPipe(ToolUsePayload).transform).returns.toEqualTypeOf<ToolUsePayload>();
    expectTypeOf(new ParseEventPipe().transform).returns.toEqualTypeOf<AnyEvent>();
    // @ts-expect-error: a class without safeParse is not a payload class
    new ParsePayloadPipe(Date);
  });
});
