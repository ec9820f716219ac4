import { randomUUID } from 'node:crypto';
import { Event, type AnyEvent } from '../events/event';
import { describeExit, processDecoder, type Decoder } from '../providers/decoder';
import type { JsonObject } from '../schema/json';
import { CliProcess, DEFAULT_GRACE_MS, describeReason } from '../runner/cli-process';
import type { Termination } from '../runner/ending';
import { refuseNul } from '../runner/flags';
import { checkDuration, prepareLaunch } from '../runner/launch';
import { OutcomeTally } from '../runner/outcome';
import type { RunOutcome } from '../runner/types';
import { SESSION_CLIS, sessionArgv } from './clis';
import type { SessionProtocol } from './protocol';
import type { ApprovalAnswer, ApprovalRequestEvent, Session, SessionOptions, SessionProvider } from './types';
import { APPROVAL_POLICIES } from './types';

const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_INTERRUPT_TIMEOUT_MS = 15_000;

/**
 * Starts a CLI in its interactive protocol and returns the session at once; `send` a prompt to
 * start a turn, and iterate the session for its normalized events.
 *
 * Throws synchronously, before anything runs: `ExecutableNotFoundError` when the executable is
 * missing, and a TypeError for an invalid option. A spawn that fails anyway ends the stream with an
 * `error` (code `spawn_failed`) and a failed `result`.
 *
 * @example
 * const session = startSession({ provider: 'claude', onApproval: (event) => ({ decision: event.payload.subject === 'Bash' ? 'deny' : 'allow' }) });
 * void (async () => { for await (const event of session) console.log(event.kind); })();
 * await session.send('Create hello.txt.');
 * await session.send('Now delete it.'); // the same conversation
 * await session.close();
 */
export function startSession(options: SessionOptions): Session {
  const { provider } = options;
  const cli = Object.prototype.hasOwnProperty.call(SESSION_CLIS, provider) ? SESSION_CLIS[provider] : undefined;
  if (!cli) throw new TypeError(`provider must be one of ${Object.keys(SESSION_CLIS).join(', ')}; got ${JSON.stringify(provider)}`);
  checkDuration('approvalTimeoutMs', options.approvalTimeoutMs);
  checkDuration('interruptTimeoutMs', options.interruptTimeoutMs);
  checkDuration('killGraceMs', options.killGraceMs);
  checkDuration('timeoutMs', options.timeoutMs);
  checkLimit('maxCostUsd', options.maxCostUsd);
  checkLimit('maxTokens', options.maxTokens);
  if (options.approvals !== undefined && !(APPROVAL_POLICIES as readonly string[]).includes(options.approvals)) {
    throw new TypeError(`approvals must be one of ${APPROVAL_POLICIES.join(', ')}; got ${JSON.stringify(options.approvals)}`);
  }
  if (options.onApproval !== undefined && typeof options.onApproval !== 'function') throw new TypeError('onApproval must be a function');
  const args = [...sessionArgv(provider, cli, options.model, options.resume), ...(options.args ?? []).map(String)];
  for (const element of args) refuseNul('an argument', element);
  const launch = prepareLaunch(provider, options, cli);
  return new ChildSession(provider, launch.executable, args, launch.cwd, launch.env, options);
}

/** A usage limit is a non-negative number, as `checkDuration` wants of a duration. */
function checkLimit(name: string, value: number | undefined): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
    throw new TypeError(`${name} must be a non-negative number; got ${String(value)}`);
  }
}

/** A permission request waiting for its answer. */
interface Pending {
  readonly event: ApprovalRequestEvent;
  readonly timer: NodeJS.Timeout;
}

/** A turn asked for with `send`, queued or running. */
interface Turn {
  readonly prompt: string;
  readonly resolve: (result: Event<'result'>) => void;
  readonly reject: (error: Error) => void;
  /** Settles with the turn, whichever way it ends. */
  readonly over: Promise<void>;
  /** Set once `interrupt()` asked the CLI to end it: the session stops the CLI if it does not. */
  interruptTimer: NodeJS.Timeout | null;
}

const ignore = (): void => undefined;

