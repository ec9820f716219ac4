/*
 * `cli-subprocess-core acp --provider P` driven by the real ACP client (the official SDK's
 * `client()`, test/clients/acp-client.mjs) over each pinned CLI against its scripted endpoint
 * (issue #20): a plain prompt, a tool call allowed and one denied, a cancel then another prompt,
 * two prompts, a session loaded by a new agent process, `session/list` and `session/resume` (issue #30), and a session
 * the CLI started itself (its one-shot run) listed, loaded and resumed. Every update the agent sent is checked against the SDK's schema as well.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRun } from '../../src';
import { CLIS, HISTORY_CLI_IDS, isCliId, RUN_CLI_IDS, sessionSetup, type RunCli } from '../../src/clis';
import type { CliDefinition } from '../../src/clis/definition';
import { acpErrors } from '../../test/projections/acp-schema';
import type { McpServer, SessionUpdate } from '@agentclientprotocol/sdk';
import type { ResponsesTurn } from '../scripted/openai-responses';
import { startScriptedCli, type CliName, type ScriptedCli } from '../scripted/setup';
import { runAcpClient, type AcpClientOptions, type AcpClientRun, type AcpClientScenario } from './acp-client-harness';
import { SLOW_TEXT } from './harness';

const ROOT = join(__dirname, '..', '..');
/** The `acp` command from source (the build is what ships; the command line is the same). */
export const ACP_COMMAND = [
  process.execPath,
  '-r',
  require.resolve('ts-node/register/transpile-only'),
  join(ROOT, 'src', 'cli', 'main.ts'),
  'acp',
];

const SCRIPTS: Record<AcpClientScenario, readonly ResponsesTurn[]> = {
  plain: [{ text: 'Hello from the scripted model.' }],
  allow: [{ shell: 'touch made-by-tool.txt' }, { text: 'I created the file.' }],
  deny: [{ shell: 'touch made-by-tool.txt' }, { text: 'I was not allowed to create the file.' }],
  'two-turns': [{ text: 'The first answer.' }, { text: 'The second answer.' }],
  cancel: [SLOW_TEXT, { text: 'After the interrupt.' }],
  // Never reached: the CLI has no credentials.
  auth: [{ text: 'Hello from the scripted model.' }],
  close: [{ text: 'Hello from the scripted model.' }, { text: 'Never said: the session is closed.' }],
  // Each CLI's own (AcpAgentChecks.mcp).
  mcp: [],
  image: [{ text: 'The image is red.' }],
  resource: [{ text: 'One says pumpernickel.' }],
};

/**
 * The images of a model request, by the form its API carries them in: Anthropic's
 * `{type:'image', source:{type:'base64'}}`, OpenAI's `input_image` (Responses) or `image_url`
 * (Chat Completions) data URLs, Gemini's `inlineData`; `data` their base64.
 */
function imagesOf(value: unknown, found: { form: string; data: string }[] = []): { form: string; data: string }[] {
  if (Array.isArray(value)) for (const item of value) imagesOf(item, found);
  else if (typeof value === 'object' && value !== null) {
    const node = value as Record<string, unknown>;
    const source = node.source as Record<string, unknown> | undefined;
    if (node.type === 'image' && source?.type === 'base64') found.push({ form: 'anthropic', data: String(source.data) });
    const url =
      node.type === 'input_image' ? node.image_url : node.type === 'image_url' ? (node.image_url as { url?: unknown })?.url : undefined;
    if (typeof url === 'string') found.push({ form: String(node.type), data: url.replace(/^data:[^,]*;base64,/, '') });
    const inline = (node.inlineData ?? node.inline_data) as Record<string, unknown> | undefined;
    if (typeof inline?.data === 'string') found.push({ form: 'gemini', data: inline.data });
    for (const child of Object.values(node)) imagesOf(child, found);
  }
  return found;
}

/** The stdio MCP server of the `mcp` scenario (tool `echo`), as a client configures it. */
const ECHO_SERVER = join(__dirname, '..', 'capture', 'mcp-echo-server.js');

