#!/usr/bin/env node
/*
 * A real Agent Client Protocol client, built on the official SDK's `client()`
 * (@agentclientprotocol/sdk, ESM-only, hence an .mjs that jest starts as a child process; see
 * e2e/test/acp-client-harness.ts), to drive any ACP agent over stdio end to end.
 *
 *   node test/clients/acp-client.mjs --scenario <name> --cwd <dir> [--timeout-ms 120000] [--list]
 *     [--load <sessionId> | --resume <sessionId>] [--mcp-servers <json>] [--set <turn>:<configId>=<value>]…
 *     -- <agent command> [args…]
 *
 * `--set 1:model=opus` sends `session/set_config_option` (configId `model`, value `opus`) before
 * turn 1 (0-based); a value `@other` is the first value the option offers (in the last
 * configOptions the agent gave) other than its current one.
 *
 * It spawns the agent command in <dir> with this process's environment (stdin/stdout piped,
 * stderr passed through), connects the SDK client to it with ndJsonStream, sends `initialize`
 * (protocolVersion 1, no fs, no terminal) and `session/new` (cwd, and the MCP servers of
 * --mcp-servers: a JSON list of ACP `McpServer`s, none by default), plays the
 * scenario's turns, and prints ONE JSON object on stdout:
 *
 *   { initialize, authenticate ({ methodId, result | error }, with `auth`), sessionClose (the answer, with `close`),
 *     agentProcesses ({ beforeClose, afterClose }: the agent's descendant processes, `{ pid, args }`, with `close`),
 *     sessionList (with --list: every page of `session/list` for <dir>, following nextCursor, sent before the session's start),
 *     sessionNew | sessionLoad | sessionResume (with --load / --resume: `session/load` / `session/resume` of that session instead of `session/new`),
 *     setConfigOptions: [{ beforeTurn, configId, value, result | error }] (with --set),
 *     turns: [{ prompt, stopReason | error, response?, cancelSentAfterUpdates?, updates: [SessionUpdate…],
 *               permissions: [{ request, answeredOptionId }] }],
 *     outOfTurnUpdates: [{ afterTurn, update }],   // session/update received while no prompt was pending
 *     logs: [{ source, turn, … }],                 // what the SDK logged, rejected, altered or answered by itself
 *     agentExit: { code, signal } }
 *
 * then closes the agent's stdin (waits for it to exit, 10 s grace, then SIGTERM/SIGKILL of that
 * child only) and exits 0. Any failure: a message (and the partial record) on stderr, exit 1. A
 * hard timeout (default 120 s) SIGKILLs the agent it started and exits 1.
 *
 * `logs` sources:
 * - `console`: anything the SDK printed (it logs with console.error, e.g. "Error handling
 *   notification" when it drops a session/update that fails its zod schema; it logs only the
 *   method and error code, so the `validation` entry below carries the update itself).
 * - `validation`: an inbound session/update or session/request_permission checked with the very
 *   zod schema the SDK parses it with: `rejected` (the SDK drops the notification, or answers the
 *   request -32602 itself) or `altered` (the SDK accepted it but its handler sees something else:
 *   unknown keys stripped, invalid values replaced by defaults), with `raw` and `parsed`/`issues`.
 * - `response-check`: a response to initialize / session/new / load / resume / list / prompt / close that fails the ACP
 *   response schema (the SDK does NOT validate responses; this is the harness's own check).
 * - `sdk-reply`: an error response the client side sent (method not found, invalid params, parse
 *   errors of non-JSON lines on the agent's stdout: the SDK answers those with id null).
 * - `unhandled`: a request or notification no handler took (requests are answered -32601).
 * - `session`: a session/update for another session id; `unhandledRejection`.
 *
 * Scenarios live in SCENARIOS below: a list of turns, each a prompt, an optional permission
 * policy (an option kind to select, or a function returning an optionId or null to answer
 * `cancelled`) and an optional `cancelOn(update)` that sends session/cancel the first time it
 * returns true in that turn.
 */
import { execFileSync, spawn } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { client, methods, ndJsonStream, RequestError } from '@agentclientprotocol/sdk';

const isChunk = (kind) => (update) => update.sessionUpdate === kind;

