import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { AnyEvent, Event } from '../../events/event';
import { arr, obj, str } from '../../providers/drafts';
import { splitLines } from '../../providers/lines';
import type { JsonObject, JsonValue } from '../../schema/json';
import { startSession } from '../../sessions/session';
import type { SessionPrompt } from '../../wire/prompt-content';
import { SessionTurns } from '../../sessions/turns';
import { installedClis } from '../../sessions/installed-clis';
import type { McpServer, Session, SessionOptions, SessionProvider } from '../../sessions/types';
import { CLIS } from '../../clis';
import { cliEnvironment } from '../../runner/environment';
import { parseLine } from '../../wire/json-line';
import { ACP_AGENT_METHODS, ACP_CLIENT_METHODS, ACP_ERRORS, type AcpAgentMethod } from '../../wire/acp';
import { INTERNAL_ERROR, JSON_RPC, JsonLinesPeer, PeerError } from '../../wire/json-lines-peer';
import { AGENT_AUTH_METHOD, authMethods, missingCredentials, noCliAuthMethods, noCliFound } from './auth';
import {
  ConfigOptionError,
  configOptions,
  listedModels,
  modelChoices,
  modelSwitch,
  MODES,
  modesOf,
  MODEL_LIST_WAIT_MS,
  parseConfigChange,
  within,
  type ConfigChange,
  type SessionConfig,
} from './config-options';
import { AcpHistory, defaultAcpHistoryDir } from './history';
import { AcpProjector } from './projector';
import { hasCliHistory, listAcpSessions, sessionPage } from './session-list';
import { storedSession, type StoredSession } from './stored-session';

/** Options of `serveAcpAgent`. */
export interface AcpAgentOptions {
  /**
   * The CLI every session of this agent runs. Absent: each session offers the registry's CLIs found
   * on `PATH` as its `cli` option (`installedClis`), the first of them by default.
   */
  provider?: SessionProvider;
  /** Session options for every session (`cwd` comes from each `session/new`; `model`, `executable` and `args` only with `provider`). */
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

/** JSON-RPC's "Invalid params": a request the agent cannot do as asked. */
const INVALID_PARAMS = -32602;
/** JSON-RPC's "Parse error": a line that is not a JSON object. */
const PARSE_ERROR = -32700;

/**
 * One ACP session: the CLI's session (whose approval policy is the mode), its turns, its projection,
 * its configuration; a new CLI session replaces the first when a `cli` or resumed `model` change
 * takes effect (`restart`, at the next prompt).
 */
interface AgentSession {
  session: Session;
  turns: SessionTurns;
  readonly projector: AcpProjector;
  readonly config: SessionConfig;
  readonly cwd: string;
  /** A change waiting for the next prompt: `resume` the CLI's session (a model), or start `fresh` (a CLI). */
  restart: 'resume' | 'fresh' | null;
  /** The agent's own MCP servers, then the client's (`mcpServers` of its `session/new` or `session/load`). */
  readonly mcpServers: readonly McpServer[];
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
  // Without a provider: the CLIs on PATH (the `acp` command checked there is one).
  const clis = options.provider ? null : installedClis();
  /** A provider-less agent on a machine with no CLI: it answers `initialize` and refuses sessions, saying what to install. */
  const noCli = clis !== null && clis.length === 0;
  const defaultProvider = options.provider ?? clis?.[0] ?? 'claude';
  const canResume = CLIS[defaultProvider].session.resume !== null;
  const mcpKinds: readonly string[] = CLIS[defaultProvider].session.mcpServers?.kinds ?? [];
  const history = options.historyDir === null || !canResume ? null : new AcpHistory(options.historyDir ?? defaultAcpHistoryDir());
  /** The agent's CLIs: its one CLI, or those a provider-less agent offers (the default first). */
  const providers: readonly SessionProvider[] = clis ?? [defaultProvider];
  // Where each CLI's own sessions are: the environment its sessions get (`HOME`, `CLAUDE_CONFIG_DIR`…).
  const sources = () => ({
    providers,
    history,
    env: (provider: string) => cliEnvironment(provider as SessionProvider, options.session ?? {}),
  });
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