/** What a spec of one CLI checks beyond the common scenarios. */
export interface AcpAgentChecks {
  /**
   * The CLI's failure for want of credentials is known to reach the agent as an `auth` error (its
   * decoder's code): run it with none of its registry's key variables, in its throwaway HOME, and no
   * key in its config files either (`withoutCredentials`).
   */
  authRequired?: boolean;
  /**
   * A session the CLI started itself (its one-shot run, `startRun`, as a terminal runs it) is listed,
   * loaded and resumed: proven so far with Claude Code and Codex (the other CLIs whose history is read
   * and that run one-shot are to be checked before they say so).
   */
  terminalSessions?: boolean;
  /**
   * The script in which the model calls the `echo` tool of the client's MCP server, the CLI's way
   * (Claude Code loads it with `ToolSearch` first, Codex finds it with `tool_search` in its namespace).
   */
  mcp?: readonly ResponsesTurn[];
  /**
   * An image prompt is known to reach the CLI's model request against its scripted endpoint (Qwen
   * Code 0.15.10 left it out for the scripted model, whose name says nothing of images).
   */
  imageReachesModel?: boolean;
  /**
   * The scripted set-up offers a second model to switch to (the registry says the CLI switches in
   * its session): switch between two turns. OpenCode's, Kilo's, Qwen Code's and Cline's offer one
   * scripted model only (Qwen Code's other is its OAuth model).
   */
  modelSwitch?: boolean;
}

/** Nothing the SDK client rejected or altered, and every update valid against the protocol's schema. */
export function expectValidRun(run: AcpClientRun): void {
  expect(run.logs.filter((log) => log.source !== 'console' || /error/i.test(JSON.stringify(log)))).toEqual([]);
  const updates = [...run.turns.flatMap((turn) => turn.updates), ...run.outOfTurnUpdates.map((entry) => entry.update)];
  for (const update of updates) expect({ update, errors: acpErrors('SessionUpdate', update) }).toEqual({ update, errors: [] });
}

/** The text of the updates of `kind` (the agent's messages by default), as the client received them. */
function textOf(updates: readonly SessionUpdate[], kind: 'agent_message_chunk' | 'user_message_chunk' = 'agent_message_chunk'): string {
  return updates
    .map((update) =>
      (update.sessionUpdate === 'agent_message_chunk' || update.sessionUpdate === 'user_message_chunk') &&
      update.sessionUpdate === kind &&
      update.content.type === 'text'
        ? update.content.text
        : '',
    )
    .join('');
}

/** The agent's text of a turn, as the client received it. */
export function said(run: AcpClientRun, turn: number): string {
  return textOf(run.turns[turn].updates);
}

/** How the client starts its session (`session/new` by default), and the options it sets before a turn. */
type Start = Pick<AcpClientOptions, 'load' | 'resume' | 'list' | 'set'>;

/**
 * The client against a new agent process for `cli` (its history in the CLI's home), with none of
 * the `without` variables in its environment, and the client's `mcpServers`.
 */
async function driveAgent(
  name: CliName,
  scenario: AcpClientScenario,
  cli: ScriptedCli,
  start: Start = {},
  without: readonly string[] = [],
  mcpServers?: McpServer[],
): Promise<AcpClientRun> {
  // ts-node compiles the command with the project's settings (decorators) from any cwd.
  const env: Record<string, string> = { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1', TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') };
  for (const variable of without) delete env[variable];
  const command = [...ACP_COMMAND, '--provider', name, '--bin', cli.executable, '--history-dir', join(cli.env.HOME, 'acp-history')];
  const run = await runAcpClient({ scenario, cwd: cli.cwd, env, command, mcpServers, ...start });
  expectValidRun(run);
  return run;
}

