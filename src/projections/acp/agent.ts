import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { AnyEvent, Event } from '../../events/event';
import { arr, obj, str } from '../../providers/drafts';
import { splitLines } from '../../providers/lines';
import type { JsonObject, JsonValue } from '../../schema/json';
import { startSession } from '../../sessions/session';
import type { SessionPrompt } from '../../wire/prompt-content';
import { SessionTurns } from '../../sessions/turns';
import type { ApprovalPolicy, McpServer, Session, SessionOptions, SessionProvider } from '../../sessions/types';
import { CLIS } from '../../clis';
import { cliEnvironment } from '../../runner/environment';
import { parseLine } from '../../wire/json-line';
import { ACP_AGENT_METHODS, ACP_CLIENT_METHODS, ACP_ERRORS, type AcpAgentMethod } from '../../wire/acp';
import { INTERNAL_ERROR, JSON_RPC, JsonLinesPeer, PeerError } from '../../wire/json-lines-peer';
import { AGENT_AUTH_METHOD, authMethods, missingCredentials } from './auth';
import { AcpHistory, defaultAcpHistoryDir } from './history';
import { AcpProjector } from './projector';
import { hasCliHistory, listAcpSessions, sessionPage } from './session-list';
import { storedSession } from './stored-session';

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

/** JSON-RPC's "Invalid params": a request the agent cannot do as asked. */
const INVALID_PARAMS = -32602;
/** JSON-RPC's "Parse error": a line that is not a JSON object. */
const PARSE_ERROR = -32700;

/** One ACP session: the CLI's session (whose approval policy is the mode), its turns, its projection. */
interface AgentSession {
  readonly session: Session;
  readonly turns: SessionTurns;
  readonly projector: AcpProjector;
}

/** A JSON-RPC failure answered to the client (a request the agent cannot do). */
const rpcError = (code: number, message: string, data?: JsonValue): PeerError =>
  new PeerError(data === undefined ? { code, message } : { code, message, data });

/**
 * An Agent Client Protocol agent over a pair of streams (the `acp` command's stdin and stdout):
 * each `session/new` starts a session of `provider`'s CLI (`startSession`), each `session/prompt` is
 * a turn whose events go to the client as `session/update`s (`AcpProjector`), the CLI's permission
 * requests go to the client as `session/request_permission` (in mode `ask`), and `session/cancel`
 * interrupts the turn. `session/load` replays a session's history (`AcpHistory`) and resumes the
 * CLI's own session; `session/close` ends the CLI's process. `authMethods` and `authenticate` say and
 * check what the CLI needs to log in (`./auth`). Resolves when the input ends, once every session is closed.
 */
