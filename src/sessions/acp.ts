import { arr, obj, str } from '../providers/drafts';
import type { ProviderProfile } from '../providers/profile';
import type { JsonObject, JsonValue } from '../schema/json';
import { acpProfile, idKey, newAcpState, type AcpQuirks, type AcpState } from './acp-events';
import type { ProtocolFactory } from './protocol';

/*
 * The client side of the Agent Client Protocol, for every ACP agent CLI (`gemini --acp`,
 * `opencode acp`, `qwen --acp`, `copilot --acp`): `initialize`, `session/new` (or `session/load` to
 * resume a session of an earlier process: every one of them offers `loadSession`), a `session/prompt`
 * per turn, `session/request_permission` answered with one of the offered options (chosen by its
 * `kind`: the ids differ per agent), and `session/cancel` to end a turn. The client offers no file
 * system and no terminal: the agents use their own tools.
 */

/** The option kinds of a permission request, by what the host answered. */
const OPTION_KINDS = { allow: ['allow_once', 'allow_always'], remember: ['allow_always', 'allow_once'], deny: ['reject_once', 'reject_always'] } as const;

/** An ACP client for one CLI; `quirks` are that CLI's own (clis.ts). */
export function acpClient(quirks: AcpQuirks = {}): ProtocolFactory {
  return (host, cli, options) => {
    const state: AcpState = newAcpState(quirks);
    let nextId = 0;
    /** Our requests awaiting their answer, by id: what each asked. */
    const ours = new Map<string, string>();
    /** Permission requests by id, with their options, for the answer. */
    const options_ = new Map<string, JsonValue[]>();
    /** The session's id once `session/new` answered; prompts sent before wait for it. */
    let sessionId: string | null = null;
    const waiting: string[] = [];
    /** An interrupt asked before the session existed: the waiting prompt is cancelled once sent. */
    let cancelWaiting = false;

    const request = (method: string, params: JsonObject): string => {
      const id = nextId++;
      ours.set(String(id), method);
      host.write({ jsonrpc: '2.0', id, method, params });
      return String(id);
    };

    const cancel = (): void => {
      cancelWaiting = sessionId === null;
      if (sessionId !== null) host.write({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } });
    };

    const prompt = (text: string): void => {
      state.promptRequests.add(request('session/prompt', { sessionId: sessionId ?? '', prompt: [{ type: 'text', text }] }));
    };

    /** An answer to one of our requests: the handshake goes on, or the session cannot. */
    const answered = (line: JsonObject): void => {
      const id = idKey(line.id);
      const method = id === null ? undefined : ours.get(id);
      if (id === null || method === undefined) return;
      ours.delete(id);
      const error = obj(line.error);
      if (method === 'initialize') {
        if (error) return host.fail(`${cli} refused to initialize: ${str(error.message) ?? JSON.stringify(error)}`);
        const cwd = options.cwd ?? process.cwd();
        if (options.resume === undefined) state.sessionRequests.add(request('session/new', { cwd, mcpServers: [] }));
        else {
          state.loading = options.resume;
          state.sessionRequests.add(request('session/load', { sessionId: options.resume, cwd, mcpServers: [] }));
        }
      } else if (method === 'session/new' || method === 'session/load') {
        if (error) return host.fail(`${cli} refused ${method === 'session/new' ? 'a new session' : `to load session ${options.resume}`}: ${str(error.message) ?? JSON.stringify(error)}`);
        sessionId = str(obj(line.result)?.sessionId) ?? options.resume ?? null;
        for (const text of waiting.splice(0)) prompt(text);
        if (cancelWaiting) cancel();
      }
    };

    /** What a line asks of the protocol (before the mapping reads it). */
    const observe = (line: JsonObject): void => {
      const method = str(line.method);
      if (method === null) return answered(line);
      if (line.id === undefined) return;
      const id = idKey(line.id);
      if (method === 'session/request_permission' && id !== null) options_.set(id, arr(obj(line.params)?.options));
      // The client offers no file system or terminal, and knows no extension (Qwen Code's
      // `craft/drainMidTurnQueue` must be answered, even with an error, or its turn waits).
      else host.write({ jsonrpc: '2.0', id: line.id, error: { code: -32601, message: `Method not found: ${method}` } });
    };

    const base = acpProfile(cli);
    const profile: ProviderProfile<AcpState> = {
      ...base,
      newState: () => state,
      decode(line, current) {
        observe(line);
        return base.decode(line, current);
      },
    };

    return {
      profile: profile as ProviderProfile,
      open() {
        request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, clientInfo: { name: 'cli-subprocess-core', version: '0' } });
      },
      prompt(text) {
        if (sessionId === null) waiting.push(text);
        else prompt(text);
      },
      answer(approvalId, answer) {
        const offered = options_.get(approvalId) ?? [];
        options_.delete(approvalId);
        const toolCallId = state.asked.get(approvalId);
        state.asked.delete(approvalId);
        const call = toolCallId ? state.tools.get(toolCallId) : undefined;
        const kinds = answer === null ? [] : answer.decision === 'deny' ? OPTION_KINDS.deny : answer.remember ? OPTION_KINDS.remember : OPTION_KINDS.allow;
        const chosen = pickOption(offered, kinds);
        if (call && answer?.decision !== 'allow') call.denied = answer !== null;
        const id = /^\d+$/.test(approvalId) ? Number(approvalId) : approvalId;
        // No option of the kind asked (or a withdrawn request): `cancelled`, which runs nothing.
        const outcome: JsonObject = chosen === null ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: chosen };
        host.write({ jsonrpc: '2.0', id, result: { outcome } });
      },
      interrupt: cancel,
    };
  };
}

/** The id of the first offered option of the first of `kinds` offered; null when none is. */
function pickOption(offered: readonly JsonValue[], kinds: readonly string[]): string | null {
  for (const kind of kinds) {
    for (const option of offered) if (obj(option)?.kind === kind && str(obj(option)?.optionId) !== null) return str(obj(option)?.optionId);
  }
  return null;
}
