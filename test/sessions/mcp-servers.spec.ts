import 'reflect-metadata';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { serveAcpAgent } from '../../src';
import { CLIS, SESSION_CLI_IDS, type SessionCli } from '../../src/clis';
import { checkMcpServers } from '../../src/clis/mcp-servers';
import type { JsonObject } from '../../src/schema/json';
import { processDecoder } from '../../src/decode/decoder';
import { readLine } from '../../src/protocols/protocol';
import { sessionArgv } from '../../src/sessions/session-argv';
import { startSession } from '../../src/sessions/session';
import type { McpServer, SessionOptions } from '../../src/sessions/types';
import { waitFor } from '../wait-for';
import { acpMessageErrors } from '../projections/acp-schema';

/*
 * The host's MCP servers (`SessionOptions.mcpServers`, ACP's shapes) reach each CLI in its own form,
 * from its registry entry: Claude Code's `--mcp-config=`, Codex's `thread/start` config overrides, the
 * ACP CLIs' `session/new` as given; a kind a CLI lacks, a CLI without MCP and a bad name are refused.
 * The real CLIs calling a real MCP server's tool: e2e/test/acp-agent-scenarios.ts (`mcp`).
 */

const STDIO: McpServer = {
  name: 'echo',
  command: 'node',
  args: ['/srv/echo.js', '--verbose'],
  env: [{ name: 'ECHO_TOKEN', value: 'secret' }],
};
const HTTP: McpServer = {
  type: 'http',
  name: 'docs',
  url: 'https://mcp.example.com/mcp',
  headers: [{ name: 'Authorization', value: 'Bearer t' }],
};
const SSE: McpServer = { type: 'sse', name: 'events', url: 'http://127.0.0.1:9/sse', headers: [] };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-servers-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What `provider`'s protocol writes when it opens (its handshake), with `options`. */
function opening(provider: 'codex' | 'opencode', options: Partial<SessionOptions>, answer?: (message: JsonObject) => JsonObject | null) {
  const written: JsonObject[] = [];
  const protocol = CLIS[provider].session.protocol(
    {
      write: (message) => {
        written.push(message);
        const result = answer?.(message);
        // Answered once the request is registered (the peer writes it first).
        if (result) setImmediate(() => protocol.peer.receive({ jsonrpc: '2.0', id: message.id as number, result }));
      },
      fail: (message) => {
        throw new Error(message);
      },
    },
    provider,
    { provider, cwd: '/work', ...options },
  );
  protocol.open();
  return written;
}