export async function serveAcpAgent(options: AcpAgentOptions, input: Readable, output: Writable): Promise<void> {
  const sessions = new Map<string, AgentSession>();
  /** The sessions `session/close` ended: a later request on one is refused as such. */
  const closed = new Set<string>();
  const canResume = CLIS[options.provider].session.resume !== null;
  const mcpKinds: readonly string[] = CLIS[options.provider].session.mcpServers?.kinds ?? [];
  const history = options.historyDir === null || !canResume ? null : new AcpHistory(options.historyDir ?? defaultAcpHistoryDir());
  // Where the CLI's own sessions are: the environment its sessions get (`HOME`, `CLAUDE_CONFIG_DIR`…).
  const sources = () => ({ provider: options.provider, history, env: cliEnvironment(options.provider, options.session ?? {}) });
  /** The session `session/load` (replay) or `session/resume` continues; an unknown one is the client's mistake. */
  const stored = async (sessionId: string, replay: boolean) => {
    const found = canResume ? await storedSession(sessionId, sources(), replay) : null;
    if (!found)
      throw rpcError(INVALID_PARAMS, `no session ${JSON.stringify(sessionId)} to ${replay ? 'load' : 'resume'} (see session/list)`);
    return found;
  };
  const peer = new JsonLinesPeer(JSON_RPC, (message) => output.write(`${JSON.stringify(message)}\n`));

  /** Sends an update of session `sessionId` to the client. */
  const notify = (sessionId: string, update: JsonObject): void => peer.notify(ACP_CLIENT_METHODS.sessionUpdate, { sessionId, update });

  /**
   * Starts the CLI's session for ACP session `sessionId` (`resume`: the CLI's session to continue),
   * with the client's MCP servers (`mcpServers` of its request) after the agent's own.
   */
  const open = (sessionId: string, params: JsonObject, resume: string | undefined, projector: AcpProjector): JsonObject => {
    const cwd = str(params.cwd) ?? process.cwd();
    const mcpServers = [...(options.session?.mcpServers ?? []), ...(arr(params.mcpServers) as unknown as McpServer[])];
    let session: Session;
    try {
      // The mode is the session's approval policy (`ask` sends each request to the client).
      session = startSession({ ...options.session, provider: options.provider, cwd, approvals: 'ask', resume, mcpServers });
    } catch (error) {
      // A TypeError is the session refusing an option: here, the client's MCP servers (a kind the CLI lacks, a bad name).
      throw rpcError(error instanceof TypeError ? INVALID_PARAMS : INTERNAL_ERROR, (error as Error).message);
    }
    const agent: AgentSession = { session, turns: new SessionTurns(session), projector };
    sessions.set(sessionId, agent);
    void session.done.then(() => {
      if (sessions.get(sessionId) === agent) sessions.delete(sessionId);
    });
    return modesOf('ask');
  };

  /** A loaded or resumed session (`params`: the client's request): the live one as it is, else the CLI's session `cliSessionId` resumed. */
  const continued = (sessionId: string, params: JsonObject, cliSessionId: string | null): JsonObject => {
    const live = sessions.get(sessionId);
    if (live) return modesOf(live.session.approvalPolicy);
    closed.delete(sessionId);
    // A new prefix keeps the ids this projector makes apart from those of the replayed turns.
    return open(sessionId, params, cliSessionId ?? undefined, new AcpProjector(`${randomUUID().slice(0, 8)}-`));
  };

  const sessionOf = (params: JsonObject): AgentSession => {
    const id = str(params.sessionId) ?? '';
    const found = sessions.get(id);
    if (!found && closed.has(id)) throw rpcError(INVALID_PARAMS, `session ${JSON.stringify(id)} is closed`);
    if (!found) throw rpcError(INVALID_PARAMS, `no session ${JSON.stringify(params.sessionId)}`);
    return found;
  };

  /** A permission the CLI asks that the mode left to the client (the session's policy answered the others). */
  const approval = async (sessionId: string, agent: AgentSession, event: Event<'approval_requested'>): Promise<void> => {
    const id = event.payload.approval_id;
    if (id === null || !agent.session.pendingApprovals.includes(id)) return;
    // A failed answer is no answer: a deny.
    const answer = await peer
      .request(ACP_CLIENT_METHODS.requestPermission, { sessionId, ...agent.projector.permission(event) })
      .catch(() => null);
    const outcome = obj(obj(answer)?.outcome);
    const option = str(outcome?.optionId);
    // A cancelled request (the client's turn was cancelled, or it closed the prompt) runs nothing.
    const decision = outcome?.outcome === 'selected' && (option === 'allow_once' || option === 'allow_always') ? 'allow' : 'deny';
    agent.session.approve(id, {
      decision,
      remember: option === 'allow_always',
      reason: decision === 'deny' ? 'The user rejected this tool call.' : undefined,
    });
  };

  const handlers = {
    [ACP_AGENT_METHODS.initialize]: (params) => ({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: history !== null || (canResume && hasCliHistory(options.provider)),
        // Images where the CLI takes them (its registry's `imageTypes`); embedded resources always (as text where the CLI takes none).
        promptCapabilities: { image: CLIS[options.provider].session.imageTypes.length > 0, audio: false, embeddedContext: true },
        sessionCapabilities: { close: {}, list: {}, ...(canResume ? { resume: {} } : {}) },
        // The transports the CLI takes besides stdio (its registry entry's `mcpServers`).
        mcpCapabilities: { http: mcpKinds.includes('http'), sse: mcpKinds.includes('sse') },
      },
      // A `terminal` method only for a client that can run one (the spec's rule).
      authMethods: authMethods(options.provider, obj(obj(params.clientCapabilities)?.auth)?.terminal === true),
      agentInfo: {
        name: options.agentInfo?.name ?? 'cli-subprocess-core',
        title: `cli-subprocess-core (${options.provider})`,
        version: options.agentInfo?.version ?? '0',
      },
    }),
    // The CLI logs in by itself: this checks it has what it needs, in the environment its sessions get.
    // (The `terminal` method is never passed here: the spec forbids it, and it is refused as unknown.)
    [ACP_AGENT_METHODS.authenticate]: (params) => {
      if (params.methodId !== AGENT_AUTH_METHOD)
        throw rpcError(INVALID_PARAMS, `no auth method ${JSON.stringify(params.methodId)} to authenticate with: ${AGENT_AUTH_METHOD}`);
      const missing = missingCredentials(options.provider, cliEnvironment(options.provider, options.session ?? {}));
      if (missing !== null) throw rpcError(ACP_ERRORS.authRequired, missing);
      return {};
    },
    // Cancels its turn (as `session/cancel`), then ends the CLI's process; the history stays loadable.
    [ACP_AGENT_METHODS.sessionClose]: async (params) => {
      const sessionId = str(params.sessionId) ?? '';
      const agent = sessionOf(params);
      sessions.delete(sessionId);
      closed.add(sessionId);
      await agent.session.interrupt();
      await agent.session.close();
      return {};
    },
    [ACP_AGENT_METHODS.sessionNew]: (params) => {
      const sessionId = randomUUID();
      const cwd = str(params.cwd) ?? process.cwd();
      const answer = { sessionId, ...open(sessionId, params, undefined, new AcpProjector()) };
      // Loadable from now on, even before its first prompt.
      history?.record(sessionId, { started: { provider: options.provider, cwd } });
      return answer;
    },
    // The history replayed as updates, then the answer; the CLI resumes its own session (ACP asks
    // the agent to replay the whole conversation before it answers). The session is the agent's own
    // (its `AcpHistory` record) or one the CLI stored itself (`<cli>:<id>`, see session-list.ts).
    [ACP_AGENT_METHODS.sessionLoad]: async (params) => {
      if (!history && !(canResume && hasCliHistory(options.provider)))
        throw new PeerError(JSON_RPC.methodNotFound(ACP_AGENT_METHODS.sessionLoad));
      const sessionId = str(params.sessionId) ?? '';
      const saved = await stored(sessionId, true);
      for (const update of saved.updates) notify(sessionId, update);
      return continued(sessionId, params, saved.cliSessionId);
    },
    // As `session/load`, without the replay.
    [ACP_AGENT_METHODS.sessionResume]: async (params) => {
      if (!canResume) throw new PeerError(JSON_RPC.methodNotFound(ACP_AGENT_METHODS.sessionResume));
      const sessionId = str(params.sessionId) ?? '';
      return continued(sessionId, params, (await stored(sessionId, false)).cliSessionId);
    },
    // This agent's sessions and the CLI's own, of the client's folder, newest first, a page at a time.
    [ACP_AGENT_METHODS.sessionList]: async (params) => {
      const all = await listAcpSessions({ ...sources(), cwd: str(params.cwd) ?? undefined });
      try {
        return sessionPage(all, str(params.cursor));
      } catch (error) {
        throw rpcError(INVALID_PARAMS, (error as Error).message);
      }
    },
    [ACP_AGENT_METHODS.sessionSetMode]: (params) => {
      const agent = sessionOf(params);
      const mode = MODES.find((candidate) => candidate.id === params.modeId);
      if (!mode) throw rpcError(INVALID_PARAMS, `no mode ${JSON.stringify(params.modeId)}: ${MODES.map((m) => m.id).join(', ')}`);
      agent.session.approvalPolicy = mode.id;
      return {};
    },
    [ACP_AGENT_METHODS.sessionPrompt]: async (params) => {
      const sessionId = str(params.sessionId) ?? '';
      const agent = sessionOf(params);
      for (const block of arr(params.prompt))
        if (obj(block)) history?.record(sessionId, { update: { sessionUpdate: 'user_message_chunk', content: block } });
      for await (const event of refusedAsInvalid(agent.turns.send(arr(params.prompt) as unknown as SessionPrompt))) {
        // The CLI's own session id, which a later `session/load` resumes.
        if (event.kind === 'run_started' && event.provider_session_id)
          history?.record(sessionId, { cli_session_id: event.provider_session_id });
        for (const update of agent.projector.updates(event)) {
          notify(sessionId, update);
          history?.record(sessionId, { update });
        }
        if (event.kind === 'approval_requested') void approval(sessionId, agent, event);
        if (event.kind === 'result') {
          const answer = agent.projector.answer(event);
          if ('error' in answer) throw rpcError(answer.error.code, answer.error.message, answer.error.data);
          return answer.result;
        }
      }
      // Closed meanwhile (`session/close` cancels the turn first): ACP's answer to a cancelled turn.
      if (closed.has(sessionId)) return { stopReason: 'cancelled' };
      throw rpcError(INTERNAL_ERROR, 'the session ended before the turn did');
    },
  } satisfies Partial<Record<AcpAgentMethod, (params: JsonObject) => Promise<JsonValue> | JsonValue>>;
  for (const [method, handler] of Object.entries(handlers)) peer.onRequest(method, handler);
  // `session/cancel` interrupts the session's turn; other notifications are ignored, as JSON-RPC says.
  peer.onNotification(ACP_AGENT_METHODS.sessionCancel, (params) => void sessions.get(str(params.sessionId) ?? '')?.session.interrupt());

  for await (const line of splitLines(input)) {
    const message = obj(parseLine(line) ?? null);
    if (message) peer.receive(message);
    else peer.refuse(null, { code: PARSE_ERROR, message: 'Parse error' });
  }
  await Promise.all([...sessions.values()].map((agent) => agent.session.close()));
}

/**
 * A turn's events, the session's refusal of its prompt (a TypeError: a NUL byte in it, a block the CLI cannot take) as the
 * client's mistake: INVALID_PARAMS with the refusal's message. The session goes on.
 */
async function* refusedAsInvalid(events: AsyncIterable<AnyEvent>): AsyncIterable<AnyEvent> {
  try {
    yield* events;
  } catch (error) {
    throw error instanceof TypeError ? rpcError(INVALID_PARAMS, error.message) : error;
  }
}