/** A real 4×4 red PNG (RGB, 8 bits), base64: the `image` scenario's image. */
const RED_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGO4oKAARwzEcQDFQxEBb5JfhQAAAABJRU5ErkJggg==';

/** A file URI under the session's cwd (set once the arguments are read). */
let fileUri = (name) => name;

/** @type {Record<string, { permission?: string | Function, turns: Array<{ prompt: string | object[] | (() => object[]), permission?: string | Function, cancelOn?: (update: any) => boolean }> }>} */
const SCENARIOS = {
  plain: { turns: [{ prompt: 'Say hello.' }] },
  allow: { permission: 'allow_once', turns: [{ prompt: 'Create made-by-tool.txt.' }] },
  deny: { permission: 'reject_once', turns: [{ prompt: 'Create made-by-tool.txt.' }] },
  'two-turns': { turns: [{ prompt: 'Give the first answer.' }, { prompt: 'Give the second answer.' }] },
  cancel: {
    turns: [{ prompt: 'Answer slowly.', cancelOn: isChunk('agent_message_chunk') }, { prompt: 'Say something after the interrupt.' }],
  },
  // A client that can run terminal auth: `authenticate` with the agent's first (`agent`) method, then a prompt.
  auth: { terminalAuth: true, authenticate: true, turns: [{ prompt: 'Say hello.' }] },
  // `session/close` after the first turn, then a prompt on the closed session.
  close: { closeAfterTurn: 0, turns: [{ prompt: 'Say hello.' }, { prompt: 'Say hello again.' }] },
  // A tool of the client's MCP server (--mcp-servers), whose call the client allows.
  mcp: { permission: 'allow_once', turns: [{ prompt: 'Ask the echo tool to echo ping.' }] },
  // A prompt with an image block (`promptCapabilities.image`).
  image: {
    turns: [
      {
        prompt: [
          { type: 'text', text: 'What colour is this image?' },
          { type: 'image', mimeType: 'image/png', data: RED_PNG },
        ],
      },
    ],
  },
  // A prompt with the editor's selected file embedded (`embeddedContext`) and a link to another file (baseline ACP).
  resource: {
    turns: [
      {
        prompt: () => [
          { type: 'text', text: 'What do these files say?' },
          { type: 'resource', resource: { uri: fileUri('notes.txt'), mimeType: 'text/plain', text: 'The secret word is pumpernickel.' } },
          { type: 'resource_link', uri: fileUri('linked.txt'), name: 'linked.txt' },
        ],
      },
    ],
  },
};
/** Permission requests of scenarios that set no policy are denied. */
const DEFAULT_PERMISSION = 'reject_once';
const EXIT_GRACE_MS = 10_000;

// ---------------------------------------------------------------- arguments

class UsageError extends Error {}

function parseArgs(argv) {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  const opts = {
    scenario: undefined,
    cwd: process.cwd(),
    timeoutMs: 120_000,
    load: null,
    resume: null,
    list: false,
    mcpServers: [],
    set: [],
  };
  for (let i = 0; i < own.length; i++) {
    if (own[i] === '--list') {
      opts.list = true;
      continue;
    }
    const value = own[i + 1];
    if (value === undefined) throw new UsageError(`${own[i]} needs a value`);
    if (own[i] === '--scenario') opts.scenario = value;
    else if (own[i] === '--cwd') opts.cwd = resolvePath(value);
    else if (own[i] === '--timeout-ms') opts.timeoutMs = Number(value);
    else if (own[i] === '--load') opts.load = value;
    else if (own[i] === '--mcp-servers') opts.mcpServers = JSON.parse(value);
    else if (own[i] === '--resume') opts.resume = value;
    else if (own[i] === '--set') {
      const match = /^(\d+):([^=]+)=(.*)$/.exec(value);
      if (!match) throw new UsageError(`--set wants <turn>:<configId>=<value>, got ${value}`);
      opts.set.push({ beforeTurn: Number(match[1]), configId: match[2], value: match[3] });
    } else throw new UsageError(`unknown argument ${own[i]}`);
    i++;
  }
  if (!opts.scenario || !SCENARIOS[opts.scenario]) throw new UsageError(`--scenario must be one of ${Object.keys(SCENARIOS).join(', ')}`);
  if (opts.load !== null && opts.resume !== null) throw new UsageError('--load and --resume exclude each other');
  if (command.length === 0) throw new UsageError('no agent command after --');
  if (!(opts.timeoutMs > 0)) throw new UsageError('--timeout-ms must be a positive number');
  return { ...opts, command };
}

