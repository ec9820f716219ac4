// Starts the app of ./app.ts as the NestJS starter's main.ts does (global ValidationPipe and
// ClassSerializerInterceptor), posts three requests, and prints the answers as JSON. test/pack.spec.ts
// builds it, with the starter's tsconfig, against the packed tarball.
import { ClassSerializerInterceptor, ValidationPipe } from '@nestjs/common';
import { NestFactory, Reflector } from '@nestjs/core';
import { request } from 'node:http';
import { FidelityModule } from './app';

function post(url: string, body: unknown): Promise<[number, unknown]> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve([res.statusCode ?? 0, JSON.parse(text)]));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function main(): Promise<void> {
  const app = await NestFactory.create(FidelityModule, { logger: false });
  app.useGlobalPipes(new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true }));
  app.useGlobalInterceptors(new ClassSerializerInterceptor(app.get(Reflector)));
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  const event = {
    id: 7,
    kind: 'tool_use',
    timestamp: '2026-03-19T00:00:00.123456Z',
    payload: { tool_name: ' shell ', server: 'x' },
    trace_id: 't',
  };
  const results = [
    await post(`${url}/events`, event),
    await post(`${url}/tool-use`, { tool_name: 'shell', server: 'x' }),
    await post(`${url}/lines`, { lines: ['{"kind":"nope"}'] }),
  ];
  await app.close();
  let subclass: string;
  try {
    require('./claude-tool-use.payload');
    subclass = 'defined';
  } catch (error) {
    subclass = (error as Error).message;
  }
  process.stdout.write(JSON.stringify({ results, subclass }));
}

void main();
