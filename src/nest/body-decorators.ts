import 'reflect-metadata';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Model, ParseOptions } from '../index';
import { documentBody } from './swagger-body';
import { ParseEventPipe, type ParseEventPipeOptions } from './parse-event.pipe';
import { ParsePayloadPipe, type ParsableClass } from './parse-payload.pipe';

/*
 * Why parameter decorators: Nest runs global pipes before a parameter's own pipes, and a global
 * `ValidationPipe({ whitelist, forbidNonWhitelisted })` given a class-typed `@Body()` strips or
 * rejects the unknown keys the library keeps in `extra` before its pipe ever sees them. The stock
 * ValidationPipe leaves custom parameter decorators alone, and with `validateCustomDecorators: true`
 * it skips parameters typed `Object`, which these parameters are to pipes (see `typedAsObject`), so
 * the body reaches the library's parser as the client sent it.
 */

/**
 * Records the parameter's type as `Object` for pipes (`design:paramtypes`, which TypeScript writes
 * before parameter decorators run): a ValidationPipe validates only class-typed parameters, and
 * the type a handler declares here is what the library's pipe returns, not a DTO to validate.
 */
function typedAsObject(target: object, key: string | symbol | undefined, index: number): void {
  if (key === undefined) return;
  const types: unknown = Reflect.getMetadata('design:paramtypes', target, key);
  if (!Array.isArray(types) || index >= types.length) return;
  const copy = [...types];
  copy[index] = Object;
  Reflect.defineMetadata('design:paramtypes', copy, target, key);
}

/** The raw request body, as a custom parameter (so global ValidationPipes skip it). */
const RequestBody = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext) => ctx.switchToHttp().getRequest<{ body?: unknown }>().body,
);

/**
 * The request body parsed into an `Event` by the library (unknown keys kept in `extra`, invalid
 * input answers 400 with the issues), untouched by a global `ValidationPipe`. Without options it
 * uses the registry of `CliSubprocessCoreModule.forRoot`. With `@nestjs/swagger` installed, the
 * route's body is documented as the union of the fourteen kinds.
 *
 * ```ts
 * @Post('events')
 * receive(@EventBody() event: AnyEvent) { … }
 * ```
 */
export function EventBody(options?: ParseEventPipeOptions): ParameterDecorator {
  const decorate = RequestBody(undefined, options ? new ParseEventPipe(options) : ParseEventPipe);
  return (target, key, index) => {
    decorate(target, key, index);
    typedAsObject(target, key, index);
    documentBody(target, key, { registry: options?.registry });
  };
}

/**
 * The request body parsed into one payload (or tool data) class by the library, untouched by a
 * global `ValidationPipe`; with `@nestjs/swagger` installed, the route's body is documented as that class.
 *
 * ```ts
 * @Post('tool-use')
 * toolUse(@PayloadBody(ToolUsePayload) payload: ToolUsePayload) { … }
 * ```
 */
export function PayloadBody<T extends Model>(payloadClass: ParsableClass<T>, options?: ParseOptions): ParameterDecorator {
  const decorate = RequestBody(undefined, new ParsePayloadPipe(payloadClass, options));
  return (target, key, index) => {
    decorate(target, key, index);
    typedAsObject(target, key, index);
    documentBody(target, key, { type: payloadClass });
  };
}
