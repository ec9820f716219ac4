import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { AnyEvent, Event } from '../../events/event';
import { arr, obj, str } from '../../providers/drafts';
import { splitLines } from '../../providers/lines';
import type { JsonObject, JsonValue } from '../../schema/json';
import { startSession } from '../../sessions/session';
import { SessionTurns } from '../../sessions/turns';
import type { ApprovalPolicy, Session, SessionOptions, SessionProvider } from '../../sessions/types';
import { CLIS } from '../../clis';
import { AcpHistory, defaultAcpHistoryDir } from './history';
import { AcpProjector } from './projector';

/** Options of `serveAcpAgent`. */
export interface AcpAgentOptions {
  /** The CLI every session of this agent runs. */
  provider: SessionProvider;
  /** Session options for every session (`cwd` comes from each `session/new`). */
  session?: Omit<SessionOptions, 'provider' | 'cwd' | 'approvals' | 'onApproval'>;
  /** The agent's name and version, as `initialize` tells the client. */
  agentInfo?: { name: string; version: string };
  /**
   * Where each session's history is kept for `session/load` (see `AcpHistory`); default
   * `defaultAcpHistoryDir()`. null keeps none: the agent offers no `session/load`. A CLI that
   * cannot resume (see `SessionOptions.resume`) offers none either.
   */
  historyDir?: string | null;
}

/**
 * The agent's modes: who answers a tool call's permission (the session's approval policies).
 * `ask` sends each request to the client (`session/request_permission`).
 */
const MODES: readonly { id: ApprovalPolicy; name: string; description: string }[] = [
  { id: 'ask', name: 'Ask', description: 'Ask before each tool call the CLI asks about' },
  { id: 'allow', name: 'Allow all', description: 'Allow every tool call the CLI asks about' },
  { id: 'deny', name: 'Deny all', description: 'Deny every tool call the CLI asks about (read-only work)' },
];

/** The `modes` of a `session/new` or `session/load` answer. */
function modesOf(current: ApprovalPolicy): JsonObject {
  return { modes: { currentModeId: current, availableModes: MODES.map((mode) => ({ ...mode })) } };
}

/** JSON-RPC error codes. */
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const INTERNAL_ERROR = -32603;

/** One ACP session: the CLI's session, its turns, its projection, and who answers its approvals. */
interface AgentSession {
  readonly session: Session;
  readonly turns: SessionTurns;
  readonly projector: AcpProjector;
  mode: ApprovalPolicy;
}

/** A JSON-RPC failure answered to the client (a request the agent cannot do). */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function methodNotFound(method: string): RpcError {
  return new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
}

/**
 * An Agent Client Protocol agent over a pair of streams (the `acp` command's stdin and stdout):
 * each `session/new` starts a session of `provider`'s CLI (`startSession`), each `session/prompt` is
 * a turn whose events go to the client as `session/update`s (`AcpProjector`), the CLI's permission
 * requests go to the client as `session/request_permission` (in mode `ask`), and `session/cancel`
 * interrupts the turn. `session/load` replays a session's history (`AcpHistory`) and resumes the
 * CLI's own session. Resolves when the input ends, once every session is closed.
 */
