import 'reflect-metadata';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorker, openRunStore, type AnyEvent, type SessionJob, type SessionStore } from '../../src';
import { isLive, readStat } from '../../src/runner/process-table';
import { startRedis, type RedisServer } from '../../e2e/test/redis-server';
import { eventually } from '../wait-for';
import { readAll, REPLAY_AGENT } from './replay-jobs';

/*
 * Sessions on the in-process store: a conversation whose messages are turns queued for a worker,
 * played in order on one CLI kept between turns, closed when idle and resumed at the next message.
 * The CLI is the stand-in replaying real captures (test/sessions/replay-agent.js): Claude Code's
 * two-turn capture (Claude resumes with --resume), Gemini CLI's (it cannot resume).
 */

jest.setTimeout(30_000);

const ROOT = join(__dirname, '..', '..');
const wire = (cli: string, name: string) => join(ROOT, 'test', 'fixtures', 'sessions', cli, `wire-${name}.jsonl`);
/** The session id Claude Code announced in its two-turn capture. */
const CLAUDE_SESSION = '7f37fdad-95f4-4700-aae6-a0c4cbf147c2';

/** The homes of sessions tested: in this process, and on a real redis-server (127.0.0.1, a free port, started here). */
type Home = 'in-process' | 'Redis';
let redis: RedisServer | null = null;
let home: Home = 'in-process';
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