describe("each CLI's own form", () => {
  it('Claude Code: one `--mcp-config=<json>` element (the option is variadic), stdio, http and sse servers in its config shape', () => {
    const argv = sessionArgv('claude', CLIS.claude.session, undefined, undefined, [STDIO, HTTP, SSE]);
    expect(argv.slice(0, CLIS.claude.session.args.length)).toEqual(CLIS.claude.session.args);
    const added = argv.slice(CLIS.claude.session.args.length);
    expect(added).toHaveLength(1);
    expect(added[0].startsWith('--mcp-config=')).toBe(true);
    expect(JSON.parse(added[0].slice('--mcp-config='.length))).toEqual({
      mcpServers: {
        echo: { type: 'stdio', command: 'node', args: ['/srv/echo.js', '--verbose'], env: { ECHO_TOKEN: 'secret' } },
        docs: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
        events: { type: 'sse', url: 'http://127.0.0.1:9/sse', headers: {} },
      },
    });
    // With a model and a resume id too, each still its own flag.
    expect(sessionArgv('claude', CLIS.claude.session, 'opus', 'abc', [STDIO]).slice(CLIS.claude.session.args.length, -1)).toEqual([
      '--model',
      'opus',
      '--resume',
      'abc',
    ]);
  });

  it("Codex: nothing on argv (a server's env would be visible there); `thread/start`'s config has one `mcp_servers.<name>` override each", () => {
    expect(sessionArgv('codex', CLIS.codex.session, undefined, undefined, [STDIO, HTTP])).toEqual(CLIS.codex.session.args);
    const start = opening('codex', { mcpServers: [STDIO, HTTP] }).find((message) => message.method === 'thread/start');
    expect(start?.params).toMatchObject({
      config: {
        'mcp_servers.echo': { command: 'node', args: ['/srv/echo.js', '--verbose'], env: { ECHO_TOKEN: 'secret' } },
        'mcp_servers.docs': { url: 'https://mcp.example.com/mcp', http_headers: { Authorization: 'Bearer t' } },
      },
    });
    // `thread/resume` the same; no servers, no config.
    const resume = opening('codex', { mcpServers: [STDIO], resume: 'thread-1' }).find((message) => message.method === 'thread/resume');
    expect(resume?.params).toMatchObject({ threadId: 'thread-1', config: { 'mcp_servers.echo': { command: 'node' } } });
    const plain = opening('codex', {}).find((message) => message.method === 'thread/start');
    expect(plain?.params).not.toHaveProperty('config');
  });

  it("Codex: an MCP tool's approval (an elicitation marked mcp_tool_call) is that call's approval, answered {action}; a server's own form is declined", () => {
    const written: JsonObject[] = [];
    const protocol = CLIS.codex.session.protocol(
      {
        write: (message) => written.push(message),
        fail: (message) => {
          throw new Error(message);
        },
      },
      'codex',
      { provider: 'codex' },
    );
    const decoder = processDecoder(protocol.profile, 'none');
    const events = (line: JsonObject) => readLine(protocol, decoder, JSON.stringify(line));
    // As Codex 0.169 sent them (e2e/test/codex.acp.spec.ts's MCP call), trimmed.
    events({
      method: 'item/started',
      params: {
        item: { type: 'mcpToolCall', id: 'call_2', server: 'echo', tool: 'echo', status: 'inProgress', arguments: { text: 'ping' } },
      },
    });
    const elicitation = {
      serverName: 'echo',
      mode: 'form',
      _meta: { codex_approval_kind: 'mcp_tool_call', persist: ['session', 'always'], tool_name: 'echo', tool_params: { text: 'ping' } },
      message: 'Allow the echo MCP server to run tool "echo"?',
      requestedSchema: { type: 'object', properties: {} },
    };
    const asked = events({ id: 7, method: 'mcpServer/elicitation/request', params: elicitation });
    expect(asked.find((event) => event.kind === 'approval_requested')?.payload).toMatchObject({
      approval_id: '7',
      subject: 'echo/echo',
      details: { arguments: { text: 'ping' } },
      metadata: { tool_call_id: 'call_2' },
    });
    protocol.answer('7', { decision: 'allow' });
    expect(written.at(-1)).toEqual({ id: 7, result: { action: 'accept', content: {} } });
    events({ id: 8, method: 'mcpServer/elicitation/request', params: elicitation });
    protocol.answer('8', { decision: 'deny' });
    expect(written.at(-1)).toEqual({ id: 8, result: { action: 'decline', content: null } });
    // A form of the server's own: no approval, declined at once.
    const form = {
      serverName: 'echo',
      mode: 'form',
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    };
    expect(events({ id: 9, method: 'mcpServer/elicitation/request', params: form }).map((event) => event.kind)).not.toContain(
      'approval_requested',
    );
    expect(written.at(-1)).toEqual({ id: 9, result: { action: 'decline', content: null } });
  });

  it('the ACP CLIs: `session/new` and `session/load` carry them as given, in ACP shapes', async () => {
    const initialized = (message: JsonObject) => (message.method === 'initialize' ? { protocolVersion: 1 } : null);
    expect(sessionArgv('opencode', CLIS.opencode.session, undefined, undefined, [STDIO, HTTP])).toEqual(CLIS.opencode.session.args);
    const first = opening('opencode', { mcpServers: [STDIO, HTTP, SSE] }, initialized);
    const fresh = await waitFor('session/new', () => first.find((message) => message.method === 'session/new'));
    expect(fresh?.params).toEqual({ cwd: '/work', mcpServers: [STDIO, HTTP, SSE] });
    const second = opening('opencode', { mcpServers: [STDIO], resume: 's-1' }, initialized);
    const loaded = await waitFor('session/load', () => second.find((message) => message.method === 'session/load'));
    expect(loaded?.params).toEqual({ sessionId: 's-1', cwd: '/work', mcpServers: [STDIO] });
  });
});

