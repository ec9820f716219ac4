import type { INestApplication } from '@nestjs/common';
import { instanceToPlain } from 'class-transformer';
import request from 'supertest';
import { Event, ToolDescriptor, ToolUsePayload } from '../../src';
import { wire } from '../wire';
import { requireCompiled } from './starter/compile';
import { startStarterApp } from './start-app';

/*
 * Issue #18: under the starter setup (global ValidationPipe with transform, whitelist and
 * forbidNonWhitelisted; global ClassSerializerInterceptor), a library class used as a DTO
 * answered `{"tool_name":"x","extra":5}` with 201 *without* `extra`, while `parse` of the same
 * body keeps `"extra":5`. An incoming key named `extra` is kept as `parse` keeps it on every path:
 * the DTO instance is the instance `parse` makes, and the answer is its JSON. (class-validator's
 * whitelist allows the name `extra`; the keys next to it are stripped or rejected as without it.)
 */

const { FidelityModule } = requireCompiled<{ FidelityModule: new () => unknown }>(`${__dirname}/starter/app.ts`);
const { DtoRoutes, received } = requireCompiled<{ DtoRoutes: new () => unknown; received: object[] }>(`${__dirname}/starter/dto-routes.ts`);

describe('an incoming key named extra under the starter setup (#18)', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await startStarterApp({ imports: [FidelityModule], controllers: [DtoRoutes] });
  });
  afterAll(() => app.close());

  const post = (path: string, body: object) => request(app.getHttpServer()).post(path).send(body);

  /** The DTO instance the last request was given. */
  const lastDto = <T>(): T => received[received.length - 1] as T;

  it.each([
    ['a number', { tool_name: 'x', extra: 5 }],
    ['an object', { extra: { server: 'b' } }],
  ])('an incoming key named extra is kept through a DTO under the starter setup (#18): %s', async (_name, body) => {
    const parsed = ToolUsePayload.parse(body);
    expect(wire(parsed)).toMatchObject({ extra: body.extra });

    // The starter app's own DTO route (`@Body() payload: ToolUsePayload`): the answer is the parsed JSON.
    const res = await post('/dto', body).expect(201);
    expect(res.body).toStrictEqual(wire(parsed));
    expect(res.body.extra).toStrictEqual(body.extra);

    // The DTO instance the pipe made is the instance parse makes.
    const again = await post('/dto-of/tool-use', body).expect(201);
    expect(again.body).toStrictEqual(wire(parsed));
    const dto = lastDto<ToolUsePayload>();
    expect(dto).toBeInstanceOf(ToolUsePayload);
    expect(dto.extra).toStrictEqual(parsed.extra);
    expect(dto.extra).toStrictEqual({ extra: body.extra });
    expect(JSON.stringify(dto)).toBe(JSON.stringify(parsed));
    expect(Object.keys(dto)).toEqual(Object.keys(parsed));
    expect(instanceToPlain(dto)).toStrictEqual(wire(parsed));
  });

  it('@PayloadBody(X) and @EventBody() answer an incoming extra key through the serializer too', async () => {
    const body = { tool_name: 'x', extra: { server: 'b' } };
    const res = await post('/tool-use', body).expect(201);
    expect(res.body).toStrictEqual(wire(ToolUsePayload.parse(body)));
    const line = { kind: 'tool_use', timestamp: '2026-03-19T00:00:00.123456Z', payload: { tool_name: 'x', extra: 5 }, extra: { a: 1 } };
    const event = await post('/events', line).expect(201);
    expect(event.body).toStrictEqual(wire(Event.parse({ ...line, id: event.body.id })));
    expect(event.body).toMatchObject({ extra: { a: 1 }, payload: { extra: 5 } });
  });

  it('Event as a DTO: an extra key of the envelope and of the payload is kept, as Event.parse keeps it', async () => {
    const body = {
      id: 3,
      kind: 'tool_use',
      timestamp: '2026-03-19T00:00:00.123456Z',
      payload: { tool_name: 'x', extra: 5 },
      extra: { server: 'b' },
    };
    const parsed = Event.parse(body);
    const res = await post('/dto-of/event', body).expect(201);
    expect(res.body).toStrictEqual(wire(parsed));
    const dto = lastDto<Event<'tool_use'>>();
    expect(dto).toBeInstanceOf(Event);
    expect(dto.extra).toStrictEqual({ extra: { server: 'b' } });
    expect(dto.payload).toBeInstanceOf(ToolUsePayload);
    expect(dto.payload.extra).toStrictEqual({ extra: 5 });
    expect(JSON.stringify(dto)).toBe(JSON.stringify(parsed));
  });

  it('tool data as a DTO: an extra key is kept, as ToolDescriptor.parse keeps it', async () => {
    const body = { name: 'shell', extra: [1, 2] };
    const parsed = ToolDescriptor.parse(body);
    const res = await post('/dto-of/tool', body).expect(201);
    expect(res.body).toStrictEqual(wire(parsed));
    expect(lastDto<ToolDescriptor>().extra).toStrictEqual({ extra: [1, 2] });
  });

  it('an extra key does not change how the other unknown keys are treated: forbidNonWhitelisted still rejects them', async () => {
    const alone = await post('/dto', { tool_name: 'x', server: 'y' }).expect(400);
    const withExtra = await post('/dto', { tool_name: 'x', server: 'y', extra: 5 }).expect(400);
    expect(withExtra.body.message).toEqual(alone.body.message);
    expect(withExtra.body.message).toEqual(['property server should not exist']);
  });
});
