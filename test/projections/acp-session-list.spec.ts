import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { serveAcpAgent } from '../../src';
import { HISTORY_CLI_IDS } from '../../src/clis';
import { listCliSessions } from '../../src/history';
import { AcpHistory } from '../../src/projections/acp/history';
import {
  cliSessionAcpId,
  listAcpSessions,
  parseCliSessionAcpId,
  sessionPage,
  type AcpSessionInfo,
} from '../../src/projections/acp/session-list';
import { storedSession } from '../../src/projections/acp/stored-session';
import { waitFor } from '../wait-for';
import { acpErrors } from './acp-schema';

/*
 * The ACP agent's `session/list` (its own sessions and the CLI's own, over the real stores of the
 * pinned Claude Code and Codex in test/fixtures/history/), its cursor, the `<cli>:<id>` ids of a
 * CLI's own sessions, and what `session/load` / `session/resume` take of a stored session.
 */

const FIXTURES = join(__dirname, '..', 'fixtures', 'history');
const claudeEnv = (scenario: string): NodeJS.ProcessEnv => ({
  HOME: '/nonexistent-home',
  CLAUDE_CONFIG_DIR: join(FIXTURES, 'claude', scenario),
});
const codexEnv = (scenario: string): NodeJS.ProcessEnv => ({ HOME: '/nonexistent-home', CODEX_HOME: join(FIXTURES, 'codex', scenario) });

// ts-node compiles the decoders on first use: slow on a loaded machine.
jest.setTimeout(20_000);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'acp-session-list-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("ids: a CLI's own session is `<cli>:<its id>`, the agent's own a bare UUID", () => {
  it.each(HISTORY_CLI_IDS)('%s: made and read back', (provider) => {
    const id = cliSessionAcpId(provider, '11c5629b-3bfc-4ab1-80f9-ee61b52f2ed6');
    expect(id).toBe(`${provider}:11c5629b-3bfc-4ab1-80f9-ee61b52f2ed6`);
    expect(parseCliSessionAcpId(id)).toEqual({ provider, id: '11c5629b-3bfc-4ab1-80f9-ee61b52f2ed6' });
  });

  it("the agent's own ids, another CLI's name, an empty half: not a CLI's session; a `:` in the CLI's id is kept", () => {
    for (const id of ['1a418dbf-1f3a-48fd-b6df-27d1b578a1e1', 'nosuchcli:abc', ':abc', `${HISTORY_CLI_IDS[0]}:`, ''])
      expect(parseCliSessionAcpId(id)).toBeNull();
    expect(parseCliSessionAcpId(`${HISTORY_CLI_IDS[0]}:a:b`)).toEqual({ provider: HISTORY_CLI_IDS[0], id: 'a:b' });
  });

  it("the agent's history never records a CLI's own session (the CLI stores it itself)", () => {
    const history = new AcpHistory(dir);
    history.record(cliSessionAcpId(HISTORY_CLI_IDS[0], 'abc'), { started: { provider: 'claude', cwd: dir } });
    expect(history.list()).toEqual([]);
  });
});