// ---------------------------------------------------------------- recording

const record = {
  initialize: null,
  authenticate: null,
  sessionNew: null,
  sessionLoad: null,
  sessionResume: null,
  sessionList: null,
  sessionClose: null,
  setConfigOptions: [],
  turns: [],
  outOfTurnUpdates: [],
  logs: [],
  agentExit: null,
};
let currentTurn = null; // the turn whose session/prompt is pending
const log = (entry) => record.logs.push({ ...entry, turn: currentTurn ? currentTurn.index : null });
const turnRecord = (turn, outcome) => ({
  prompt: turn.prompt,
  ...outcome,
  ...(turn.cancelSentAfterUpdates === undefined ? {} : { cancelSentAfterUpdates: turn.cancelSentAfterUpdates }),
  updates: turn.updates,
  permissions: turn.permissions,
});

const plain = (value) => {
  if (value instanceof RequestError) return { code: value.code, message: value.message, data: value.data };
  if (value instanceof Error) return { name: value.name, message: value.message };
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    return String(value);
  }
};

// The SDK reports with console.*; stdout must stay the one JSON object, so capture all of it.
for (const level of ['error', 'warn', 'log', 'info', 'debug']) {
  console[level] = (...args) => {
    log({ source: 'console', level, args: args.map(plain) });
    process.stderr.write(
      `acp-client [sdk console.${level}] ${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(plain(a)))).join(' ')}\n`,
    );
  };
}
process.on('unhandledRejection', (reason) => log({ source: 'unhandledRejection', error: plain(reason) }));

// The SDK's own zod schemas (same module instance as the SDK's: same file URL). Not a public
// export, so they are optional: without them only the SDK's console output shows a rejection.
let zod = null;
try {
  zod = await import(new URL('../schema/zod.gen.js', import.meta.resolve('@agentclientprotocol/sdk')).href);
} catch (error) {
  log({ source: 'harness', message: `SDK zod schemas not loadable, no validation diagnostics: ${error.message}` });
}
const INBOUND_SCHEMAS = {
  'session/update': 'zSessionNotification',
  'session/request_permission': 'zRequestPermissionRequest',
};
const RESPONSE_SCHEMAS = {
  initialize: 'zInitializeResponse',
  authenticate: 'zAuthenticateResponse',
  'session/close': 'zCloseSessionResponse',
  'session/new': 'zNewSessionResponse',
  'session/load': 'zLoadSessionResponse',
  'session/set_config_option': 'zSetSessionConfigOptionResponse',
  'session/resume': 'zResumeSessionResponse',
  'session/list': 'zListSessionsResponse',
  'session/prompt': 'zPromptResponse',
};

/**
 * zod issues, short: `{ path, message }` each. In a union, the variants whose tag (a literal
 * such as `sessionUpdate`) does not match are left out, so the issues are the matching
 * variant's; when no variant's tag matches, one issue lists the tags expected.
 */
function issuesOf(issues, prefix = []) {
  const out = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code !== 'invalid_union' || !Array.isArray(issue.errors) || issue.errors.length === 0) {
      out.push({ path: path.join('.'), message: issue.message });
      continue;
    }
    const tagMiss = (e) => e.code === 'invalid_value' && e.path.length <= 1;
    const matching = issue.errors.filter((branch) => !branch.some(tagMiss));
    if (matching.length > 0) {
      const fewest = matching.reduce((a, b) => (b.length < a.length ? b : a));
      out.push(...issuesOf(fewest, path));
    } else {
      const tags = {};
      for (const e of issue.errors.flat().filter(tagMiss)) for (const v of e.values) (tags[e.path[0] ?? ''] ??= new Set()).add(v);
      const expected = Object.entries(tags).map(([key, values]) => `${key ? `${key} ` : ''}one of ${[...values].join(', ')}`);
      out.push({ path: path.join('.'), message: `no variant matches: expected ${expected.join('; ')}` });
    }
  }
  return out;
}

