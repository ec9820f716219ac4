/*
 * `useChat` over the queue, resumable: examples/queue-chat-node.ts (node:http) and
 * examples/nest-queue-chat.ts (Nest), their turns played by workers (one in this process on the
 * in-process store; a `cli-subprocess-core worker` process on a real Redis) running the real
 * Claude Code against a scripted endpoint, read by the real AI SDK clients of ai 5, 6 and 7
 * (e2e/test/ui-client.ts). A two-turn chat whose second turn needs the first, and a page reloaded
 * mid-answer: the chat stops its request while the answer streams, then a new chat of the same id
 * calls `resumeStream()` (`useChat({ resume: true })`) and gets the whole answer.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueueChatAppModule } from '../../examples/nest-queue-chat';
import { QueueChats } from '../../examples/queue-chat';
import { createChatHandler } from '../../examples/queue-chat-node';
import { createWorker, openRunStore, type SessionJob, type SessionStore, type UIVersion } from '../../src';
import { startApp } from '../../test/nest/start-app';
import { chatCallKind } from '../scripted/openai-chat';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { eventually } from '../../test/wait-for';
import { startRedis, type RedisServer } from './redis-server';
import { cliProcesses } from './harness';
import { runClient, textOf } from './ui-client';
import { startWorker, type WorkerProcess } from './worker-process';

jest.setTimeout(240_000);

const VERSIONS: UIVersion[] = [5, 6, 7];
const TOKEN = 'queue-chat-token-0123456789';
const HEADERS = { authorization: `Bearer ${TOKEN}` };
/** An answer streamed 4 characters every 150 ms (about 10 s): long enough to leave it mid-way and come back. */
const SLOW = 'This answer streams slowly, piece by piece, from a worker. '.repeat(5);

type Home = 'in process' | 'on Redis with a worker process';
type Example = 'node:http' | 'Nest';

/** Where the turns run: the store the web side opens, and what plays its turns. */
interface Queue {
  readonly store: SessionStore;
  /** The process whose children the CLIs are: this one, or the worker process. */
  readonly runner: number;
  close(): Promise<void>;
}

async function openQueue(home: Home, redis: RedisServer | null): Promise<Queue> {
  if (home === 'in process') {
    const store = openRunStore();
    const worker = createWorker(store);
    return { store, runner: process.pid, close: () => worker.close().then(() => store.close()) };
  }
  const worker: WorkerProcess = await startWorker(redis!.url, { args: ['--concurrency', '2'] });
  const store = openRunStore({ redis: redis!.url });
  return {
    store,
    runner: worker.pid,
    close: async () => {
      await store.close();
      worker.child.kill('SIGTERM');
      await worker.exited;
    },
  };
}