export function describeAcpAgent(name: CliName, checks: AcpAgentChecks = {}): void {
  const open: ScriptedCli[] = [];
  afterEach(async () => {
    for (const cli of open.splice(0)) await cli.close();
  });

  async function drive(
    scenario: AcpClientScenario,
    script: readonly ResponsesTurn[] = SCRIPTS[scenario],
  ): Promise<{ run: AcpClientRun; cli: ScriptedCli }> {
    const cli = await startScriptedCli(name, script);
    open.push(cli);
    return { run: await driveAgain(scenario, cli), cli };
  }

  const driveAgain = (
    scenario: AcpClientScenario,
    cli: ScriptedCli,
    start: Start = {},
    without: readonly string[] = [],
    mcpServers?: McpServer[],
  ): Promise<AcpClientRun> => driveAgent(name, scenario, cli, start, without, mcpServers);

  it('a plain prompt: the answer as message chunks, end_turn', async () => {
    const { run } = await drive('plain');
    expect(run.initialize).toMatchObject({ protocolVersion: 1, agentInfo: { name: 'cli-subprocess-core' } });
    expect(run.turns.map((turn) => turn.stopReason)).toEqual(['end_turn']);
    expect(said(run, 0)).toBe('Hello from the scripted model.');
  });

  it("a tool call the client allows: the CLI's permission round-trips, the command runs", async () => {
    const { run, cli } = await drive('allow');
    expect(run.turns[0].stopReason).toBe('end_turn');
    expect(run.turns[0].permissions.map((permission) => permission.answeredOptionId)).toEqual(['allow_once']);
    expect(existsSync(join(cli.cwd, 'made-by-tool.txt'))).toBe(true);
    const id = run.turns[0].permissions[0].request.toolCall.toolCallId;
    const calls = run.turns[0].updates.filter(
      (update) => (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') && update.toolCallId === id,
    );
    expect(calls[0]).toMatchObject({ sessionUpdate: 'tool_call', kind: 'execute' });
    expect(calls.at(-1)).toMatchObject({ status: 'completed' });
  });

  it('a tool call the client rejects: no file, the call failed', async () => {
    const { run, cli } = await drive('deny');
    expect(run.turns[0].stopReason).toBe('end_turn');
    expect(run.turns[0].permissions.map((permission) => permission.answeredOptionId)).toEqual(['reject_once']);
    expect(existsSync(join(cli.cwd, 'made-by-tool.txt'))).toBe(false);
    const id = run.turns[0].permissions[0].request.toolCall.toolCallId;
    const last = run.turns[0].updates.filter((update) => update.sessionUpdate === 'tool_call_update' && update.toolCallId === id).at(-1);
    expect(last).toMatchObject({ status: 'failed' });
  });

  it('session/cancel: the turn ends cancelled, the next prompt completes', async () => {
    const { run } = await drive('cancel');
    expect(run.turns.map((turn) => turn.stopReason)).toEqual(['cancelled', 'end_turn']);
    expect(said(run, 1)).toBe('After the interrupt.');
  });

  if (CLIS[name].session.resume === null) {
    it('session/load is not offered: the CLI cannot resume (clis.ts says why)', async () => {
      const { run } = await drive('plain');
      expect(run.initialize.agentCapabilities?.loadSession).toBe(false);
    });
  } else {
    it('session/load in a new agent process: the history replayed first, then a prompt that continues the conversation', async () => {
      const { run: first, cli } = await drive('plain', [{ text: 'The first answer.' }, { text: 'The second answer.' }]);
      expect(first.initialize.agentCapabilities?.loadSession).toBe(true);
      const sessionId = first.sessionNew?.sessionId as string;
      const second = await driveAgain('plain', cli, { load: sessionId });
      expect(second.sessionLoad).toMatchObject({ modes: { currentModeId: 'ask' } });
      const replayed = second.outOfTurnUpdates.filter((entry) => entry.afterTurn === -1).map((entry) => entry.update);
      expect([textOf(replayed, 'user_message_chunk'), textOf(replayed)]).toEqual(['Say hello.', 'The first answer.']);
      expect(second.turns.map((turn) => turn.stopReason)).toEqual(['end_turn']);
      expect(said(second, 0)).toBe('The second answer.');
      // The CLI resumed its own session: the model saw the first turn.
      const calls = cli.server.requests.filter(
        (request) => request.method === 'POST' && JSON.stringify(request.body).includes('Say hello.'),
      );
      expect(JSON.stringify(calls.at(-1)?.body)).toContain('The first answer.');
    });

    it("session/list and session/resume of the agent's own session in a new agent process: listed once, titled by its first prompt; continued without a replay", async () => {
      const { run: first, cli } = await drive('plain', [{ text: 'The first answer.' }, { text: 'The second answer.' }]);
      const sessionId = first.sessionNew?.sessionId as string;
      // Listed once: the CLI's own session that it ran, which the CLI may store too, is that conversation.
      const second = await driveAgain('plain', cli, { resume: sessionId, list: true });
      expect(second.initialize.agentCapabilities?.sessionCapabilities).toMatchObject({ list: {}, resume: {} });
      expect(second.sessionList?.flatMap((page) => page.sessions)).toEqual([
        expect.objectContaining({ sessionId, cwd: cli.cwd, title: 'Say hello.', updatedAt: expect.any(String) }),
      ]);
      expect(second.sessionResume).toMatchObject({ modes: { currentModeId: 'ask' } });
      expect(second.outOfTurnUpdates).toEqual([]);
      expect(said(second, 0)).toBe('The second answer.');
      const calls = cli.server.requests.filter(
        (request) => request.method === 'POST' && JSON.stringify(request.body).includes('Say hello.'),
      );
      expect(JSON.stringify(calls.at(-1)?.body)).toContain('The first answer.');
    });
  }

  if (
    checks.terminalSessions &&
    CLIS[name].session.resume !== null &&
    isCliId<RunCli>(name, RUN_CLI_IDS) &&
    isCliId(name, HISTORY_CLI_IDS)
  ) {
    it('a session the CLI started itself (its one-shot mode, as in a terminal): listed for its cwd only, loaded with its turn replayed and continued with its memory; session/resume continues it without a replay', async () => {
      const cli = await startScriptedCli(name, [
        { text: 'The terminal answer.' },
        { text: 'An answer elsewhere.' },
        { text: 'The loaded answer.' },
        { text: 'The resumed answer.' },
      ]);
      open.push(cli);
      const elsewhere = mkdtempSync(join(tmpdir(), `${name}-elsewhere-`));
      try {
        /** The CLI's one-shot run (`startRun`: what a terminal runs) in `cwd`, with the agent's HOME and endpoint. */
        const oneShot = async (prompt: string, cwd: string): Promise<string> => {
          const run = startRun({
            provider: name,
            prompt,
            cwd,
            env: { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1' },
            executable: cli.executable,
            timeoutMs: 90_000,
          });
          for await (const event of run) void event;
          const outcome = await run.done;
          expect(outcome).toMatchObject({ status: 'completed', sessionId: expect.any(String) });
          return outcome.sessionId as string;
        };
        const cliSessionId = await oneShot('Remember the word apricot.', cli.cwd);
        await oneShot('Say something elsewhere.', elsewhere);

        const loaded = await driveAgain('plain', cli, { list: true, load: `${name}:${cliSessionId}` });
        expect(loaded.initialize.agentCapabilities).toMatchObject({ loadSession: true, sessionCapabilities: { list: {}, resume: {} } });
        // Only this folder's session (the other one's cwd differs), under its `<cli>:<id>` id.
        expect(loaded.sessionList?.flatMap((page) => page.sessions)).toEqual([
          {
            sessionId: `${name}:${cliSessionId}`,
            cwd: cli.cwd,
            title: 'Remember the word apricot.',
            updatedAt: expect.any(String),
            _meta: expect.objectContaining({ cli: name, origin: 'cli', cliSessionId }),
          },
        ]);
        const replayed = loaded.outOfTurnUpdates.filter((entry) => entry.afterTurn === -1).map((entry) => entry.update);
        expect([textOf(replayed, 'user_message_chunk'), textOf(replayed)]).toEqual(['Remember the word apricot.', 'The terminal answer.']);
        expect(loaded.turns.map((turn) => turn.stopReason)).toEqual(['end_turn']);
        expect(said(loaded, 0)).toBe('The loaded answer.');
        const lastRequest = (): string =>
          JSON.stringify(
            cli.server.requests.filter((request) => request.method === 'POST' && JSON.stringify(request.body).includes('Say hello.')).at(-1)
              ?.body,
          );
        expect(lastRequest()).toContain('Remember the word apricot.');

        const resumed = await driveAgain('plain', cli, { resume: `${name}:${cliSessionId}` });
        expect(resumed.sessionResume).toMatchObject({ modes: { currentModeId: 'ask' } });
        expect(resumed.outOfTurnUpdates).toEqual([]);
        expect(said(resumed, 0)).toBe('The resumed answer.');
        expect(lastRequest()).toContain('The loaded answer.');
        expect(lastRequest()).toContain('Remember the word apricot.');
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });
  }

  it('session/close (advertised): answered once the CLI and everything it started are gone; a prompt after it is refused', async () => {
    const { run } = await drive('close');
    expect(run.initialize.agentCapabilities?.sessionCapabilities?.close).toEqual({});
    expect(run.turns[0].stopReason).toBe('end_turn');
    expect(run.sessionClose).toEqual({});
    // The agent's own host-exit watchdog (src/runner/watchdog.ts: one per agent process, not per session) aside.
    const sessionProcesses = (list: { pid: number; args: string }[] = []) => list.filter((entry) => !/runner\/watchdog\./.test(entry.args));
    expect(sessionProcesses(run.agentProcesses?.beforeClose).length).toBeGreaterThan(0);
    expect(sessionProcesses(run.agentProcesses?.afterClose)).toEqual([]);
    expect(run.turns[1].error).toMatchObject({ code: -32602, message: expect.stringContaining('is closed') });
  });

  if (checks.authRequired) describeAcpAuth(name);

  if (checks.mcp) {
    it("a client's stdio MCP server: the model calls its tool, the server runs it, the call and its result reach the client", async () => {
      const cli = await startScriptedCli(name, checks.mcp as readonly ResponsesTurn[]);
      open.push(cli);
      const log = join(cli.env.HOME, 'mcp-echo.log');
      const run = await driveAgain(
        'mcp',
        cli,
        {},
        [],
        [{ name: 'echo', command: process.execPath, args: [ECHO_SERVER], env: [{ name: 'MCP_ECHO_LOG', value: log }] }],
      );
      expect(run.turns.map((turn) => turn.stopReason)).toEqual(['end_turn']);
      // The server ran the call (its env, given by the client, reached it).
      expect(readFileSync(log, 'utf8')).toBe('{"text":"ping"}\n');
      expect(said(run, 0)).toBe('The echo tool answered.');
      // The call of the MCP tool (after the CLI's search), then its completed result: the server's text.
      const updates = run.turns[0].updates;
      const call = updates.find(
        (update) => update.sessionUpdate === 'tool_call' && JSON.stringify(update.rawInput) === '{"text":"ping"}',
      ) as Extract<SessionUpdate, { sessionUpdate: 'tool_call' }> | undefined;
      expect(call).toMatchObject({ title: expect.stringContaining('echo') });
      const last = updates.filter((update) => update.sessionUpdate === 'tool_call_update' && update.toolCallId === call?.toolCallId).at(-1);
      expect(last).toMatchObject({ status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'echo: ping' } }] });
      // A CLI that asks before an MCP tool runs (Codex) asked about that call, and the client's allow reached it.
      for (const permission of run.turns[0].permissions) {
        expect(permission.request.toolCall.toolCallId).toBe(call?.toolCallId);
        expect(permission.answeredOptionId).toBe('allow_once');
      }
    });
  }

  /** The model requests of `cli` whose body holds `text`. */
  const requestsWith = (cli: ScriptedCli, text: string) =>
    cli.server.requests.filter((request) => request.method === 'POST' && JSON.stringify(request.body).includes(text));

  if (checks.imageReachesModel && CLIS[name].session.imageTypes.length > 0) {
    it("an image block: advertised, and the image reaches the CLI's model request, the same bytes", async () => {
      const { run, cli } = await drive('image');
      expect(run.initialize.agentCapabilities?.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });
      expect(run.turns.map((turn) => turn.stopReason)).toEqual(['end_turn']);
      expect(said(run, 0)).toBe('The image is red.');
      const image = run.turns[0].prompt.find((block) => block.type === 'image');
      const requests = requestsWith(cli, 'What colour is this image?');
      expect(requests.length).toBeGreaterThan(0);
      // Claude Code's Messages request an Anthropic image block, Codex's Responses request an `input_image`.
      const form = { claude: 'anthropic', codex: 'input_image' }[name as string] ?? expect.any(String);
      expect(imagesOf(requests[0].body)).toContainEqual({ form, data: image?.type === 'image' ? image.data : 'no image sent' });
    });
  }

  it("a resource block (the editor's file) and a resource link: the file's text and the link reach the model request", async () => {
    const cli = await startScriptedCli(name, SCRIPTS.resource);
    open.push(cli);
    // The linked file exists: a CLI that takes links as given may read it.
    writeFileSync(join(cli.cwd, 'linked.txt'), 'The linked file.\n');
    const run = await driveAgain('resource', cli);
    expect(run.initialize.agentCapabilities?.promptCapabilities?.embeddedContext).toBe(true);
    expect(run.turns.map((turn) => turn.stopReason)).toEqual(['end_turn']);
    expect(said(run, 0)).toBe('One says pumpernickel.');
    const body = JSON.stringify(requestsWith(cli, 'What do these files say?')[0]?.body ?? null);
    expect(body).toContain('The secret word is pumpernickel.');
    // The link as a reference the CLI can read: the file's path, for a CLI given it as text (an ACP CLI takes the link as given).
    expect(body).toContain(CLIS[name].session.protocolName === 'ACP' ? 'linked.txt' : join(cli.cwd, 'linked.txt'));
  });

  const modelSetup = sessionSetup(name).models;
  if (checks.modelSwitch && modelSetup?.switchesRunning) {
    it("session/set_config_option switches the model between two turns: the second turn's model request names it", async () => {
      const cli = await startScriptedCli(name, SCRIPTS['two-turns']);
      open.push(cli);
      // Claude's last alias (`haiku`: its default model may well be a `sonnet`); Codex's first listed model not current.
      const value = modelSetup.offered?.at(-1) ?? '@other';
      const run = await driveAgain('two-turns', cli, { set: [{ beforeTurn: 1, configId: 'model', value }] });
      const offered = run.sessionNew?.configOptions?.find((option) => option.id === 'model');
      // The CLI's default, or the model an ACP CLI says its session has.
      expect(offered).toMatchObject({ category: 'model', type: 'select' });
      expect(run.sessionNew?.configOptions?.map((option) => option.id)).toEqual(['model', 'mode']);
      const [set] = run.setConfigOptions;
      expect(set.value).not.toBe('@other');
      expect(set.result?.configOptions.find((option) => option.id === 'model')).toMatchObject({ currentValue: set.value });
      expect(run.turns.map((turn) => turn.stopReason)).toEqual(['end_turn', 'end_turn']);
      // The model requests of each turn (the second one's history holds the first prompt too).
      // The model is the body's `model`, or Gemini's path (`/v1beta/models/<model>:streamGenerateContent`).
      const posts = cli.server.requests
        .filter((request) => request.method === 'POST')
        .map((request) => ({
          body: JSON.stringify(request.body),
          model: String((request.body as { model?: unknown }).model ?? /\/models\/([^:/?]+)/.exec(request.url)?.[1]),
        }));
      const models = (holds: (body: string) => boolean) => posts.filter((post) => holds(post.body)).map((post) => post.model);
      const second = models((body) => body.includes('Give the second answer.'));
      const first = models((body) => body.includes('Give the first answer.') && !body.includes('Give the second answer.'));
      expect(first.length).toBeGreaterThan(0);
      expect(second.length).toBeGreaterThan(0);
      // Claude Code resolves an alias to a full model id (`claude-haiku-…`); Codex sends the name as given.
      for (const model of second) expect(model).toContain(set.value);
      for (const model of first) expect(model).not.toContain(set.value);
    });
  }

  it('two prompts: two turns of one session', async () => {
    const { run } = await drive('two-turns');
    expect(run.turns.map((turn) => turn.stopReason)).toEqual(['end_turn', 'end_turn']);
    expect([said(run, 0), said(run, 1)]).toEqual(['The first answer.', 'The second answer.']);
  });
}

