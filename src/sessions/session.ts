import { Event, type AnyEvent } from '../events/event';
import { describeExit, processDecoder, type Decoder } from '../decode/decoder';
import type { JsonObject } from '../schema/json';
import { CLIS, isCliId, SESSION_CLI_IDS, type SessionSetup } from '../clis';
import { checkMcpServers } from '../clis/mcp-servers';
import { CliProcess, DEFAULT_GRACE_MS } from '../runner/cli-process';
import type { Termination } from '../runner/ending';
import { checkDuration, prepareLaunch } from '../runner/launch';
import { OutcomeTally } from '../runner/outcome';
import type { RunOutcome } from '../runner/types';
import { ApprovalBook, type AnsweredBy } from './approval-book';
import { readLine, type CliModel, type SessionProtocol } from '../protocols/protocol';
import { cliPromptParts, type CliPromptPart, type PromptContent, type SessionPrompt } from '../wire/prompt-content';
import { promptContent } from './prompt';
import { refuseNul } from '../runner/flags';
import { sessionArgv } from './session-argv';
import type { ApprovalAnswer, ApprovalPolicy, Session, SessionOptions, SessionProvider } from './types';
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
  if (!isCliId(provider, SESSION_CLI_IDS))
    throw new TypeError(`provider must be one of ${SESSION_CLI_IDS.join(', ')}; got ${JSON.stringify(provider)}`);
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
  const setup: SessionSetup = CLIS[provider].session;
  // Checked and copied once: the argv and the protocol (which passes them where the CLI takes them there) get the same.
  const mcpServers = checkMcpServers(provider, setup.mcpServers, options.mcpServers);
  const args = [...sessionArgv(provider, setup, options.model, options.resume, mcpServers), ...(options.args ?? []).map(String)];
  for (const element of args) refuseNul('an argument', element);
  const launch = prepareLaunch(provider, options);
  return new ChildSession(provider, launch.executable, args, launch.cwd, launch.env, { ...options, mcpServers });
}

/** A usage limit is a non-negative number, as `checkDuration` wants of a duration. */
function checkLimit(name: string, value: number | undefined): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
    throw new TypeError(`${name} must be a non-negative number; got ${String(value)}`);
  }
}

/** A turn asked for with `send`, queued or running. */
interface Turn {
  /** The prompt's checked blocks, and the same as text and images (see `SessionProtocol.prompt`). */
  readonly content: readonly PromptContent[];
  readonly parts: readonly CliPromptPart[];
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
  private readonly approvals: ApprovalBook;
  private readonly queued: Turn[] = [];
  private turn: Turn | null = null;
  /** `close()` was called (or the signal aborted): no new turn starts. */
  private closing = false;
  private closeTimer: NodeJS.Timeout | null = null;
  /** When the last turn ended (`Date.now()`), for a CLI that saves a turn after ending it. */
  private lastTurnEndedAt = 0;
  private ended = false;
  /** The CLI's session setup, from its registry file. */
  private readonly setup: SessionSetup;

  constructor(
    provider: SessionProvider,
    executable: string,
    args: string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
    private readonly options: SessionOptions,
  ) {
    super(provider, 'session', { executable, args, cwd, env, stdin: 'open', graceMs: options.killGraceMs ?? DEFAULT_GRACE_MS });
    this.setup = CLIS[provider].session;
    this.protocol = this.setup.protocol(
      {
        write: (message) => this.write(message),
        fail: (message, code = 'execution') => this.terminate({ message, code, status: 'failed' }),
      },
      provider,
      options,
    );
    this.approvals = new ApprovalBook(
      {
        timeoutMs: options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
        onApproval: options.onApproval,
        answer: (native, answer) => {
          if (!this.exited) this.protocol.answer(native, answer);
        },
        resolved: (id, answer, by) => this.approvalResolved(id, answer, by),
      },
      options.approvals ?? 'ask',
    );
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
    return this.approvals.ids;
  }

