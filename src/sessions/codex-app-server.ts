import { obj, str } from '../providers/drafts';
import type { ProviderProfile } from '../providers/profile';
import type { JsonObject } from '../schema/json';
import { appServerProfile, newAppServerState, type AppServerState } from './codex-app-server-events';
import type { ProtocolFactory } from './protocol';

/*
 * Codex's `codex app-server` (JSON-RPC over stdio, one object a line, no "jsonrpc" field), as seen
 * on the wire with Codex 0.169.0: `initialize`, `initialized`, `thread/start`, then a `turn/start`
 * per prompt; approvals are the server's requests `item/commandExecution/requestApproval` and
 * `item/fileChange/requestApproval`, answered `{decision}`; `turn/interrupt` ends a turn.
 */

/** The server's requests this client answers as approvals; any other is refused at once (nobody would answer it). */
const APPROVAL_METHODS = new Set(['item/commandExecution/requestApproval', 'item/fileChange/requestApproval']);

export const codexAppServer: ProtocolFactory = (host, _cli, options) => {
  const state = newAppServerState();
  let nextId = 0;
  /** Our requests awaiting their answer, by id: what each asked. */
  const ours = new Map<number, string>();
  /** The thread's id once `thread/start` answered; prompts sent before wait for it. */
  let threadId: string | null = null;
  const waiting: string[] = [];
  /** The running turn's id (from `turn/start`'s answer), for `turn/interrupt`. */
  let turnId: string | null = null;
  let interruptAsked = false;

  const request = (method: string, params: JsonObject): void => {
    const id = nextId++;
    ours.set(id, method);
    host.write({ method, id, params });
  };

  const startTurn = (text: string): void => {
    turnId = null;
    request('turn/start', { threadId: threadId ?? '', input: [{ type: 'text', text, text_elements: [] }] });
  };

  const interruptTurn = (): void => {
    if (threadId === null || turnId === null) return;
    request('turn/interrupt', { threadId, turnId });
    // An interrupt alone leaves the turn's commands running (a `sleep 300` outlived it, and the next
    // turn): the thread's background terminals are cleaned with it.
    request('thread/backgroundTerminals/clean', { threadId });
  };

  /** An answer to one of our requests. */
  const answered = (line: JsonObject): void => {
    const id = typeof line.id === 'number' ? line.id : -1;
    const method = ours.get(id);
    if (method === undefined) return;
    ours.delete(id);
    const error = obj(line.error);
    if (method === 'initialize' || method === 'thread/start' || method === 'thread/resume') {
      if (error) return host.fail(`Codex refused ${method}: ${str(error.message) ?? JSON.stringify(error)}`);
      if (method !== 'initialize') {
        threadId = str(obj(obj(line.result)?.thread)?.id);
        for (const text of waiting.splice(0)) startTurn(text);
      }
    } else if (method === 'turn/start') {
      if (error) return host.fail(`Codex refused the turn: ${str(error.message) ?? JSON.stringify(error)}`);
      turnId = str(obj(obj(line.result)?.turn)?.id);
      // An interrupt asked before the turn had an id.
      if (interruptAsked) interruptTurn();
    }
  };

  /** What a line asks of the protocol (before the mapping reads it). */
  const observe = (line: JsonObject): void => {
    const method = str(line.method);
    if (method === null) return answered(line);
    // An interrupt asked for a turn that has not started yet holds until that turn is over.
    if (method === 'turn/completed') interruptAsked = false;
    if (line.id !== undefined && !APPROVAL_METHODS.has(method)) {
      host.write({ id: line.id, error: { code: -32601, message: `not supported by this client: ${method}` } });
    }
  };

  const profile: ProviderProfile<AppServerState> = {
    ...appServerProfile,
    newState: () => state,
    decode(line, current) {
      observe(line);
      return appServerProfile.decode(line, current);
    },
  };

  return {
    profile: profile as ProviderProfile,
    open() {
      // experimentalApi: `thread/backgroundTerminals/clean` (see `observe`).
      request('initialize', { clientInfo: { name: 'cli-subprocess-core', title: 'cli-subprocess-core', version: '0' }, capabilities: { experimentalApi: true, requestAttestation: false } });
      host.write({ method: 'initialized' });
      // `untrusted`: every command asks (with `on-request` a write inside the cwd runs unasked).
      const params: JsonObject = { cwd: options.cwd ?? process.cwd(), approvalPolicy: 'untrusted', sandbox: 'workspace-write' };
      if (options.model) params.model = options.model;
      if (options.resume) request('thread/resume', { ...params, threadId: options.resume });
      else request('thread/start', params);
    },
    prompt(text) {
      if (threadId === null) waiting.push(text);
      else startTurn(text);
    },
    answer(approvalId, answer) {
      state.asked.delete(approvalId);
      // `cancel` declines and ends the turn: what a withdrawn request means.
      const decision = answer === null ? 'cancel' : answer.decision === 'deny' ? 'decline' : answer.remember ? 'acceptForSession' : 'accept';
      host.write({ id: /^\d+$/.test(approvalId) ? Number(approvalId) : approvalId, result: { decision } });
    },
    interrupt() {
      interruptAsked = true;
      interruptTurn();
    },
  };
};