/**
 * The agent over `name` with no credentials at all (none of its registry's key variables, no key in
 * its config files, a throwaway HOME): `authenticate` and the first prompt answer ACP's auth-required,
 * the latter because the CLI itself said so (its decoder's `auth` error), before any model request.
 */
export function describeAcpAuth(name: CliName): void {
  const auth = (CLIS[name] as CliDefinition).auth;
  if (!auth) throw new Error(`${name} has no auth entry in its registry file`);
  const open: ScriptedCli[] = [];
  afterEach(async () => {
    for (const cli of open.splice(0)) await cli.close();
  });

  it(`without credentials (no ${auth.keyVariables.join(', ')}, no login): authenticate and the prompt answer ACP's auth-required`, async () => {
    const cli = await startScriptedCli(name, SCRIPTS.auth, { withoutCredentials: true });
    open.push(cli);
    const run = await driveAgent(name, 'auth', cli, {}, auth.keyVariables);
    expect(run.initialize.authMethods).toEqual(
      auth.login === null
        ? [expect.objectContaining({ id: 'cli-credentials' })]
        : [
            expect.objectContaining({ id: 'cli-credentials', description: expect.stringContaining(auth.keyVariables[0]) }),
            expect.objectContaining({ type: 'terminal', id: 'cli-login', args: ['--login'] }),
          ],
    );
    expect(run.authenticate).toEqual({
      methodId: 'cli-credentials',
      error: expect.objectContaining({ code: -32000, message: expect.stringContaining('is not logged in') }),
    });
    // The CLI itself says so on the first prompt: ACP's code, not a generic -32603; no model request was made.
    expect(run.turns.map((turn) => turn.error?.code)).toEqual([-32000]);
    expect(cli.server.requests.filter((request) => request.method === 'POST')).toEqual([]);
  });
}