export async function serveAcpAgent(options: AcpAgentOptions, input: Readable, output: Writable): Promise<void> {
  const sessions = new Map<string, AgentSession>();
  const canResume = CLIS[options.provider].session.resume !== null;
  const history = options.historyDir === null || !canResume ? null : new AcpHistory(options.historyDir ?? defaultAcpHistoryDir());
  /** The client's answers to our requests, by id. */
  const waiting = new Map<number, (message: JsonObject) => void>();
  let nextId = 0;

  const write = (message: JsonObject): void => {
    output.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  };

  /** Asks the client; resolves with its answer (the whole JSON-RPC message). */
  const ask = (method: string, params: JsonObject): Promise<JsonObject> => {
    const id = nextId++;
    write({ id, method, params });
    return new Promise((resolve) => waiting.set(id, resolve));
  };

  /** Sends an update of session `sessionId` to the client. */
  const notify = (sessionId: string, update: JsonObject): void => write({ method: 'session/update', params: { sessionId, update } });

  /** Starts the CLI's session for ACP session `sessionId` (`resume`: the CLI's session to continue). */
  const open = (sessionId: string, cwd: string, resume: string | undefined, projector: AcpProjector): JsonObject => {
    let session: Session;
    try {
      // Approvals are answered here (the mode, or the client): every request is `ask` for the session.
      session = startSession({ ...options.session, provider: options.provider, cwd, approvals: 'ask', resume });
    } catch (error) {
      throw new RpcError(INTERNAL_ERROR, (error as Error).message);
    }
    const agent: AgentSession = { session, turns: new SessionTurns(session), projector, mode: 'ask' };
    sessions.set(sessionId, agent);
    void session.done.then(() => {
      if (sessions.get(sessionId) === agent) sessions.delete(sessionId);
    });
    return modesOf('ask');
  };

  const sessionOf = (params: JsonObject): AgentSession => {
    const found = sessions.get(str(params.sessionId) ?? '');
    if (!found) throw new RpcError(INVALID_PARAMS, `no session ${JSON.stringify(params.sessionId)}`);
    return found;
  };

  /** A permission the CLI asks: the mode answers it, or the client does. */
  const approval = async (sessionId: string, agent: AgentSession, event: Event<'approval_requested'>): Promise<void> => {
    const id = event.payload.approval_id;
    if (id === null) return;
    if (agent.mode !== 'ask') {
      agent.session.approve(id, { decision: agent.mode, reason: `the ACP client's mode: ${agent.mode}` });
      return;
    }
    const answer = await ask('session/request_permission', { sessionId, ...agent.projector.permission(event) });
    const outcome = obj(obj(answer.result)?.outcome);
    const option = str(outcome?.optionId);
    // A cancelled request (the client's turn was cancelled, or it closed the prompt) runs nothing.
    const decision = outcome?.outcome === 'selected' && (option === 'allow_once' || option === 'allow_always') ? 'allow' : 'deny';
    agent.session.approve(id, { decision, remember: option === 'allow_always', reason: decision === 'deny' ? 'The user rejected this tool call.' : undefined });
  };

  const handlers: Record<string, (params: JsonObject) => Promise<JsonValue> | JsonValue> = {
    initialize: () => ({
      protocolVersion: 1,
      agentCapabilities: { loadSession: history !== null, promptCapabilities: { image: false, audio: false, embeddedContext: false } },
      authMethods: [],
      agentInfo: { name: options.agentInfo?.name ?? 'cli-subprocess-core', title: `cli-subprocess-core (${options.provider})`, version: options.agentInfo?.version ?? '0' },
    }),
    'session/new': (params) => {
      const sessionId = randomUUID();
      const cwd = str(params.cwd) ?? process.cwd();
      const answer = { sessionId, ...open(sessionId, cwd, undefined, new AcpProjector()) };
      // Loadable from now on, even before its first prompt.
      history?.record(sessionId, { started: { provider: options.provider, cwd } });
      return answer;
    },
    // The history replayed as updates, then the answer; the CLI resumes its own session (ACP asks
    // the agent to replay the whole conversation before it answers).
    'session/load': (params) => {
      if (!history) throw methodNotFound('session/load');
      const sessionId = str(params.sessionId) ?? '';
      const saved = history.read(sessionId);
      if (!saved) throw new RpcError(INVALID_PARAMS, `no session ${JSON.stringify(params.sessionId)} to load in ${history.dir}`);
      for (const update of saved.updates) notify(sessionId, update);
      const live = sessions.get(sessionId);
      if (live) return modesOf(live.mode);
      // A new prefix keeps the ids this projector makes apart from those of the replayed turns.
      return open(sessionId, str(params.cwd) ?? process.cwd(), saved.cliSessionId ?? undefined, new AcpProjector(`${randomUUID().slice(0, 8)}-`));
    },
    'session/set_mode': (params) => {
      const agent = sessionOf(params);
      const mode = MODES.find((candidate) => candidate.id === params.modeId);
      if (!mode) throw new RpcError(INVALID_PARAMS, `no mode ${JSON.stringify(params.modeId)}: ${MODES.map((m) => m.id).join(', ')}`);
      agent.mode = mode.id;
      return {};
    },
    'session/prompt': async (params) => {
      const sessionId = str(params.sessionId) ?? '';
      const agent = sessionOf(params);
      const text = promptText(params.prompt);
      for (const block of arr(params.prompt)) if (obj(block)) history?.record(sessionId, { update: { sessionUpdate: 'user_message_chunk', content: block } });
      for await (const event of refusedAsInvalid(agent.turns.send(text))) {
        // The CLI's own session id, which a later `session/load` resumes.
        if (event.kind === 'run_started' && event.provider_session_id) history?.record(sessionId, { cli_session_id: event.provider_session_id });
        for (const update of agent.projector.updates(event)) {
          notify(sessionId, update);
          history?.record(sessionId, { update });
        }
        if (event.kind === 'approval_requested') void approval(sessionId, agent, event);
        if (event.kind === 'result') {
          const answer = agent.projector.answer(event);
          if ('error' in answer) throw Object.assign(new RpcError(answer.error.code, answer.error.message), { data: answer.error.data });
          return answer.result;
        }
      }
      throw new RpcError(INTERNAL_ERROR, 'the session ended before the turn did');
    },
  };

  /** A request from the client: its answer, or its error. */
  const request = async (message: JsonObject): Promise<void> => {
    const method = str(message.method) ?? '';
    const handler = Object.prototype.hasOwnProperty.call(handlers, method) ? handlers[method] : undefined;
    try {
      if (!handler) throw methodNotFound(method);
      write({ id: message.id ?? null, result: await handler(obj(message.params) ?? {}) });
    } catch (error) {
      const code = error instanceof RpcError ? error.code : INTERNAL_ERROR;
      const data = (error as { data?: JsonValue }).data;
      write({ id: message.id ?? null, error: data === undefined ? { code, message: (error as Error).message } : { code, message: (error as Error).message, data } });
    }
  };

  for await (const line of splitLines(input)) {
    let message: JsonObject | null;
    try {
      message = obj(JSON.parse(line));
    } catch {
      message = null;
    }
    if (!message) {
      write({ id: null, error: { code: -32700, message: 'Parse error' } });
      continue;
    }
    if (message.method === undefined) {
      // An answer to one of our requests.
      const id = typeof message.id === 'number' ? message.id : -1;
      waiting.get(id)?.(message);
      waiting.delete(id);
    } else if (message.id === undefined) {
      // A notification: `session/cancel` interrupts the session's turn; others are ignored, as JSON-RPC says.
      if (message.method === 'session/cancel') void sessions.get(str(obj(message.params)?.sessionId) ?? '')?.session.interrupt();
    } else {
      void request(message);
    }
  }
  await Promise.all([...sessions.values()].map((agent) => agent.session.close()));
}

/**
 * A turn's events, the session's refusal of its prompt (a TypeError: a NUL byte in it) as the
 * client's mistake: INVALID_PARAMS with the refusal's message. The session goes on.
 */
async function* refusedAsInvalid(events: AsyncIterable<AnyEvent>): AsyncIterable<AnyEvent> {
  try {
    yield* events;
  } catch (error) {
    throw error instanceof TypeError ? new RpcError(INVALID_PARAMS, error.message) : error;
  }
}

/** A prompt's text: its text blocks, and its resource links and embedded resources by their URI. */
function promptText(prompt: JsonValue | undefined): string {
  return arr(prompt)
    .map((block) => {
      const content = obj(block);
      if (!content) return '';
      if (content.type === 'text') return str(content.text) ?? '';
      const uri = str(content.uri) ?? str(obj(content.resource)?.uri);
      const text = str(obj(content.resource)?.text);
      return uri === null ? '' : text === null ? `@${uri}` : `@${uri}\n${text}`;
    })
    .filter((text) => text !== '')
    .join('\n');
}
