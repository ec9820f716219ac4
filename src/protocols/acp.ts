import type { InitializeRequest, LoadSessionRequest, NewSessionRequest, PermissionOption, PromptRequest } from '@agentclientprotocol/sdk';
import { arr, obj, str } from '../providers/drafts';
import type { ProviderProfile } from '../providers/profile';
import type { JsonObject, JsonValue } from '../schema/json';
import { ACP_AGENT_METHODS, ACP_CLIENT_METHODS, ACP_ERRORS, PERMISSION_KINDS } from '../wire/acp';
import { JSON_RPC, JsonLinesPeer, LATER, PeerError } from '../wire/json-lines-peer';
import { acpProfile, newAcpState, type AcpQuirks, type AcpState } from './acp-events';
import { contentText, type PromptContent } from '../wire/prompt-content';
import type { CliModel, ProtocolFactory } from './protocol';

/*
 * The client side of the Agent Client Protocol, for every ACP agent CLI (`gemini --acp`,
 * `opencode acp`, `qwen --acp`, `copilot --acp`): `initialize`, `session/new` (or `session/load` to
 * resume a session of an earlier process: every one of them offers `loadSession`), a `session/prompt`
 * per turn, `session/request_permission` answered with one of the offered options (chosen by its
 * `kind`: the ids differ per agent), and `session/cancel` to end a turn. The client offers no file
 * system and no terminal, and knows no extension: every other request of the agent is refused (Qwen
 * Code's `craft/drainMidTurnQueue` must be answered, even with an error, or its turn waits).
 */

const reason = (error: unknown): string => (error instanceof PeerError ? error.message : String(error));
/**
 * A refusal's code: `auth` for ACP's "authentication required", which Qwen Code and Copilot CLI answer
 * to `session/new` when they have no credentials (OpenCode to `session/prompt`: acp-events.ts).
 */
const refusalCode = (error: unknown): 'auth' | 'execution' =>
  error instanceof PeerError && error.error.code === ACP_ERRORS.authRequired ? 'auth' : 'execution';

/** An ACP client for one CLI; `quirks` are that CLI's own (clis.ts). */
export function acpClient(quirks: AcpQuirks = {}): ProtocolFactory {
  return (host, cli, options) => {
    const state: AcpState = newAcpState(quirks);
    const peer = new JsonLinesPeer(JSON_RPC, host.write);
    // Answered by the session (`answer`), with one of the options the mapping kept (`AcpState.asked`).
    peer.onRequest(ACP_CLIENT_METHODS.requestPermission, () => LATER);
    /** The models the CLI's `session/new` (or load) answer offered, and how to choose one; settles with it. */
    let announceModels!: (models: ModelChoice | null) => void;
    const offeredModels = new Promise<ModelChoice | null>((resolve) => (announceModels = resolve));
    /** The session's id once `session/new` answered; prompts sent before wait for it. */
    let sessionId: string | null = null;
    const waiting: (readonly PromptContent[])[] = [];
    /** Whether the agent takes embedded resources (its `initialize` answer's `promptCapabilities.embeddedContext`). */
    let embeddedContext = false;
    /** An interrupt asked before the session existed: the waiting prompt is cancelled once sent. */
    let cancelWaiting = false;

    const cancel = (): void => {
      cancelWaiting = sessionId === null;
      if (sessionId !== null) peer.notify(ACP_AGENT_METHODS.sessionCancel, { sessionId });
    };

    const prompt = (content: readonly PromptContent[]): void => {
      // The blocks as given (ACP's own); an embedded resource as text (or an image) to an agent that takes none.
      const blocks = content.map((block): JsonObject => {
        if (block.type !== 'resource' || embeddedContext) return { ...block } as JsonObject;
        const text = contentText(block);
        const { resource } = block;
        return text !== null
          ? { type: 'text', text }
          : { type: 'image', mimeType: resource.mimeType ?? '', data: 'blob' in resource ? resource.blob : '' };
      });
      const params = { sessionId: sessionId ?? '', prompt: blocks } as unknown as PromptRequest;
      // Its answer ends the turn: the mapping reads it (a failed prompt is a failed turn, not the session's end).
      state.promptRequests.add(String(peer.request(ACP_AGENT_METHODS.sessionPrompt, params as JsonObject).id));
    };

    /** The session is there: the prompts that waited for it go. */
    const sessionReady = (result: JsonValue): void => {
      sessionId = str(obj(result)?.sessionId) ?? options.resume ?? null;
      announceModels(modelChoice(obj(result)));
      for (const content of waiting.splice(0)) prompt(content);
      if (cancelWaiting) cancel();
    };

    const startSession = (): void => {
      const cwd = options.cwd ?? process.cwd();
      const resume = options.resume;
      // The host's MCP servers as given (checked by the session: ACP's shapes exactly).
      const mcpServers = [...(options.mcpServers ?? [])] as NewSessionRequest['mcpServers'];
      const params: NewSessionRequest | LoadSessionRequest =
        resume === undefined ? { cwd, mcpServers } : { sessionId: resume, cwd, mcpServers };
      if (resume !== undefined) state.loading = resume;
      const sent = peer.request(resume === undefined ? ACP_AGENT_METHODS.sessionNew : ACP_AGENT_METHODS.sessionLoad, params as JsonObject);
      state.sessionRequests.add(String(sent.id));
      sent.then(sessionReady, (error: unknown) => {
        announceModels(null);
        host.fail(
          `${cli} refused ${resume === undefined ? 'a new session' : `to load session ${resume}`}: ${reason(error)}`,
          refusalCode(error),
        );
      });
    };

    // Pure: the protocol's state is shared only so the mapping knows which answers start the session and end a turn.
    const profile: ProviderProfile<AcpState> = { ...acpProfile(cli), newState: () => state };

    return {
      profile: profile as ProviderProfile,
      peer,
      open() {
        const params: InitializeRequest = {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: 'cli-subprocess-core', version: '0' },
        };
        peer.request(ACP_AGENT_METHODS.initialize, params as JsonObject).then(
          (result) => {
            embeddedContext =
              quirks.resourcesAsText !== true && obj(obj(obj(result)?.agentCapabilities)?.promptCapabilities)?.embeddedContext === true;
            startSession();
          },
          (error: unknown) => host.fail(`${cli} refused to initialize: ${reason(error)}`, refusalCode(error)),
        );
      },
      prompt(content) {
        if (sessionId === null) waiting.push(content);
        else prompt(content);
      },
      answer(approvalId, answer) {
        const asked = state.asked.get(approvalId);
        state.asked.delete(approvalId);
        const call = asked?.toolCallId ? state.tools.get(asked.toolCallId) : undefined;
        const kinds =
          answer === null
            ? []
            : answer.decision === 'deny'
              ? PERMISSION_KINDS.deny
              : answer.remember
                ? PERMISSION_KINDS.remember
                : PERMISSION_KINDS.allow;
        const chosen = pickOption(asked?.options ?? [], kinds);
        if (call && answer?.decision !== 'allow') call.denied = answer !== null;
        // No option of the kind asked (or a withdrawn request): `cancelled`, which runs nothing.
        const outcome: JsonObject = chosen === null ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: chosen };
        peer.respond(/^\d+$/.test(approvalId) ? Number(approvalId) : approvalId, { outcome });
      },
      interrupt: cancel,
      // The CLI's own model choice, as its session answer offered it: its `model` config option, else `models`.
      async setModel(model) {
        const choice = await offeredModels;
        if (choice === null || sessionId === null) throw new TypeError(`${cli} offers no model choice`);
        const params: JsonObject =
          choice.configId === null ? { sessionId, modelId: model } : { sessionId, configId: choice.configId, value: model };
        await peer.request(choice.configId === null ? ACP_AGENT_METHODS.sessionSetModel : ACP_AGENT_METHODS.sessionSetConfigOption, params);
      },
      listModels: async () => (await offeredModels)?.models ?? [],
    };
  };
}