describe('refused: a TypeError before anything starts', () => {
  const refusals: [string, SessionCli, unknown[], RegExp][] = [
    ['pi has no MCP', 'pi', [STDIO], /pi takes no MCP servers/],
    [
      'Cline answers no mcpCapabilities: stdio only',
      'cline',
      [HTTP],
      /cline takes no http MCP servers \(MCP server docs\); it takes stdio/,
    ],
    ['Codex speaks no SSE', 'codex', [SSE], /codex takes no sse MCP servers/],
    ['a flag-like name', 'claude', [{ ...STDIO, name: '--yolo' }], /name must be/],
    ['a name with a dot (a nested TOML key to Codex)', 'codex', [{ ...STDIO, name: 'a.b' }], /name must be/],
    ['a name with a space', 'claude', [{ ...STDIO, name: 'a b' }], /name must be/],
    ['two of one name', 'claude', [STDIO, { ...HTTP, name: 'echo' }], /two MCP servers are named "echo"/],
    ['an unknown type', 'claude', [{ ...HTTP, type: 'websocket' }], /type must be/],
    ['a stdio server without a command', 'claude', [{ name: 'x', args: [], env: [] }], /command must be/],
    ['a url that is not http(s)', 'claude', [{ ...HTTP, url: 'file:///etc/passwd' }], /url must be/],
    ['env not {name, value} strings', 'claude', [{ ...STDIO, env: [{ name: 'A', value: 1 }] }], /env must be a list/],
  ];
  it.each(refusals)('%s', (_what, provider, servers, message) => {
    expect(() => checkMcpServers(provider, CLIS[provider].session.mcpServers, servers as McpServer[])).toThrow(message);
    expect(() => startSession({ provider, executable: process.execPath, cwd: dir, mcpServers: servers as McpServer[] })).toThrow(message);
  });

  it('unknown keys (`_meta`) are left out; absent args and env are empty', () => {
    const given = [
      { name: 'x', command: 'node', _meta: { a: 1 } },
      { ...SSE, _meta: null },
    ] as unknown as McpServer[];
    expect(checkMcpServers('claude', CLIS.claude.session.mcpServers, given)).toEqual([
      { name: 'x', command: 'node', args: [], env: [] },
      SSE,
    ]);
  });

  it('every session CLI says what it takes (the kinds, or null)', () => {
    for (const id of SESSION_CLI_IDS) {
      const setup = CLIS[id].session.mcpServers;
      if (setup !== null) expect(setup.kinds).toContain('stdio');
    }
  });
});

describe('the ACP agent', () => {
  function agent(provider: 'gemini' | 'claude' | 'cline', env: Record<string, string> = {}) {
    const input = new PassThrough();
    const output = new PassThrough();
    let text = '';
    output.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const agentPath = join(__dirname, 'replay-agent.js');
    const served = serveAcpAgent(
      {
        provider,
        session: {
          executable: agentPath,
          env: { REPLAY_WIRE: join(__dirname, '..', 'fixtures', 'sessions', provider, 'wire-plain.jsonl'), ...env },
          killGraceMs: 500,
        },
        historyDir: null,
      },
      input,
      output,
    );
    const messages = () =>
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    return {
      send: (message: Record<string, unknown>) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`),
      answer: (id: number) =>
        waitFor(`the answer to ${id}`, () => messages().find((message) => message.id === id && message.method === undefined)),
      end: async () => {
        input.end();
        await served;
      },
    };
  }

  it.each([
    ['claude', { http: true, sse: true }],
    ['gemini', { http: true, sse: true }],
    ['cline', { http: false, sse: false }],
  ] as const)('%s: initialize advertises mcpCapabilities %j, from its registry entry', async (provider, capabilities) => {
    const acp = agent(provider);
    acp.send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    const answer = await acp.answer(0);
    await acp.end();
    expect(acpMessageErrors(answer)).toEqual([]);
    expect(answer.result).toMatchObject({ agentCapabilities: { mcpCapabilities: capabilities } });
  });

  it("session/new passes the client's servers to the CLI's session/new; one the CLI cannot take is -32602", async () => {
    const log = join(dir, 'wire.log');
    const acp = agent('gemini', { REPLAY_LOG: log });
    acp.send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    acp.send({ id: 1, method: 'session/new', params: { cwd: dir, mcpServers: [STDIO, HTTP] } });
    expect((await acp.answer(1)).result).toMatchObject({ sessionId: expect.any(String) });
    acp.send({ id: 2, method: 'session/new', params: { cwd: dir, mcpServers: [{ ...STDIO, name: '-x' }] } });
    expect((await acp.answer(2)).error).toMatchObject({ code: -32602, message: expect.stringContaining('name must be') });
    const sent = await waitFor('the session/new the CLI got', () =>
      (existsSync(log) ? readFileSync(log, 'utf8') : '')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as JsonObject)
        .find((message) => message.method === 'session/new'),
    );
    await acp.end();
    expect(sent.params).toEqual({ cwd: dir, mcpServers: [STDIO, HTTP] });
  });
});