/** Deep equality of JSON values, a missing key equal to an undefined one. */
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (!same(a[key], b[key])) return false;
  return true;
}

const sentRequests = new Map(); // id -> method, of the requests this client sent

/** Every message from the agent, before the SDK sees it. */
function inspectInbound(message) {
  if (!zod || typeof message !== 'object' || message === null) return;
  if (typeof message.method === 'string') {
    const schema = zod[INBOUND_SCHEMAS[message.method]];
    if (!schema) return;
    const result = schema.safeParse(message.params ?? {});
    if (!result.success)
      log({
        source: 'validation',
        problem: 'rejected',
        method: message.method,
        id: message.id,
        issues: issuesOf(result.error.issues),
        raw: message.params,
      });
    else if (!same(plain(result.data), message.params))
      log({
        source: 'validation',
        problem: 'altered',
        method: message.method,
        id: message.id,
        raw: message.params,
        parsed: plain(result.data),
      });
  } else if ('id' in message && sentRequests.has(message.id)) {
    const method = sentRequests.get(message.id);
    sentRequests.delete(message.id);
    const schema = zod[RESPONSE_SCHEMAS[method]];
    if (!schema || !('result' in message)) return;
    const result = schema.safeParse(message.result);
    if (!result.success) log({ source: 'response-check', method, issues: issuesOf(result.error.issues), raw: message.result });
  }
}

/** Every line the SDK writes to the agent. */
function inspectOutbound(bytes) {
  for (const line of new TextDecoder().decode(bytes).split('\n')) {
    if (!line.trim()) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof message.method === 'string' && 'id' in message) sentRequests.set(message.id, message.method);
    else if (!('method' in message) && message.error) log({ source: 'sdk-reply', message });
  }
}

// ---------------------------------------------------------------- the agent process and its stream

/** stdout as a web stream whose cancel (the SDK closing) stops reading but keeps draining the pipe. */
function readableOf(stdout) {
  let open = true;
  return new ReadableStream({
    start(controller) {
      stdout.on('data', (chunk) => open && controller.enqueue(new Uint8Array(chunk)));
      stdout.on('end', () => open && ((open = false), controller.close()));
      stdout.on('error', (error) => open && ((open = false), controller.error(error)));
    },
    cancel() {
      open = false;
    },
  });
}

/** stdin as a web stream; closing it is left to the end of the run (child.stdin.end()). */
function writableOf(stdin) {
  return new WritableStream({
    write(chunk) {
      inspectOutbound(chunk);
      return new Promise((resolve, reject) => stdin.write(chunk, (error) => (error ? reject(error) : resolve())));
    },
  });
}

function waitForExit(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stopAgent(child) {
  if (!child.stdin.destroyed) child.stdin.end();
  if (await waitForExit(child, EXIT_GRACE_MS)) return;
  log({ source: 'harness', message: `agent still running ${EXIT_GRACE_MS} ms after stdin closed: SIGTERM` });
  child.kill('SIGTERM');
  if (await waitForExit(child, 3000)) return;
  child.kill('SIGKILL');
  await waitForExit(child, 3000);
}

/** The processes under `pid` (children, theirs…), as `{ pid, args }`. */
function descendants(pid) {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s(.*)$/.exec(line))
    .filter(Boolean)
    .map(([, own, parent, args]) => ({ pid: Number(own), ppid: Number(parent), args: args.trim() }));
  const found = [];
  const parents = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const entry of table)
      if (parents.has(entry.ppid) && !parents.has(entry.pid)) {
        parents.add(entry.pid);
        found.push({ pid: entry.pid, args: entry.args });
        grew = true;
      }
  }
  return found;
}

// ---------------------------------------------------------------- the run

function fail(message, child) {
  const partial = currentTurn ? { ...record, turns: [...record.turns, turnRecord(currentTurn, { pending: true })] } : record;
  process.stderr.write(`acp-client: ${message}\nacp-client: partial record: ${JSON.stringify(partial)}\n`);
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  process.exit(1);
}