  /** Starts `agent`'s CLI session (`resume`: the CLI's session to continue), with its configuration. */
  const startCli = (sessionId: string, agent: AgentSession, resume: string | undefined): void => {
    const { provider, model, mode } = agent.config;
    // The command line's session options are its pinned CLI's; a provider-less agent's sessions take only the common ones.
    const { model: pinnedModel, executable, args, ...common } = options.session ?? {};
    const own = options.provider ? { executable, args } : {};
    let session: Session;
    try {
      // The mode is the session's approval policy (`ask` sends each request to the client).
      session = startSession({
        ...common,
        ...own,
        provider,
        cwd: agent.cwd,
        approvals: mode,
        resume,
        model: model ?? pinnedModel,
        mcpServers: agent.mcpServers,
      });
    } catch (error) {
      // A TypeError is the session refusing an option: here, the client's MCP servers (a kind the CLI lacks, a bad name).
      throw rpcError(error instanceof TypeError ? INVALID_PARAMS : INTERNAL_ERROR, (error as Error).message);
    }
    agent.session = session;
    agent.turns = new SessionTurns(session);
    // A session ended for a restart (one is pending) is replaced, not gone.
    void session.done.then(() => {
      if (sessions.get(sessionId) === agent && agent.session === session && agent.restart === null) sessions.delete(sessionId);
    });
  };

  /** The session's options once its CLI listed its models (Codex `model/list`); sent as an update when they changed. */
  const listModels = async (sessionId: string, agent: AgentSession, announce: () => boolean): Promise<void> => {
    const session = agent.session;
    const listed = await listedModels(session);
    if (!listed || agent.session !== session) return;
    (agent.config as { models: SessionConfig['models'] }).models = modelChoices(agent.config.provider, listed);
    // The model an ACP CLI says its session has stands for the CLI's default.
    agent.config.model ??= listed.find((model) => model.current)?.id ?? null;
    if (announce()) notify(sessionId, { sessionUpdate: 'config_option_update', configOptions: configOptions(agent.config) });
  };

  /** Starts the CLI's session for ACP session `sessionId` (`resume`: the CLI's session to continue); answers its modes and options. */
  const open = async (
    sessionId: string,
    cwd: string,
    resume: string | undefined,
    projector: AcpProjector,
    provider: SessionProvider,
    params: JsonObject,
  ): Promise<JsonObject> => {
    const config: SessionConfig = {
      provider,
      model: options.provider ? (options.session?.model ?? null) : null,
      models: modelChoices(provider, null),
      mode: 'ask',
      clis,
    };
    const mcpServers = [...(options.session?.mcpServers ?? []), ...(arr(params.mcpServers) as unknown as McpServer[])];
    const agent = { projector, config, cwd, restart: null, mcpServers } as unknown as AgentSession;
    startCli(sessionId, agent, resume);
    sessions.set(sessionId, agent);
    // The answer waits a little for the CLI's models; a list that comes later is an update.
    let answered = false;
    await within(
      listModels(sessionId, agent, () => answered),
      MODEL_LIST_WAIT_MS,
    );
    answered = true;
    return { ...modesOf(config.mode), configOptions: configOptions(config) };
  };

  /** A change of `session/set_config_option`: the mode and a running session's model at once, the rest from the next prompt. */
  const change = async (sessionId: string, agent: AgentSession, asked: ConfigChange): Promise<void> => {
    const { config } = agent;
    if (asked.option === 'mode') {
      agent.session.approvalPolicy = asked.mode;
      config.mode = asked.mode;
      notify(sessionId, { sessionUpdate: 'current_mode_update', currentModeId: asked.mode });
    } else if (asked.option === 'cli' && asked.cli !== config.provider) {
      Object.assign(config, { provider: asked.cli, model: null, models: modelChoices(asked.cli, null) });
      agent.restart = 'fresh';
    } else if (asked.option === 'model' && asked.model !== config.model) {
      if (modelSwitch(config.provider) === 'running' && agent.restart === null)
        await agent.session.setModel(asked.model).catch((error: Error) => {
          throw rpcError(INTERNAL_ERROR, `${CLIS[config.provider].name} refused the model: ${error.message}`);
        });
      else agent.restart ??= 'resume';
      config.model = asked.model;
    }
  };