describe('sessionPage: newest first, a page at a time, an opaque cursor', () => {
  const info = (sessionId: string, updatedAt: string | null): AcpSessionInfo => ({
    sessionId,
    cwd: '/work',
    title: null,
    updatedAt,
    _meta: { cli: 'claude', origin: 'agent' },
  });
  // Sorted as listAcpSessions sorts: newest first, no time last, equal times by id.
  const all = [
    info('g', '2026-12-07T10:00:06.000Z'),
    info('a', '2026-12-07T10:00:05.000Z'),
    info('b', '2026-12-07T10:00:05.000Z'),
    info('f', '2026-12-07T10:00:04.000Z'),
    info('e', '2026-12-07T10:00:03.000Z'),
    info('c', null),
    info('d', null),
  ];

  const pages = (sessions: readonly AcpSessionInfo[], size: number) => {
    const out = [sessionPage(sessions, null, size)];
    while (out.at(-1)?.nextCursor !== undefined) out.push(sessionPage(sessions, out.at(-1)?.nextCursor ?? null, size));
    return out;
  };

  it('every session once, in order, in pages of the size; no nextCursor on the last page', () => {
    const paged = pages(all, 3);
    expect(paged.map((page) => page.sessions.map((session) => session.sessionId))).toEqual([['g', 'a', 'b'], ['f', 'e', 'c'], ['d']]);
    expect(paged.map((page) => page.nextCursor === undefined)).toEqual([false, false, true]);
    expect(sessionPage(all, null, 7)).toEqual({ sessions: all });
    expect(sessionPage([], null)).toEqual({ sessions: [] });
  });

  it('a session that starts between two pages shifts nothing: the next page goes on after the last one read', () => {
    const first = sessionPage(all, null, 3);
    const later = [info('new', '2026-12-07T11:00:00.000Z'), ...all];
    expect(sessionPage(later, first.nextCursor ?? null, 3).sessions.map((session) => session.sessionId)).toEqual(['f', 'e', 'c']);
  });

  it('a cursor this agent did not make is a TypeError (the agent answers it as invalid params)', () => {
    const notCursors = ['nope', Buffer.from('{}').toString('base64url'), Buffer.from('[1,2]').toString('base64url'), ''];
    for (const cursor of notCursors) expect(() => sessionPage(all, cursor)).toThrow(TypeError);
  });
});

describe("listAcpSessions: the agent's own sessions and the CLI's own", () => {
  it("a CLI's stored session of the folder, titled by its first prompt; the agent's of the folder; none of another folder", async () => {
    const [ref] = await listCliSessions({ provider: 'claude', env: claudeEnv('two-turns') });
    const cwd = ref.cwd as string;
    const history = new AcpHistory(dir);
    history.record('1a418dbf-1f3a-48fd-b6df-27d1b578a1e1', { started: { provider: 'claude', cwd } });
    history.record('1a418dbf-1f3a-48fd-b6df-27d1b578a1e1', {
      update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Hi\nthere' } },
    });
    history.record('2b418dbf-1f3a-48fd-b6df-27d1b578a1e1', { started: { provider: 'claude', cwd: '/elsewhere' } });

    const listed = await listAcpSessions({ providers: ['claude'], history, cwd, env: () => claudeEnv('two-turns') });
    expect(listed).toEqual([
      {
        sessionId: '1a418dbf-1f3a-48fd-b6df-27d1b578a1e1',
        cwd,
        title: 'Hi there',
        updatedAt: expect.any(String),
        _meta: { cli: 'claude', origin: 'agent' },
      },
      {
        sessionId: `claude:${ref.id}`,
        cwd,
        title: 'Say one.',
        updatedAt: new Date(ref.updated_at as string).toISOString(),
        _meta: { cli: 'claude', origin: 'cli', cliSessionId: ref.id, model: ref.model, startedBy: ref.origin },
      },
    ]);
    for (const session of listed) expect(acpErrors('SessionInfo', session)).toEqual([]);
    expect(await listAcpSessions({ providers: ['claude'], history, cwd: '/nowhere', env: () => claudeEnv('two-turns') })).toEqual([]);
    expect(
      (await listAcpSessions({ providers: ['claude'], history, env: () => claudeEnv('two-turns') })).map((session) => session.sessionId),
    ).toHaveLength(3);
  });

  it("a CLI session one of the agent's sessions ran is listed once, as the agent's", async () => {
    const [ref] = await listCliSessions({ provider: 'codex', env: codexEnv('tool') });
    const history = new AcpHistory(dir);
    history.record('3c418dbf-1f3a-48fd-b6df-27d1b578a1e1', { started: { provider: 'codex', cwd: ref.cwd as string } });
    history.record('3c418dbf-1f3a-48fd-b6df-27d1b578a1e1', { cli_session_id: ref.id });
    const listed = await listAcpSessions({ providers: ['codex'], history, cwd: ref.cwd as string, env: () => codexEnv('tool') });
    expect(listed.map((session) => session.sessionId)).toEqual(['3c418dbf-1f3a-48fd-b6df-27d1b578a1e1']);
  });
});

