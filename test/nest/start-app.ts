import { ClassSerializerInterceptor, ValidationPipe, type INestApplication, type ModuleMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Test } from '@nestjs/testing';

/** A real Nest app on the default platform (Express), initialised and ready for supertest; `configure` runs before `init`. */
export async function startApp(metadata: ModuleMetadata, configure?: (app: INestApplication) => void): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule(metadata).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  configure?.(app);
  await app.init();
  return app;
}

/** An app set up as the Nest starter and most Nest apps are: a global ValidationPipe (transform, whitelist, forbidNonWhitelisted) and ClassSerializerInterceptor. */
export function startStarterApp(metadata: ModuleMetadata): Promise<INestApplication> {
  return startApp(metadata, (app) => {
    app.useGlobalPipes(new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true }));
    app.useGlobalInterceptors(new ClassSerializerInterceptor(app.get(Reflector)));
  });
}