/** Lets notifications that arrived with (before) a response reach their handlers. */
const settle = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const scenario = SCENARIOS[opts.scenario];
  fileUri = (name) => pathToFileURL(resolvePath(opts.cwd, name)).href;

  const child = spawn(opts.command[0], opts.command.slice(1), { cwd: opts.cwd, env: process.env, stdio: ['pipe', 'pipe', 'inherit'] });
  const spawned = new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  child.stdin.on('error', (error) => log({ source: 'harness', message: `agent stdin: ${error.message}` }));
  child.on('exit', (code, signal) => (record.agentExit = { code, signal }));
  const timer = setTimeout(() => fail(`timed out after ${opts.timeoutMs} ms`, child), opts.timeoutMs);
  await spawned.catch((error) => fail(`cannot start ${opts.command[0]}: ${error.message}`, child));

  const stream = ndJsonStream(writableOf(child.stdin), readableOf(child.stdout));
  const tapped = {
    writable: stream.writable,
    readable: stream.readable.pipeThrough(
      new TransformStream({ transform: (message, c) => (inspectInbound(message), c.enqueue(message)) }),
    ),
  };

  let sessionId = null;
  let agent = null; // the ClientContext of connectWith

  const app = client({ name: 'cli-subprocess-core-acp-client' })
    .onNotification(methods.client.session.update, async ({ params }) => {
      if (sessionId !== null && params.sessionId !== sessionId)
        log({ source: 'session', message: `update for unknown session ${params.sessionId}`, update: params.update });
      const turn = currentTurn;
      if (!turn) {
        record.outOfTurnUpdates.push({ afterTurn: record.turns.length - 1, update: params.update });
        return;
      }
      turn.updates.push(params.update);
      if (turn.spec.cancelOn && !turn.cancelled && turn.spec.cancelOn(params.update)) {
        turn.cancelled = true;
        turn.cancelSentAfterUpdates = turn.updates.length;
        await agent.notify(methods.agent.session.cancel, { sessionId: params.sessionId });
      }
    })
    .onRequest(methods.client.session.requestPermission, async ({ params }) => {
      const turn = currentTurn;
      const entry = { request: params, answeredOptionId: null };
      if (turn) turn.permissions.push(entry);
      else log({ source: 'session', message: 'session/request_permission outside a turn', request: params });
      const policy = turn?.spec.permission ?? scenario.permission ?? DEFAULT_PERMISSION;
      const optionId = turn?.cancelled
        ? null // ACP: after session/cancel, pending permission requests are answered `cancelled`
        : typeof policy === 'function'
          ? policy(params)
          : (params.options.find((option) => option.kind === policy)?.optionId ?? null);
      entry.answeredOptionId = optionId;
      if (optionId === null) return { outcome: { outcome: 'cancelled' } };
      return { outcome: { outcome: 'selected', optionId } };
    })
    .onRequest('*', ({ method, params }) => {
      log({ source: 'unhandled', kind: 'request', method, params });
      throw RequestError.methodNotFound(method);
    })
    .onNotification('*', ({ method, params }) => {
      log({ source: 'unhandled', kind: 'notification', method, params });
    });

  try {
    await app.connectWith(tapped, async (ctx) => {
      agent = ctx;
      record.initialize = await ctx.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: {
          fs: { readTextFile: false, writeTextFile: false },
          terminal: false,
          ...(scenario.terminalAuth ? { auth: { terminal: true } } : {}),
        },
        clientInfo: { name: 'cli-subprocess-core-acp-client', version: '0.1.0' },
      });
      if (scenario.authenticate) {
        // The `agent` method (the spec forbids passing a `terminal` one): its answer, or its error.
        const method = record.initialize.authMethods.find((candidate) => (candidate.type ?? 'agent') === 'agent');
        try {
          record.authenticate = { methodId: method.id, result: await ctx.request(methods.agent.authenticate, { methodId: method.id }) };
        } catch (error) {
          if (!(error instanceof RequestError)) throw error;
          record.authenticate = { methodId: method.id, error: plain(error) };
        }
      }
      if (opts.list) {
        // Every page, as an editor's history panel scrolls (a page limit guards against a cursor that never ends).
        record.sessionList = [];
        let cursor;
        do {
          const page = await ctx.request(methods.agent.session.list, { cwd: opts.cwd, ...(cursor ? { cursor } : {}) });
          record.sessionList.push(page);
          cursor = page.nextCursor ?? undefined;
        } while (cursor && record.sessionList.length < 100);
      }
      if (opts.resume !== null) {
        // No replay: any update before the first prompt is an outOfTurnUpdate with afterTurn -1.
        sessionId = opts.resume;
        record.sessionResume = await ctx.request(methods.agent.session.resume, { sessionId, cwd: opts.cwd, mcpServers: opts.mcpServers });
      } else if (opts.load === null) {
        record.sessionNew = await ctx.request(methods.agent.session.new, { cwd: opts.cwd, mcpServers: opts.mcpServers });
        sessionId = record.sessionNew.sessionId;
      } else {
        // The history the agent replays comes before its answer: outOfTurnUpdates with afterTurn -1.
        sessionId = opts.load;
        record.sessionLoad = await ctx.request(methods.agent.session.load, { sessionId, cwd: opts.cwd, mcpServers: opts.mcpServers });
      }
      await settle();

      /** The options as the agent last stated them (its answers, and its config_option_update notifications). */
      const lastOptions = () => {
        const updates = [...record.turns.flatMap((turn) => turn.updates), ...record.outOfTurnUpdates.map((entry) => entry.update)];
        const notified = updates.filter((update) => update.sessionUpdate === 'config_option_update').at(-1);
        const answered = record.setConfigOptions.filter((entry) => entry.result).at(-1)?.result;
        return (answered ?? notified ?? record.sessionNew ?? record.sessionLoad)?.configOptions ?? [];
      };
      for (const [index, spec] of scenario.turns.entries()) {
        for (const set of opts.set.filter((entry) => entry.beforeTurn === index)) {
          let value = set.value;
          if (value === '@other') {
            const option = lastOptions().find((candidate) => candidate.id === set.configId);
            value = option?.options.find((choice) => choice.value !== option.currentValue)?.value ?? '@other';
          }
          const entry = { beforeTurn: index, configId: set.configId, value };
          try {
            entry.result = await ctx.request(methods.agent.session.setConfigOption, { sessionId, configId: set.configId, value });
          } catch (error) {
            if (!(error instanceof RequestError)) throw error;
            entry.error = plain(error);
          }
          record.setConfigOptions.push(entry);
          await settle();
        }
        const prompt =
          typeof spec.prompt === 'string'
            ? [{ type: 'text', text: spec.prompt }]
            : typeof spec.prompt === 'function'
              ? spec.prompt()
              : spec.prompt;
        const turn = { index, spec, prompt, cancelled: false, cancelSentAfterUpdates: undefined, updates: [], permissions: [] };
        currentTurn = turn;
        let outcome;
        try {
          const response = await ctx.request(methods.agent.session.prompt, { sessionId, prompt });
          outcome = { stopReason: response.stopReason, response };
        } catch (error) {
          if (!(error instanceof RequestError)) throw error; // the connection is gone: fail the run
          outcome = { error: plain(error) };
        }
        await settle();
        currentTurn = null;
        record.turns.push(turnRecord(turn, outcome));
        if (scenario.closeAfterTurn === index) {
          // The agent's process tree around the close: the session's CLI (and what it started) gone once it is answered.
          const before = descendants(child.pid);
          record.sessionClose = await ctx.request(methods.agent.session.close, { sessionId });
          record.agentProcesses = { beforeClose: before, afterClose: descendants(child.pid) };
        }
      }
    });
  } catch (error) {
    await waitForExit(child, 1000); // to report how the agent ended, when it did
    const exit = record.agentExit ? ` (agent exited: code ${record.agentExit.code}, signal ${record.agentExit.signal})` : '';
    fail(
      `${error instanceof RequestError ? `${error.code} ${error.message} ${JSON.stringify(error.data)}` : (error?.message ?? error)}${exit}`,
      child,
    );
  }

  await stopAgent(child);
  clearTimeout(timer);
  process.stdout.write(`${JSON.stringify(record)}\n`, () => process.exit(0));
}

main().catch((error) => fail(error instanceof UsageError ? error.message : (error?.stack ?? String(error))));