describe('storedSession: what session/load replays and session/resume resumes', () => {
  it("a CLI's own session: its prompts as user_message_chunks and its answers, replayed; resumed by the CLI's id", async () => {
    const [ref] = await listCliSessions({ provider: 'claude', env: claudeEnv('two-turns') });
    const sources = { providers: ['claude'], history: null, env: () => claudeEnv('two-turns') };
    const loaded = await storedSession(`claude:${ref.id}`, sources, true);
    expect(loaded?.cliSessionId).toBe(ref.id);
    const text = (kind: string) =>
      (loaded?.updates ?? []).filter((update) => update.sessionUpdate === kind).map((update) => (update.content as { text: string }).text);
    expect(text('user_message_chunk')).toEqual(['Say one.', 'Say two.']);
    expect(text('agent_message_chunk')).toEqual(['one', 'two']);
    for (const update of loaded?.updates ?? []) expect(acpErrors('SessionUpdate', update)).toEqual([]);
    expect(await storedSession(`claude:${ref.id}`, sources, false)).toEqual({ cliSessionId: ref.id, provider: 'claude', updates: [] });
  });

  it("a tool call of a Codex exec session is replayed; Codex's context messages are not prompts", async () => {
    const [ref] = await listCliSessions({ provider: 'codex', env: codexEnv('tool') });
    const loaded = await storedSession(`codex:${ref.id}`, { providers: ['codex'], history: null, env: () => codexEnv('tool') }, true);
    const users = (loaded?.updates ?? []).filter((update) => update.sessionUpdate === 'user_message_chunk');
    expect(users.map((update) => (update.content as { text: string }).text)).toEqual(['Run echo hello-from-tool.']);
    // The rollout names the model's own tool (`exec_command`), as it called it.
    expect(loaded?.updates).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'tool_call', name: 'exec_command', rawInput: { cmd: 'echo hello-from-tool' } }),
    );
    expect(loaded?.updates).toContainEqual(expect.objectContaining({ sessionUpdate: 'tool_call_update', status: 'completed' }));
    for (const update of loaded?.updates ?? []) expect(acpErrors('SessionUpdate', update)).toEqual([]);
  });

  it("unknown: another CLI's session, an id the store has not, an agent session without a history", async () => {
    const [ref] = await listCliSessions({ provider: 'claude', env: claudeEnv('two-turns') });
    const sources = { providers: ['codex'], history: null, env: () => ({ ...claudeEnv('two-turns'), ...codexEnv('tool') }) };
    expect(await storedSession(`claude:${ref.id}`, sources, true)).toBeNull();
    expect(await storedSession('codex:no-such-session', sources, true)).toBeNull();
    expect(await storedSession('1a418dbf-1f3a-48fd-b6df-27d1b578a1e1', sources, true)).toBeNull();
  });
});

describe('the agent: session/list and session/resume on the wire', () => {
  it('advertised; a page valid against the schema; a bad cursor is invalid params; an unknown session cannot be resumed', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let text = '';
    output.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const env = claudeEnv('two-turns');
    const served = serveAcpAgent({ provider: 'claude', session: { env }, historyDir: join(dir, 'history') }, input, output);
    const send = (message: Record<string, unknown>) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const answer = (id: number) =>
      waitFor(`the answer to ${id}`, () =>
        text
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((message) => message.id === id),
      );
    const [ref] = await listCliSessions({ provider: 'claude', env });
    send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    send({ id: 1, method: 'session/list', params: { cwd: ref.cwd } });
    send({ id: 2, method: 'session/list', params: { cwd: ref.cwd, cursor: 'not-a-cursor' } });
    send({ id: 3, method: 'session/resume', params: { sessionId: 'claude:no-such-session', cwd: ref.cwd, mcpServers: [] } });
    expect((await answer(0)).result).toMatchObject({
      agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, resume: {} } },
    });
    const page = (await answer(1)).result;
    expect(acpErrors('ListSessionsResponse', page)).toEqual([]);
    expect(page).toEqual({ sessions: [expect.objectContaining({ sessionId: `claude:${ref.id}`, title: 'Say one.' })] });
    expect((await answer(2)).error).toMatchObject({ code: -32602, message: expect.stringContaining('not a cursor') });
    expect((await answer(3)).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('no session "claude:no-such-session" to resume'),
    });
    input.end();
    await served;
  });
});