/** The models an ACP agent offers, and the config option that chooses one (null: `session/set_model`). */
interface ModelChoice {
  readonly models: CliModel[];
  readonly configId: string | null;
}

/**
 * The model choice of a `session/new` or `session/load` answer: its config option of category
 * `model` (OpenCode, Kilo Code, Qwen Code, Cline), else its `models` (Gemini CLI); null when neither.
 */
export function modelChoice(answer: JsonObject | null): ModelChoice | null {
  const options = arr(answer?.configOptions)
    .map(obj)
    .filter((candidate) => candidate?.category === 'model' && candidate.type === 'select' && str(candidate.id) !== null);
  // Cline 3.0.65 files its `provider` option under category `model` too, before its `model` one.
  const option = options.find((candidate) => candidate?.id === 'model') ?? options[0];
  if (option) {
    // Grouped options (`SessionConfigSelectGroup`) flattened.
    const values = arr(option.options).flatMap((entry) => (obj(entry)?.group !== undefined ? arr(obj(entry)?.options) : [entry]));
    return { configId: str(option.id), models: values.flatMap((value) => listed(obj(value), 'value', option.currentValue)) };
  }
  const state = obj(answer?.models);
  if (!state) return null;
  return { configId: null, models: arr(state.availableModels).flatMap((model) => listed(obj(model), 'modelId', state.currentModelId)) };
}

/** One model of an ACP agent's list (its id under `key`), or none when it has no id. */
function listed(entry: JsonObject | null, key: string, current: JsonValue | undefined): CliModel[] {
  const id = str(entry?.[key]);
  if (!entry || id === null) return [];
  const description = str(entry.description);
  return [{ id, name: str(entry.name) ?? id, ...(description ? { description } : {}), ...(id === current ? { current: true } : {}) }];
}

/** The id of the first offered option of the first of `kinds` offered; null when none is. */
function pickOption(offered: readonly JsonValue[], kinds: readonly PermissionOption['kind'][]): string | null {
  for (const kind of kinds) {
    for (const option of offered) if (obj(option)?.kind === kind && str(obj(option)?.optionId) !== null) return str(obj(option)?.optionId);
  }
  return null;
}