  /** A change waiting for this prompt: the CLI's session ends, a new one starts (resuming it, for a model). */
  const restart = async (sessionId: string, agent: AgentSession): Promise<void> => {
    const old = agent.session;
    const resume = agent.restart === 'resume' ? (old.sessionId ?? undefined) : undefined;
    if (agent.restart === 'fresh') history?.record(sessionId, { started: { provider: agent.config.provider, cwd: agent.cwd } });
    await old.close();
    try {
      startCli(sessionId, agent, resume);
    } finally {
      agent.restart = null;
    }
    void listModels(sessionId, agent, () => true);
  };

  /**
   * A loaded or resumed session (`params`: the client's request): the live one as it is, else the
   * CLI's session resumed in the CLI it last ran (a provider-less agent: when still installed; else
   * its default CLI, afresh).
   */
  const continued = async (sessionId: string, params: JsonObject, saved: StoredSession): Promise<JsonObject> => {
    const live = sessions.get(sessionId);
    if (live) return { ...modesOf(live.config.mode), configOptions: configOptions(live.config) };
    closed.delete(sessionId);
    const provider = providers.find((id) => id === saved.provider) ?? defaultProvider;
    const resume = provider === saved.provider || saved.provider === null ? (saved.cliSessionId ?? undefined) : undefined;
    // A new prefix keeps the ids this projector makes apart from those of the replayed turns.
    return open(sessionId, str(params.cwd) ?? process.cwd(), resume, new AcpProjector(`${randomUUID().slice(0, 8)}-`), provider, params);
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
        loadSession: history !== null || (canResume && providers.some(hasCliHistory)),
        // Images where the CLI takes them (its registry's `imageTypes`); embedded resources always (as text where the CLI takes none).
        promptCapabilities: { image: CLIS[defaultProvider].session.imageTypes.length > 0, audio: false, embeddedContext: true },
        sessionCapabilities: { close: {}, list: {}, ...(canResume ? { resume: {} } : {}) },
        // The transports the CLI takes besides stdio (its registry entry's `mcpServers`).
        mcpCapabilities: { http: mcpKinds.includes('http'), sse: mcpKinds.includes('sse') },
      },
      // A `terminal` method only for a client that can run one (the spec's rule).
      authMethods: noCli ? noCliAuthMethods() : authMethods(defaultProvider, obj(obj(params.clientCapabilities)?.auth)?.terminal === true),
      agentInfo: {
        name: options.agentInfo?.name ?? 'cli-subprocess-core',
        title: `cli-subprocess-core (${options.provider ?? clis?.join(', ')})`,
        version: options.agentInfo?.version ?? '0',
      },
    }),
    // The CLI logs in by itself: this checks it has what it needs, in the environment its sessions get.
    // (The `terminal` method is never passed here: the spec forbids it, and it is refused as unknown.)
    [ACP_AGENT_METHODS.authenticate]: (params) => {
      if (params.methodId !== AGENT_AUTH_METHOD)
        throw rpcError(INVALID_PARAMS, `no auth method ${JSON.stringify(params.methodId)} to authenticate with: ${AGENT_AUTH_METHOD}`);
      const missing = noCli ? noCliFound() : missingCredentials(defaultProvider, cliEnvironment(defaultProvider, options.session ?? {}));
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
    [ACP_AGENT_METHODS.sessionNew]: async (params) => {
      if (noCli) throw rpcError(ACP_ERRORS.authRequired, noCliFound());
      const sessionId = randomUUID();
      const cwd = str(params.cwd) ?? process.cwd();
      // Loadable from now on, even before its first prompt.
      history?.record(sessionId, { started: { provider: defaultProvider, cwd } });
      return { sessionId, ...(await open(sessionId, cwd, undefined, new AcpProjector(), defaultProvider, params)) };
    },
    // The history replayed as updates, then the answer; the CLI resumes its own session (ACP asks
    // the agent to replay the whole conversation before it answers). The session is the agent's own
    // (its `AcpHistory` record) or one the CLI stored itself (`<cli>:<id>`, see session-list.ts).
    [ACP_AGENT_METHODS.sessionLoad]: async (params) => {
      if (!history && !(canResume && providers.some(hasCliHistory)))
        throw new PeerError(JSON_RPC.methodNotFound(ACP_AGENT_METHODS.sessionLoad));
      const sessionId = str(params.sessionId) ?? '';
      const saved = await stored(sessionId, true);
      for (const update of saved.updates) notify(sessionId, update);
      return continued(sessionId, params, saved);
    },
    // As `session/load`, without the replay.
    [ACP_AGENT_METHODS.sessionResume]: async (params) => {
      if (!canResume) throw new PeerError(JSON_RPC.methodNotFound(ACP_AGENT_METHODS.sessionResume));
      const sessionId = str(params.sessionId) ?? '';
      return continued(sessionId, params, await stored(sessionId, false));
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
      agent.config.mode = mode.id;
      notify(str(params.sessionId) ?? '', { sessionUpdate: 'config_option_update', configOptions: configOptions(agent.config) });
      return {};
    },
    // Values checked against the options offered: nothing a client sends reaches a CLI's command line unchecked.
    [ACP_AGENT_METHODS.sessionSetConfigOption]: async (params) => {
      const agent = sessionOf(params);
      let asked: ConfigChange;
      try {
        asked = parseConfigChange(agent.config, params.configId, params.value);
      } catch (error) {
        if (error instanceof ConfigOptionError) throw rpcError(INVALID_PARAMS, error.message);
        throw error;
      }
      await change(str(params.sessionId) ?? '', agent, asked);
      return { configOptions: configOptions(agent.config) };
    },
    [ACP_AGENT_METHODS.sessionPrompt]: async (params) => {
      const sessionId = str(params.sessionId) ?? '';
      const agent = sessionOf(params);
      if (agent.restart !== null) await restart(sessionId, agent);
      for (const block of arr(params.prompt))
        if (obj(block)) history?.record(sessionId, { update: { sessionUpdate: 'user_message_chunk', content: block } });
      /** The last error of the turn: what a session that ended before it said. */
      let ending: Event<'error'> | null = null;
      for await (const event of refusedAsInvalid(agent.turns.send(arr(params.prompt) as unknown as SessionPrompt))) {
        // The CLI's own session id, which a later `session/load` resumes.
        if (event.kind === 'run_started' && event.provider_session_id)
          history?.record(sessionId, { cli_session_id: event.provider_session_id });
        for (const update of agent.projector.updates(event)) {
          notify(sessionId, update);
          history?.record(sessionId, { update });
        }
        if (event.kind === 'approval_requested') void approval(sessionId, agent, event);
        if (event.kind === 'error') ending = event;
        if (event.kind === 'result') {
          const answer = agent.projector.answer(event);
          if ('error' in answer) throw rpcError(answer.error.code, answer.error.message, answer.error.data);
          return answer.result;
        }
      }
      // Closed meanwhile (`session/close` cancels the turn first): ACP's answer to a cancelled turn.
      if (closed.has(sessionId)) return { stopReason: 'cancelled' };
      // The session ended before the turn began, for want of credentials (Qwen Code and Copilot CLI
      // refuse the session itself): ACP's auth-required, as for a turn that failed so.
      if (ending?.payload.code === 'auth') throw rpcError(ACP_ERRORS.authRequired, ending.payload.message);
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