class ChildSession extends CliProcess implements Session {
  declare readonly provider: SessionProvider;
  readonly done: Promise<RunOutcome>;

  private readonly protocol: SessionProtocol;
  private readonly decoder: Decoder;
  private readonly tally = new OutcomeTally();
  private readonly pending = new Map<string, Pending>();
  /** The CLI's own id of each pending approval, by the opaque id the session gave it. */
  private readonly nativeIds = new Map<string, string>();
  private readonly queued: Turn[] = [];
  private turn: Turn | null = null;
  /** `close()` was called (or the signal aborted): no new turn starts. */
  private closing = false;
  private closeTimer: NodeJS.Timeout | null = null;
  /** When the last turn ended (`Date.now()`), for a CLI that saves a turn after ending it. */
  private lastTurnEndedAt = 0;
  private ended = false;

  constructor(provider: SessionProvider, executable: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, private readonly options: SessionOptions) {
    super(provider, 'session', { executable, args, cwd, env, stdin: 'open', graceMs: options.killGraceMs ?? DEFAULT_GRACE_MS });
    this.protocol = SESSION_CLIS[provider].protocol({ write: (message) => this.write(message), fail: (message) => this.terminate({ message, code: 'execution', status: 'failed' }) }, provider, options);
    this.decoder = processDecoder(this.protocol.profile, options.keepRaw ?? 'none');
    this.startPumps();
    this.watchAbort(options.signal, () => void this.close());
    this.watchTimeout(options.timeoutMs);
    if (this.pid !== undefined) this.protocol.open();
    this.done = this.finish();
  }

  get sessionId(): string | null {
    return this.decoder.sessionId;
  }

  get pendingApprovals(): readonly string[] {
    return [...this.pending.keys()];
  }

  send(prompt: string): Promise<Event<'result'>> {
    if (typeof prompt !== 'string') throw new TypeError('prompt must be a string');
    try {
      refuseNul('prompt', prompt);
    } catch (error) {
      // A rejection, as for any prompt the session cannot take: that turn fails, the session goes on.
      return Promise.reject(error);
    }
    if (this.closing || this.ended || this.termination) return Promise.reject(new Error('the session is closed'));
    let resolve!: Turn['resolve'];
    let reject!: Turn['reject'];
    const result = new Promise<Event<'result'>>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // `over` handles the rejection too: a caller that does not await `send` sees no unhandled rejection.
    this.queued.push({ prompt, resolve, reject, over: result.then(ignore, ignore), interruptTimer: null });
    this.nextTurn();
    return result;
  }

  approve(approvalId: string, answer: ApprovalAnswer): boolean {
    if (typeof answer !== 'object' || answer === null || (answer.decision !== 'allow' && answer.decision !== 'deny')) {
      throw new TypeError(`an approval answer needs decision 'allow' or 'deny'; got ${JSON.stringify(answer)}`);
    }
    return this.resolveApproval(String(approvalId), answer, 'host');
  }

  interrupt(): Promise<void> {
    const turn = this.turn;
    if (!turn) return Promise.resolve();
    if (turn.interruptTimer) return turn.over;
    // The interrupt first, then the withdrawn requests' answers: the order ACP asks for (Gemini ends
    // the cancelled turn only once its pending request is answered `cancelled`).
    this.protocol.interrupt();
    this.withdrawApprovals();
    const timeoutMs = this.options.interruptTimeoutMs ?? DEFAULT_INTERRUPT_TIMEOUT_MS;
    turn.interruptTimer = setTimeout(() => this.terminate({ message: `the CLI did not end its turn within ${timeoutMs} ms of the interrupt`, code: 'aborted', status: 'aborted' }), timeoutMs);
    return turn.over;
  }

  close(): Promise<RunOutcome> {
    if (!this.closing && !this.ended) {
      this.closing = true;
      for (const turn of this.queued.splice(0)) turn.reject(new Error('the session was closed before this prompt was sent'));
      this.withdrawApprovals();
      // End of input ends the session for every protocol here; a CLI that lingers is stopped.
      const saving = Math.max(0, this.lastTurnEndedAt + (SESSION_CLIS[this.provider].savesTurnWithinMs ?? 0) - Date.now());
      this.closeTimer = setTimeout(() => {
        this.stdin?.end();
        this.closeTimer = setTimeout(() => this.stopTree(), this.graceMs);
      }, saving);
    }
    return this.done;
  }

