import { anyEventOpenApi, eventKindModels } from '../index';
import type { AnyRegistry } from './options';

/** The few `@nestjs/swagger` decorators used here. */
interface Swagger {
  ApiBody(options: { type?: unknown; schema?: unknown }): MethodDecorator;
  ApiExtraModels(...models: unknown[]): MethodDecorator;
}

let swagger: Swagger | null | undefined;

/** `@nestjs/swagger` when the app has it (an optional peer dependency), else null. */
function loadSwagger(): Swagger | null {
  if (swagger === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when the app has it
      swagger = require('@nestjs/swagger') as Swagger;
    } catch {
      swagger = null;
    }
  }
  return swagger;
}

/**
 * Documents a route's body for `@nestjs/swagger`, when it is installed: a custom parameter
 * decorator is invisible to Swagger's own body detection. `type`: one class; otherwise the
 * union of the per-kind event models of `registry`.
 */
export function documentBody(target: object, key: string | symbol | undefined, body: { type?: unknown; registry?: AnyRegistry }): void {
  const api = loadSwagger();
  if (!api || key === undefined) return;
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  if (!descriptor) return;
  if (body.type) {
    api.ApiBody({ type: body.type })(target, key, descriptor);
    return;
  }
  api.ApiExtraModels(...eventKindModels(body.registry))(target, key, descriptor);
  api.ApiBody({ schema: anyEventOpenApi(body.registry) })(target, key, descriptor);
}