  get approvalPolicy(): ApprovalPolicy {
    return this.approvals.policy;
  }

  set approvalPolicy(policy: ApprovalPolicy) {
    if (!(APPROVAL_POLICIES as readonly string[]).includes(policy))
      throw new TypeError(`approvals must be one of ${APPROVAL_POLICIES.join(', ')}; got ${JSON.stringify(policy)}`);
    this.approvals.policy = policy;
  }

  send(prompt: SessionPrompt): Promise<Event<'result'>> {
    if (typeof prompt !== 'string' && !Array.isArray(prompt)) throw new TypeError('prompt must be a string or an array of content blocks');
    let content: PromptContent[];
    let parts: CliPromptPart[];
    try {
      content = promptContent(prompt);
      parts = cliPromptParts(content, this.setup.imageTypes, CLIS[this.provider].name);
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
    this.queued.push({ content, parts, resolve, reject, over: result.then(ignore, ignore), interruptTimer: null });
    this.nextTurn();
    return result;
  }

  approve(approvalId: string, answer: ApprovalAnswer): boolean {
    if (typeof answer !== 'object' || answer === null || (answer.decision !== 'allow' && answer.decision !== 'deny')) {
      throw new TypeError(`an approval answer needs decision 'allow' or 'deny'; got ${JSON.stringify(answer)}`);
    }
    return this.approvals.resolve(String(approvalId), answer, 'host');
  }

  interrupt(): Promise<void> {
    const turn = this.turn;
    if (!turn) return Promise.resolve();
    if (turn.interruptTimer) return turn.over;
    // The interrupt first, then the withdrawn requests' answers: the order ACP asks for (Gemini ends
    // the cancelled turn only once its pending request is answered `cancelled`).
    this.protocol.interrupt();
    this.approvals.withdrawAll();
    const timeoutMs = this.options.interruptTimeoutMs ?? DEFAULT_INTERRUPT_TIMEOUT_MS;
    turn.interruptTimer = setTimeout(
      () =>
        this.terminate({
          message: `the CLI did not end its turn within ${timeoutMs} ms of the interrupt`,
          code: 'aborted',
          status: 'aborted',
        }),
      timeoutMs,
    );
    return turn.over;
  }

  setModel(model: string): Promise<void> {
    if (typeof model !== 'string' || model === '') return Promise.reject(new TypeError('model must be a non-empty string'));
    try {
      refuseNul('model', model);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!this.setup.models?.switchesRunning || !this.protocol.setModel)
      return Promise.reject(
        new TypeError(`${CLIS[this.provider].name} cannot switch the model of a running session: resume it with the model`),
      );
    if (this.closing || this.ended || this.termination) return Promise.reject(new Error('the session is closed'));
    return this.protocol.setModel(model);
  }

  models(): Promise<readonly CliModel[] | null> {
    if (!this.protocol.listModels || this.closing || this.ended || this.termination) return Promise.resolve(null);
    return this.protocol.listModels();
  }

  close(): Promise<RunOutcome> {
    if (!this.closing && !this.ended) {
      this.closing = true;
      for (const turn of this.queued.splice(0)) turn.reject(new Error('the session was closed before this prompt was sent'));
      this.approvals.withdrawAll();
      // End of input ends the session for every protocol here; a CLI that lingers is stopped.
      const saving = Math.max(0, this.lastTurnEndedAt + (this.setup.savesTurnWithinMs ?? 0) - Date.now());
      this.closeTimer = setTimeout(() => {
        this.stdin?.end();
        this.closeTimer = setTimeout(() => this.stopTree(), this.graceMs);
      }, saving);
    }
    return this.done;
  }

  [Symbol.asyncIterator](): AsyncIterator<AnyEvent> {
    // Leaving the `for await` early closes the session; the loop goes on once every process is gone.
    return this.iterate(
      () => void this.close(),
      () => this.done,
      'Session',
    );
  }

  protected lineEvents(line: string): AnyEvent[] {
    const events = readLine(this.protocol, this.decoder, line);
    for (const event of events) this.approvals.label(event);
    return events;
  }

  protected currentSessionId(): string | null {
    return this.decoder.sessionId;
  }

  protected override noted(event: AnyEvent): void {
    this.tally.note(event);
    if (event.kind === 'cost_update') this.checkBudget();
    else if (event.kind === 'approval_requested') this.approvals.ask(event);
    else if (event.kind === 'approval_resolved') this.approvals.withdrawnByCli(event.payload.approval_id);
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
    else if (maxCostUsd !== undefined && cost.cost_usd !== null && cost.cost_usd > maxCostUsd)
      over = `$${cost.cost_usd}, over its limit of $${maxCostUsd}`;
    if (over)
      this.terminate({ message: `the session's usage reached ${over}: the CLI was stopped`, code: 'budget_exceeded', status: 'failed' });
  }

  /** Starts the next queued turn when none runs (and none once the session stopped the CLI). */
  private nextTurn(): void {
    if (this.turn || this.closing || this.ended || this.termination) return;
    const turn = this.queued.shift();
    if (!turn) return;
    this.turn = turn;
    this.protocol.prompt(turn.content, turn.parts);
  }

  /** A `result` closes the running turn; its approvals still open are withdrawn. */
  private turnEnded(result: Event<'result'>): void {
    const turn = this.turn;
    if (!turn) return;
    this.turn = null;
    this.lastTurnEndedAt = Date.now();
    if (turn.interruptTimer) clearTimeout(turn.interruptTimer);
    this.approvals.withdrawAll();
    turn.resolve(result);
    this.nextTurn();
  }

  // ---- approvals ------------------------------------------------------------------------

  /** Answers a pending request (the book's `resolved`): its `approval_resolved`. */
  private approvalResolved(id: string, answer: ApprovalAnswer | null, by: AnsweredBy): void {
    const metadata: JsonObject = { answered_by: by };
    if (answer?.remember === true) metadata.remember = true;
    const decision = answer ? answer.decision : 'cancelled';
    const reason = answer ? (answer.reason ?? null) : 'the turn ended before an answer';
    this.emit([
      Event.create('approval_resolved', {
        provider: this.provider,
        provider_session_id: this.sessionId,
        payload: { approval_id: id, decision, reason, metadata },
      }),
    ]);
  }

  // ---- ending ---------------------------------------------------------------------------

  private async finish(): Promise<RunOutcome> {
    const { exit, spawnFailed } = await this.settle();
    this.ended = true;
    if (this.closeTimer) clearTimeout(this.closeTimer);
    // What the decoder still holds (streamed text); how the stream ended is the session's to say.
    this.emit(this.decoder.end(exit, 'held'));
    this.approvals.withdrawAll();
    const turn = this.turn;
    const exitMeta: Record<string, number | string | null> = spawnFailed ? {} : { exit_code: exit.code, signal: exit.signal };
    const last = this.stderrTail.at(-1)?.trim() ?? '';
    // Closed by the host, the session ended as asked (a turn it cut short was aborted); else the CLI ended by itself: a crash, a kill, or its own refusal to go on.
    const ended: Termination | null = this.closing
      ? turn
        ? { message: 'the session was closed during the turn', code: 'aborted', status: 'aborted' }
        : null
      : {
          message: `the CLI ${describeExit(exit)} ${turn ? 'during the turn' : 'between turns'}${last === '' ? '' : `: ${last}`}`,
          code: 'no_result',
          status: 'failed',
        };
    const termination = this.termination ?? ended;
    if (termination) {
      const metadata =
        termination === ended && termination.code === 'no_result' && this.stderrTail.length > 0
          ? { ...exitMeta, stderr_tail: this.stderrTail.join('\n') }
          : exitMeta;
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