  [Symbol.asyncIterator](): AsyncIterator<AnyEvent> {
    // Leaving the `for await` early closes the session; the loop goes on once every process is gone.
    return this.iterate(() => void this.close(), () => this.done, 'Session');
  }

  protected lineEvents(line: string): AnyEvent[] {
    const events = this.decoder.push(line);
    for (const event of events) this.opaqueApprovalId(event);
    return events;
  }

  protected currentSessionId(): string | null {
    return this.decoder.sessionId;
  }

  protected override noted(event: AnyEvent): void {
    this.tally.note(event);
    if (event.kind === 'cost_update') this.checkBudget();
    else if (event.kind === 'approval_requested') this.requested(event);
    else if (event.kind === 'approval_resolved') this.withdrawnByCli(event.payload.approval_id);
    else if (event.kind === 'result') this.turnEnded(event);
  }

  private write(message: JsonObject): void {
    this.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** Usage past `maxTokens` or `maxCostUsd` stops the CLI; a CLI that reports no price is held to its tokens only. */
  private checkBudget(): void {
    const cost = this.tally.cost;
    const { maxCostUsd, maxTokens } = this.options;
    if (!cost) return;
    let over: string | null = null;
    if (maxTokens !== undefined && cost.total_tokens > maxTokens) over = `${cost.total_tokens} tokens, over its limit of ${maxTokens}`;
    else if (maxCostUsd !== undefined && cost.cost_usd !== null && cost.cost_usd > maxCostUsd) over = `$${cost.cost_usd}, over its limit of $${maxCostUsd}`;
    if (over) this.terminate({ message: `the session's usage reached ${over}: the CLI was stopped`, code: 'budget_exceeded', status: 'failed' });
  }

  /** Starts the next queued turn when none runs (and none once the session stopped the CLI). */
  private nextTurn(): void {
    if (this.turn || this.closing || this.ended || this.termination) return;
    const turn = this.queued.shift();
    if (!turn) return;
    this.turn = turn;
    this.protocol.prompt(turn.prompt);
  }

  /** A `result` closes the running turn; its approvals still open are withdrawn. */
  private turnEnded(result: Event<'result'>): void {
    const turn = this.turn;
    if (!turn) return;
    this.turn = null;
    this.lastTurnEndedAt = Date.now();
    if (turn.interruptTimer) clearTimeout(turn.interruptTimer);
    this.withdrawApprovals();
    turn.resolve(result);
    this.nextTurn();
  }

  // ---- approvals ------------------------------------------------------------------------

  /**
   * The CLI's approval ids are guessable (JSON-RPC ids count from 0 in every run): before anyone
   * sees a request, its id becomes a random one, and only that one answers it (`approve`).
   */
  private opaqueApprovalId(event: AnyEvent): void {
    if (event.kind !== 'approval_requested' && event.kind !== 'approval_resolved') return;
    const native = event.payload.approval_id;
    if (native === null) return;
    if (event.kind === 'approval_requested') {
      const id = randomUUID();
      this.nativeIds.set(id, native);
      event.payload.approval_id = id;
      return;
    }
    // The CLI withdrew a request it asked; any other resolution (Claude's own deny names a tool call) keeps its id.
    for (const [id, asked] of this.nativeIds) if (asked === native) event.payload.approval_id = id;
  }

  private requested(event: ApprovalRequestEvent): void {
    const id = event.payload.approval_id;
    if (id === null || this.pending.has(id)) return;
    const timeoutMs = this.options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    // Unanswered is denied, never allowed: the approval is the host's security boundary.
    const timer = setTimeout(() => this.resolveApproval(id, { decision: 'deny', reason: `no answer within ${timeoutMs} ms` }, 'timeout'), timeoutMs);
    this.pending.set(id, { event, timer });
    const policy = this.options.approvals ?? 'ask';
    if (policy !== 'ask') {
      this.resolveApproval(id, { decision: policy, reason: `the session answers every request: ${policy}` }, 'policy');
      return;
    }
    const onApproval = this.options.onApproval;
    if (!onApproval) return;
    const refuse = (error: unknown) => this.resolveApproval(id, { decision: 'deny', reason: `the approval callback failed: ${describeReason(error) ?? 'unknown error'}` }, 'callback');
    try {
      void Promise.resolve(onApproval(event)).then((answer) => {
        if (answer) this.resolveApproval(id, answer, 'callback');
      }, refuse);
    } catch (error) {
      refuse(error);
    }
  }

  /** Answers a pending request and emits its `approval_resolved`; false when it is not pending. */
  private resolveApproval(id: string, answer: ApprovalAnswer | null, by: 'host' | 'callback' | 'policy' | 'timeout' | 'withdrawn'): boolean {
    const native = this.takePending(id);
    if (native === null) return false;
    if (!this.exited) this.protocol.answer(native, answer);
    const metadata: JsonObject = { answered_by: by };
    if (answer?.remember === true) metadata.remember = true;
    const decision = answer ? answer.decision : 'cancelled';
    const reason = answer ? (answer.reason ?? null) : 'the turn ended before an answer';
    this.emit([Event.create('approval_resolved', { provider: this.provider, provider_session_id: this.sessionId, payload: { approval_id: id, decision, reason, metadata } })]);
    return true;
  }

  /** Every pending request is withdrawn (the turn was interrupted or ended, the session is closing). */
  private withdrawApprovals(): void {
    for (const id of [...this.pending.keys()]) this.resolveApproval(id, null, 'withdrawn');
  }

  /** The CLI resolved a request itself (it withdrew it): it is no longer pending. */
  private withdrawnByCli(id: string | null): void {
    if (id !== null) this.takePending(id);
  }

  /** Takes approval `id` out of the pending ones: answers the CLI's own id, or null when it was not pending. */
  private takePending(id: string): string | null {
    const pending = this.pending.get(id);
    if (!pending) return null;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    const native = this.nativeIds.get(id) ?? id;
    this.nativeIds.delete(id);
    return native;
  }

  // ---- ending ---------------------------------------------------------------------------

  private async finish(): Promise<RunOutcome> {
    const { exit, spawnFailed } = await this.settle();
    this.ended = true;
    if (this.closeTimer) clearTimeout(this.closeTimer);
    // What the decoder still holds (streamed text); how the stream ended is the session's to say.
    this.emit(this.decoder.end(exit, 'held'));
    this.withdrawApprovals();
    const turn = this.turn;
    const exitMeta: Record<string, number | string | null> = spawnFailed ? {} : { exit_code: exit.code, signal: exit.signal };
    const last = this.stderrTail.at(-1)?.trim() ?? '';
    // Closed by the host, the session ended as asked (a turn it cut short was aborted); else the CLI ended by itself: a crash, a kill, or its own refusal to go on.
    const ended: Termination | null = this.closing
      ? turn
        ? { message: 'the session was closed during the turn', code: 'aborted', status: 'aborted' }
        : null
      : { message: `the CLI ${describeExit(exit)} ${turn ? 'during the turn' : 'between turns'}${last === '' ? '' : `: ${last}`}`, code: 'no_result', status: 'failed' };
    const termination = this.termination ?? ended;
    if (termination) {
      const metadata = termination === ended && termination.code === 'no_result' && this.stderrTail.length > 0 ? { ...exitMeta, stderr_tail: this.stderrTail.join('\n') } : exitMeta;
      this.emit(this.ending({ message: termination.message, code: termination.code, metadata }, turn ? termination.status : null));
    }
    // A turn the ending closed was resolved by its result above; one still here never got one.
    this.turn?.reject(new Error('the session ended during the turn'));
    this.turn = null;
    for (const queued of this.queued.splice(0)) queued.reject(new Error('the session ended before this prompt was sent'));
    this.queue.close();
    return { ...this.tally.outcome(exit, termination), status: termination?.status ?? 'completed' };
  }
}
