import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { writeFileSync } from 'node:fs';
import { Event, KINDS, PAYLOAD_CLASSES, ToolDescriptor, ToolUsePayload, eventOpenApiComponents } from '../../src';
import { requireCompiled } from './starter/compile';

const { FidelityModule } = requireCompiled<{ FidelityModule: new () => unknown }>(`${__dirname}/starter/app.ts`);

describe('the Swagger document of an app with @nestjs/swagger', () => {
  let app: INestApplication;
  let doc: OpenAPIObject;
  let schemas: Record<string, any>;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [FidelityModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    doc = SwaggerModule.createDocument(app, new DocumentBuilder().setTitle('runs').build(), { extraModels: [Event, ToolDescriptor] });
    schemas = doc.components?.schemas as Record<string, any>;
    if (process.env.WRITE_SWAGGER) writeFileSync(process.env.WRITE_SWAGGER, JSON.stringify(doc, null, 2));
  });
  afterAll(() => app.close());

  it('every payload class shows its fields, types, nullability, enums and defaults', () => {
    for (const kind of KINDS)
      expect(Object.keys(schemas[PAYLOAD_CLASSES[kind].name].properties)).toEqual(expect.arrayContaining(['metadata']));
    expect(schemas.ToolUsePayload).toMatchObject({
      type: 'object',
      properties: {
        tool_name: { type: 'string', nullable: true, default: null },
        tool_call_id: { type: 'string', nullable: true, default: null },
        input: { type: 'object', nullable: true, default: {} },
        metadata: { type: 'object', nullable: true, default: {} },
      },
    });
    expect(schemas.ErrorPayload.properties.severity).toMatchObject({
      type: 'string',
      enum: ['info', 'warning', 'error', 'fatal', null],
      nullable: true,
      default: 'error',
    });
    expect(schemas.CostUpdatePayload.properties.input_tokens).toMatchObject({ type: 'integer', minimum: 0, default: 0, nullable: true });
    expect(schemas.RunStartedPayload.properties.args).toMatchObject({ type: 'array', items: { type: 'string' }, default: [] });
  });

  it('the Event and the tool classes show their fields; required fields are listed', () => {
    expect(schemas.Event.required).toEqual(['kind']);
    expect(schemas.Event.properties.kind).toMatchObject({ type: 'string', enum: [...KINDS] });
    expect(schemas.Event.properties.raw).toMatchObject({ nullable: true, anyOf: expect.arrayContaining([{ type: 'string' }]) });
    expect(schemas.Event.properties.timestamp).toMatchObject({ nullable: true, anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(schemas.ToolDescriptor.required).toEqual(['name']);
    expect(schemas.ToolDescriptor.properties.name).toMatchObject({ type: 'string', pattern: '\\S' });
  });

  it('an @EventBody() route has the kind-discriminated union as its request body', () => {
    const body = (doc.paths['/events'].post as any).requestBody.content['application/json'].schema;
    expect(body.oneOf).toHaveLength(KINDS.length);
    expect(body.discriminator).toEqual({
      propertyName: 'kind',
      mapping: expect.objectContaining({ tool_use: '#/components/schemas/ToolUseEvent' }),
    });
    expect(schemas.ToolUseEvent.properties.kind).toMatchObject({ enum: ['tool_use'] });
    expect(JSON.stringify(schemas.ToolUseEvent.properties.payload)).toContain('#/components/schemas/ToolUsePayload');
  });

  it('a @PayloadBody(X) route has X as its request body', () => {
    const body = (doc.paths['/tool-use'].post as any).requestBody.content['application/json'].schema;
    expect(body).toEqual({ $ref: '#/components/schemas/ToolUsePayload' });
  });

  it('no JSON Schema 2020-12 keywords leak into the OpenAPI 3.0 document', () => {
    const text = JSON.stringify(doc);
    for (const keyword of ['"$defs"', '"const"', '"if"', '"then"', '"$schema"', '"type":["']) expect(text).not.toContain(keyword);
  });

  it('X.schema({ openapi: "3.0" }) and eventOpenApiComponents() are OpenAPI 3.0 schema objects', () => {
    expect(ToolUsePayload.schema({ openapi: '3.0' })).toMatchObject({
      title: 'ToolUsePayload',
      properties: { tool_name: { type: 'string', nullable: true } },
    });
    const components = eventOpenApiComponents();
    expect(Object.keys(components)).toEqual(expect.arrayContaining(['Event', 'ToolUseEvent', 'ToolUsePayload']));
    expect(JSON.stringify(components)).not.toMatch(/"type":\[|"\$defs"|"const"/);
  });
});