let dir: string;
let stores: SessionStore[];
let workers: { close(): Promise<void> }[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessions-test-'));
  stores = [];
  workers = [];
});
afterEach(async () => {
  for (const worker of workers) await worker.close();
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(dataDir?: string, ttlSeconds?: number): SessionStore {
  const store =
    home === 'Redis'
      ? openRunStore({ redis: redis?.url, lockMs: 2000, ttlSeconds, prefix: `t${Math.random().toString(36).slice(2)}` })
      : openRunStore({ dataDir, ttlSeconds });
  stores.push(store);
  return store;
}

function work(store: SessionStore, idleSeconds?: number): void {
  workers.push(createWorker(store, { idleSeconds, jobDefaults: { workspace: 'shared' } }));
}

function claudeJob(extra: Partial<SessionJob> = {}): SessionJob {
  return {
    provider: 'claude',
    cwd: dir,
    executable: REPLAY_AGENT,
    env: { REPLAY_WIRE: wire('claude', 'two-turns'), REPLAY_PIDS: join(dir, 'pids'), REPLAY_SEEN: join(dir, 'seen') },
    ...extra,
  };
}

const starts = () => (existsSync(join(dir, 'pids')) ? readFileSync(join(dir, 'pids'), 'utf8').trim().split('\n') : []);
const pidsStarted = () => starts().map((line) => Number(line.split(' ')[0]));
/** Whether process `pid` runs (not a zombie). */
function isRunning(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== null && isLive(stat, stat);
}

const resultsOf = (events: AnyEvent[]) => events.filter((event) => event.kind === 'result');

/** The session's events so far (without waiting for more). */
async function eventsOf(store: SessionStore, sessionId: string): Promise<AnyEvent[]> {
  return (await readAll(store.readRunEvents(sessionId, { follow: false }))).map((entry) => entry.event);
}

/** Waits until the session's running turn has streamed some text. */
async function streaming(store: SessionStore, sessionId: string): Promise<void> {
  await eventually('the turn streaming', async () => (await eventsOf(store, sessionId)).some((event) => event.kind === 'assistant_delta'));
}

async function waitForResults(store: SessionStore, sessionId: string, count: number): Promise<AnyEvent[]> {
  let events: AnyEvent[] = [];
  await eventually(`${count} results`, async () => resultsOf((events = await eventsOf(store, sessionId))).length >= count);
  return events;
}

describe.each<Home>(['in-process', 'Redis'])('sessions (%s store)', (where) => {
  beforeEach(() => {
    home = where;
  });
  it('opening one runs nothing: an idle record of no turn, listed as a session and not as a run', async () => {
    const store = open();
    work(store);
    const sessionId = await store.openSession(claudeJob(), { owner: 'ann' });
    expect(await store.findRun(sessionId)).toMatchObject({
      id: sessionId,
      kind: 'session',
      status: 'idle',
      turns: 0,
      title: '',
      resumable: true,
      owner: 'ann',
    });
    expect((await store.listRuns('ann', { kind: 'session' })).map((record) => record.id)).toEqual([sessionId]);
    expect(await store.listRuns('ann')).toEqual([]);
    expect(starts()).toEqual([]);
    expect(await store.isComplete(sessionId)).toBe(false);
  });

  it('two messages sent at once are two turns of one CLI, played in order, each ending with its result', async () => {
    const store = open();
    work(store);
    const sessionId = await store.openSession(claudeJob(), { owner: 'ann' });
    expect(await store.sendMessage(sessionId, 'Give the first answer.')).toEqual({ turn: 1 });
    expect(await store.sendMessage(sessionId, 'Give the second answer.')).toEqual({ turn: 2 });
    const events = await waitForResults(store, sessionId, 2);
    expect(resultsOf(events).map((event) => (event.payload as { output: string }).output)).toEqual([
      'The first answer.',
      'The second answer.',
    ]);
    // Each turn starts with the message it was asked (the host's user_message, its turn's number), before the CLI's answer.
    expect(
      events
        .filter((event) => event.kind === 'result' || event.kind === 'user_message')
        .map((event) => (event.kind === 'user_message' ? [event.payload.metadata.turn, event.payload.content] : event.kind)),
    ).toEqual([
      [1, [{ type: 'text', text: 'Give the first answer.' }]],
      'result',
      [2, [{ type: 'text', text: 'Give the second answer.' }]],
      'result',
    ]);
    expect(events[0]).toMatchObject({ kind: 'user_message', provider: 'claude', payload: { role: 'user' } });
    expect(starts()).toHaveLength(1);
    await eventually('an idle session', async () => (await store.findRun(sessionId))?.status === 'idle');
    expect(await store.findRun(sessionId)).toMatchObject({ turns: 2, title: 'Give the first answer.', status: 'idle', ended_at: null });
    expect((await store.findRun(sessionId))?.usage?.cost_usd).toBeGreaterThan(0);
    expect(await store.isComplete(sessionId)).toBe(false);
  });

  it("an idle session's CLI is closed; its next message starts the CLI again on the same conversation (--resume)", async () => {
    const store = open();
    work(store, 0.2);
    const sessionId = await store.openSession(claudeJob());
    await store.sendMessage(sessionId, 'Give the first answer.');
    await waitForResults(store, sessionId, 1);
    const [first] = pidsStarted();
    await eventually('the idle CLI gone', () => !isRunning(first));
    expect(await store.isComplete(sessionId)).toBe(false);
    await store.sendMessage(sessionId, 'Give the second answer.');
    await waitForResults(store, sessionId, 2);
    expect(starts()).toHaveLength(2);
    const seen = JSON.parse(readFileSync(join(dir, 'seen'), 'utf8')) as { argv: string[] };
    expect(seen.argv.slice(seen.argv.indexOf('--resume'), seen.argv.indexOf('--resume') + 2)).toEqual(['--resume', CLAUDE_SESSION]);
  });

  it('a CLI that cannot resume (Gemini CLI) ends its session when it idles: a later message is refused', async () => {
    const store = open();
    work(store, 0.2);
    const sessionId = await store.openSession({
      provider: 'gemini',
      cwd: dir,
      executable: REPLAY_AGENT,
      env: { REPLAY_WIRE: wire('gemini', 'two-turns') },
    });
    expect(await store.findRun(sessionId)).toMatchObject({ resumable: false });
    await store.sendMessage(sessionId, 'Give the first answer.');
    await eventually('the session ended', () => store.isComplete(sessionId));
    expect(await store.findRun(sessionId)).toMatchObject({ status: 'closed', turns: 1 });
    expect(await store.sendMessage(sessionId, 'Give the second answer.')).toEqual({ refused: 'closed' });
  });

  /** A session on a store with one worker, after its first turn: the pid of its CLI, kept. */
  async function afterFirstTurn(): Promise<{ store: SessionStore; sessionId: string; pid: number }> {
    const store = open();
    work(store);
    const sessionId = await store.openSession(claudeJob());
    await store.sendMessage(sessionId, 'Give the first answer.');
    await waitForResults(store, sessionId, 1);
    const [pid] = pidsStarted();
    expect(isRunning(pid)).toBe(true);
    return { store, sessionId, pid };
  }

  it('closing it between turns closes its CLI and completes its stream; a message after is refused', async () => {
    const { store, sessionId, pid } = await afterFirstTurn();
    expect(await store.closeSession(sessionId)).toBe(true);
    await eventually('the CLI gone', () => !isRunning(pid));
    expect(await store.isComplete(sessionId)).toBe(true);
    expect(await store.findRun(sessionId)).toMatchObject({ status: 'closed' });
    expect(await store.sendMessage(sessionId, 'More?')).toEqual({ refused: 'closed' });
    expect(await store.closeSession(sessionId)).toBe(false);
  });

  it("a worker's close answers once no CLI of it is left, also one whose session was closed just before", async () => {
    const { store, sessionId, pid } = await afterFirstTurn();
    expect(await store.closeSession(sessionId)).toBe(true);
    await workers.splice(0)[0].close();
    expect(isRunning(pid)).toBe(false);
  });

  it('a session left --ttl with no message is closed: its CLI closed, its stream ended (then kept --ttl), a message after refused', async () => {
    const store = open(undefined, 1);
    work(store);
    const sessionId = await store.openSession(claudeJob());
    await store.sendMessage(sessionId, 'Give the first answer.');
    await waitForResults(store, sessionId, 1);
    const [pid] = pidsStarted();
    await eventually('the left session closed', () => store.isComplete(sessionId));
    await eventually('its CLI gone', () => !isRunning(pid));
    expect(await store.findRun(sessionId)).toMatchObject({ status: 'closed', turns: 1, ttl_seconds: 1 });
    expect(await store.sendMessage(sessionId, 'Still there?')).toEqual({ refused: 'closed' });
  });

  it('holds at most ten messages waiting behind the running turn', async () => {
    const store = open();
    work(store);
    const sessionId = await store.openSession(
      claudeJob({ env: { REPLAY_WIRE: wire('claude', 'interrupt-stream'), REPLAY_PIDS: join(dir, 'pids') } }),
    );
    expect(await store.sendMessage(sessionId, 'Count slowly.')).toEqual({ turn: 1 });
    await streaming(store, sessionId);
    for (let turn = 2; turn <= 11; turn++) expect(await store.sendMessage(sessionId, `Message ${turn}`)).toEqual({ turn });
    expect(await store.sendMessage(sessionId, 'One too many')).toEqual({ refused: 'full' });
    expect(await store.sendMessage('00000000-0000-4000-8000-000000000000', 'Anyone?')).toEqual({ refused: 'no_session' });
    expect(await store.closeSession(sessionId)).toBe(true);
  });

  it('a message holding a NUL byte fails its turn with a clear error; the session goes on', async () => {
    const store = open();
    work(store);
    const sessionId = await store.openSession(claudeJob());
    await store.sendMessage(sessionId, 'Give\0 the first answer.');
    await store.sendMessage(sessionId, 'Give the first answer.');
    const events = await waitForResults(store, sessionId, 2);
    const [failed, answered] = resultsOf(events);
    expect(failed.payload).toMatchObject({ status: 'failed' });
    expect(events.find((event) => event.kind === 'error')?.payload).toMatchObject({ code: 'invalid_request' });
    expect(answered.payload).toMatchObject({ status: 'completed', output: 'The first answer.' });
  });

  it('a CLI that exits at once: each turn still ends with exactly one result, failed, and says why', async () => {
    const store = open();
    work(store);
    const sessionId = await store.openSession(claudeJob({ executable: '/bin/true' }));
    await store.sendMessage(sessionId, 'Give the first answer.');
    await store.sendMessage(sessionId, 'Give the second answer.');
    const events = await waitForResults(store, sessionId, 2);
    expect(resultsOf(events).map((event) => event.kind === 'result' && event.payload.status)).toEqual(['failed', 'failed']);
    const errors = events.filter((event) => event.kind === 'error');
    expect(errors.map((event) => event.kind === 'error' && event.payload.code)).toEqual(['no_result', 'no_result']);
  });

  it('an interrupt ends the running turn (aborted) and the session goes on; an approval is answered through the store', async () => {
    const store = open();
    work(store);
    const sessionId = await store.openSession(
      claudeJob({ env: { REPLAY_WIRE: wire('claude', 'interrupt-stream'), REPLAY_PIDS: join(dir, 'pids') } }),
    );
    await store.sendMessage(sessionId, 'Count slowly.');
    await streaming(store, sessionId);
    await store.interrupt(sessionId);
    const [aborted] = resultsOf(await waitForResults(store, sessionId, 1));
    expect(aborted.payload).toMatchObject({ status: 'aborted' });
    expect(await store.findRun(sessionId)).toMatchObject({ status: 'idle' });
    expect(await store.isComplete(sessionId)).toBe(false);

    const allowing = await store.openSession(claudeJob({ env: { REPLAY_WIRE: wire('claude', 'allow') } }));
    await store.sendMessage(allowing, 'Create made-by-tool.txt.');
    let approvalId: string | undefined;
    await eventually('an approval asked', async () => {
      const asked = (await eventsOf(store, allowing)).find((event) => event.kind === 'approval_requested');
      approvalId = (asked?.payload as { approval_id?: string } | undefined)?.approval_id;
      return approvalId !== undefined;
    });
    await store.approve(allowing, approvalId as string, { decision: 'allow' });
    const events = await waitForResults(store, allowing, 1);
    expect(events.find((event) => event.kind === 'approval_resolved')?.payload).toMatchObject({
      approval_id: approvalId,
      decision: 'allow',
    });
  });
});

describe('sessions on the in-process store with a data directory', () => {
  beforeEach(() => {
    home = 'in-process';
  });
  it('with a data directory, a restart keeps the session: the next message resumes its CLI on the conversation', async () => {
    const dataDir = join(dir, 'data');
    const first = open(dataDir);
    work(first);
    const sessionId = await first.openSession(claudeJob(), { owner: 'ann' });
    await first.sendMessage(sessionId, 'Give the first answer.');
    await waitForResults(first, sessionId, 1);
    await workers.pop()?.close();
    await stores.pop()?.close();

    const second = open(dataDir);
    work(second);
    expect(await second.findRun(sessionId)).toMatchObject({ kind: 'session', status: 'idle', turns: 1, owner: 'ann' });
    await second.sendMessage(sessionId, 'Give the second answer.');
    const events = await waitForResults(second, sessionId, 2);
    expect(resultsOf(events)).toHaveLength(2);
    const seen = JSON.parse(readFileSync(join(dir, 'seen'), 'utf8')) as { argv: string[] };
    expect(seen.argv).toContain(CLAUDE_SESSION);
  });

  it('a restart during a turn fails that turn (server_lost) and keeps the session', async () => {
    const dataDir = join(dir, 'data');
    const first = open(dataDir);
    work(first);
    const sessionId = await first.openSession(
      claudeJob({ env: { REPLAY_WIRE: wire('claude', 'interrupt-stream'), REPLAY_PIDS: join(dir, 'pids') } }),
    );
    await first.sendMessage(sessionId, 'Count slowly.');
    await streaming(first, sessionId);
    // The store goes first, as when the server dies: the worker's last events find no store.
    await stores.pop()?.close();
    const second = open(dataDir);
    const events = await eventsOf(second, sessionId);
    expect(events.at(-1)).toMatchObject({ kind: 'result', payload: { status: 'failed' } });
    expect(events.find((event) => event.kind === 'error' && (event.payload as { code?: string }).code === 'server_lost')).toBeDefined();
    expect(await second.findRun(sessionId)).toMatchObject({ status: 'idle', ended_at: null });
    await workers.pop()?.close();
  });

  /** Runs `body` noting the promise rejections nobody handled. */
  async function noteUnhandled(body: (unhandled: unknown[]) => Promise<void>): Promise<void> {
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      await body(unhandled);
    } finally {
      process.off('unhandledRejection', note);
    }
  }

  // Linux's /dev/full: every write to it fails with ENOSPC, as on a full disk.
  (existsSync('/dev/full') ? it : it.skip)(
    'a store that cannot write (a full disk) fails the turn at its message: no CLI starts, the process goes on',
    () =>
      noteUnhandled(async (unhandled) => {
        const dataDir = join(dir, 'data');
        const store = open(dataDir);
        work(store);
        const sessionId = await store.openSession(claudeJob());
        symlinkSync('/dev/full', join(dataDir, 'runs', `${sessionId}.jsonl`));
        await store.sendMessage(sessionId, 'Give the first answer.');
        // The turn was released: the session takes its next message.
        await eventually('the turn released', async () => (await store.countRuns('nobody')).waiting === 0);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(starts()).toEqual([]);
        expect(unhandled).toEqual([]);
      }),
  );

  it("a store that stops writing during a turn (its disk filled) stops the session's CLI, never the process", () =>
    noteUnhandled(async (unhandled) => {
      const store = open(join(dir, 'data'));
      work(store);
      const sessionId = await store.openSession(claudeJob());
      // The turn's message is written; every write after it fails, as the journal's on a disk just filled.
      const append = store.append.bind(store);
      store.append = async (runId, event) => {
        if (event.kind !== 'user_message') throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return append(runId, event);
      };
      await store.sendMessage(sessionId, 'Give the first answer.');
      await eventually('the CLI started', () => pidsStarted().length === 1);
      const [pid] = pidsStarted();
      await eventually('the CLI stopped', () => !isRunning(pid));
      await eventually('the turn released', async () => (await store.countRuns('nobody')).waiting === 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).toEqual([]);
    }));
});

describe('sessions on Redis with two workers', () => {
  beforeEach(() => {
    home = 'Redis';
  });

  /** A worker on its own connection to the same Redis, noting which turns it plays. */
  function workerOf(
    prefix: string,
    name: string,
    played: { worker: string; session: string; turn?: number }[],
  ): { close(): Promise<void> } {
    const own = openRunStore({ redis: redis?.url, lockMs: 2000, prefix });
    stores.push(own);
    const noting = Object.create(own) as SessionStore;
    noting.work = (handle, options) =>
      own.work((taken, signals) => {
        played.push({ worker: name, session: taken.runId, turn: taken.turn });
        return handle(taken, signals);
      }, options);
    const worker = createWorker(noting, { jobDefaults: { workspace: 'shared' } });
    workers.push(worker);
    return worker;
  }

  it("a session's later turns are played by the worker holding its CLI, one CLI per session", async () => {
    const prefix = `t${Math.random().toString(36).slice(2)}`;
    const web = openRunStore({ redis: redis?.url, lockMs: 2000, prefix });
    stores.push(web);
    const played: { worker: string; session: string; turn?: number }[] = [];
    workerOf(prefix, 'a', played);
    workerOf(prefix, 'b', played);
    const sessions = await Promise.all([1, 2, 3, 4].map(() => web.openSession(claudeJob())));
    for (const sessionId of sessions) await web.sendMessage(sessionId, 'Give the first answer.');
    for (const sessionId of sessions) await waitForResults(web, sessionId, 1);
    for (const sessionId of sessions) await web.sendMessage(sessionId, 'Give the second answer.');
    for (const sessionId of sessions) {
      const events = await waitForResults(web, sessionId, 2);
      expect(resultsOf(events).map((event) => (event.payload as { output: string }).output)).toEqual([
        'The first answer.',
        'The second answer.',
      ]);
      const byTurn = played.filter((entry) => entry.session === sessionId);
      expect(byTurn.map((entry) => entry.turn)).toEqual([1, 2]);
      expect(byTurn[1].worker).toBe(byTurn[0].worker);
    }
    expect(starts()).toHaveLength(4);
  });

  it('a worker that stops hands its sessions on: the next message starts the CLI on the other worker, resuming the conversation', async () => {
    const prefix = `t${Math.random().toString(36).slice(2)}`;
    const web = openRunStore({ redis: redis?.url, lockMs: 2000, prefix });
    stores.push(web);
    const played: { worker: string; session: string; turn?: number }[] = [];
    const a = workerOf(prefix, 'a', played);
    const sessionId = await web.openSession(claudeJob());
    await web.sendMessage(sessionId, 'Give the first answer.');
    await waitForResults(web, sessionId, 1);
    const [first] = pidsStarted();
    workerOf(prefix, 'b', played);
    await a.close();
    expect(isRunning(first)).toBe(false);
    await web.sendMessage(sessionId, 'Give the second answer.');
    const events = await waitForResults(web, sessionId, 2);
    expect(resultsOf(events).map((event) => event.payload.status)).toEqual(['completed', 'completed']);
    expect(played.map((entry) => entry.worker)).toEqual(['a', 'b']);
    expect(starts()).toHaveLength(2);
    const seen = JSON.parse(readFileSync(join(dir, 'seen'), 'utf8')) as { argv: string[] };
    expect(seen.argv.slice(seen.argv.indexOf('--resume'), seen.argv.indexOf('--resume') + 2)).toEqual(['--resume', CLAUDE_SESSION]);
    expect(await web.isComplete(sessionId)).toBe(false);
  });
});