/** The example `example` serving the chat of `job` on `store` for clients of ai `version`: its `/api/chat` URL. */
async function serve(
  example: Example,
  store: SessionStore,
  job: SessionJob,
  version: UIVersion,
): Promise<{ api: string; close(): Promise<void> }> {
  if (example === 'Nest') {
    const app: INestApplication = await startApp({ imports: [QueueChatAppModule.forStore(store, job, version, { token: TOKEN })] });
    await app.listen(0, '127.0.0.1');
    return { api: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/api/chat`, close: () => app.close() };
  }
  const handler = createChatHandler(new QueueChats(store, job), { access: { token: TOKEN }, uiVersion: version });
  const server: Server = createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function jobOf(cli: ScriptedCli): SessionJob {
  // Claude retries API errors for minutes by default.
  return { provider: 'claude', cwd: cli.cwd, executable: cli.executable, env: { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1' } };
}

/** What the agent sent the model, call by call (not side calls: titles, summaries). */
const modelCalls = (cli: ScriptedCli) =>
  cli.server.requests
    .filter((request) => request.url.includes('/v1/messages') && chatCallKind(request) !== 'side')
    .map((request) => JSON.stringify(request.body));

/**
 * The turns and status of the sessions not closed (the chat's: the earlier tests' are closed), once
 * none is running: on Redis a turn's record says it ended just after its `result` is in the stream.
 */
async function chatSessions(store: SessionStore): Promise<[number, string][]> {
  const open = async () => (await store.listRuns('default', { kind: 'session' })).filter((session) => session.status !== 'closed');
  await eventually('the turn recorded as ended', async () => (await open()).every((session) => session.status !== 'running'));
  return (await open()).map((session) => [session.turns, session.status]);
}

const HOMES: Home[] = ['in process', 'on Redis with a worker process'];
const EXAMPLES: Example[] = ['node:http', 'Nest'];

describe.each(HOMES)('useChat over the queue, %s', (home) => {
  let redis: RedisServer | null = null;
  let queue: Queue;
  beforeAll(async () => {
    if (home !== 'in process') redis = await startRedis();
    queue = await openQueue(home, redis);
  });
  afterAll(async () => {
    await queue?.close();
    await redis?.stop();
  });

  let cli: ScriptedCli | undefined;
  let server: { api: string; close(): Promise<void> } | undefined;
  afterEach(async () => {
    await server?.close();
    // Every chat's session closed and its CLI gone before its HOME is removed (on Redis a session with
    // no turn running is complete at once, while its worker is still closing its CLI).
    for (const session of await queue.store.listRuns('default', { kind: 'session', limit: 100 })) {
      await queue.store.closeSession(session.id);
      await eventually('the session closed', () => queue.store.isComplete(session.id), 60_000);
    }
    const running = cli;
    if (running) await eventually('its CLIs gone', () => cliProcesses(running, [queue.runner]).length === 0, 60_000);
    await cli?.close();
    server = cli = undefined;
  });

  describe.each(EXAMPLES)('the %s example', (example) => {
    it.each(VERSIONS)('ai %i: a two-turn chat whose second turn needs the first', async (version) => {
      cli = await startScriptedCli('claude', [{ text: 'I will remember PELICAN.' }, { text: 'The word was PELICAN.' }]);
      server = await serve(example, queue.store, jobOf(cli), version);
      const [chat] = await runClient(version, [
        { name: 'two turns', api: server.api, headers: HEADERS, prompts: ['Remember the word PELICAN.', 'What was the word?'] },
      ]);
      expect(chat.invalid).toBeNull();
      expect(chat.turns).toEqual([0, 1].map(() => ({ status: 'ready', error: null })));
      expect(chat.messages.map((message) => [message.role, textOf(message.parts, 'text')])).toEqual([
        ['user', 'Remember the word PELICAN.'],
        ['assistant', 'I will remember PELICAN.'],
        ['user', 'What was the word?'],
        ['assistant', 'The word was PELICAN.'],
      ]);
      // The second turn's model call carries the first turn: the same conversation of the CLI.
      const calls = modelCalls(cli);
      expect(calls).toHaveLength(2);
      expect(calls[1]).toContain('Remember the word PELICAN.');
      expect(calls[1]).toContain('I will remember PELICAN.');
      expect(await chatSessions(queue.store)).toEqual([[2, 'idle']]);
    });

    it.each(VERSIONS)('ai %i: a page reloaded mid-answer resumes it and gets the whole answer', async (version) => {
      cli = await startScriptedCli('claude', [{ slowText: SLOW, delayMs: 150 }]);
      server = await serve(example, queue.store, jobOf(cli), version);
      const chatId = `reload-${version}`;
      const [left, resumed] = await runClient(version, [
        // The page's request is aborted once the answer has begun (a reload), then a new page of the same chat resumes.
        { name: 'left', api: server.api, headers: HEADERS, chatId, prompts: ['Answer slowly.'], stopAt: 'streams' },
        { name: 'resumed', api: server.api, headers: HEADERS, chatId, resume: true, messagesOf: 'left' },
      ]);
      expect(left.partial).not.toBeNull();
      expect(SLOW.startsWith(left.partial ?? '')).toBe(true);
      expect(left.partial!.length).toBeLessThan(SLOW.length);
      expect(resumed.invalid).toBeNull();
      expect(resumed.turns).toEqual([{ status: 'ready', error: null }]);
      // The page kept the partial answer: the resumed one is the same message (its id), whole.
      expect(resumed.messages.map((message) => [message.role, textOf(message.parts, 'text')])).toEqual([
        ['user', 'Answer slowly.'],
        ['assistant', SLOW],
      ]);
      expect(resumed.messages[1].id).toBe(left.messages[1].id);
      // The turn was never interrupted; now that it has ended, there is nothing to resume.
      expect(await chatSessions(queue.store)).toEqual([[1, 'idle']]);
      expect((await fetch(`${server.api}/${chatId}/stream`, { headers: HEADERS })).status).toBe(204);
    });
  });
});
