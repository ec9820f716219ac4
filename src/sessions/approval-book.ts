import { randomUUID } from 'node:crypto';
import type { AnyEvent } from '../events/event';
import { describeReason } from '../runner/cli-process';
import type { ApprovalAnswer, ApprovalPolicy, ApprovalRequestEvent, SessionOptions } from './types';

/** Who answered an approval (the `answered_by` of its `approval_resolved`). */
export type AnsweredBy = 'host' | 'callback' | 'policy' | 'timeout' | 'withdrawn';

/** What the book needs of the session it keeps the approvals of. */
export interface ApprovalBookHost {
  /** Unanswered requests are denied after this long. */
  readonly timeoutMs: number;
  readonly onApproval?: SessionOptions['onApproval'];
  /** Sends the answer to the CLI under its own id (null: the request is withdrawn). */
  answer(nativeId: string, answer: ApprovalAnswer | null): void;
  /** The request is over: the session says so (`approval_resolved`). */
  resolved(id: string, answer: ApprovalAnswer | null, by: AnsweredBy): void;
}

/** A permission request waiting for its answer. */
interface Pending {
  readonly native: string;
  readonly timer: NodeJS.Timeout;
}

/**
 * The permission requests of one session, the one place they are kept: each is answered once, by
 * the host, the callback, the policy, or the timeout (a deny: unanswered is never allowed, the
 * approval is the host's security boundary), or withdrawn (the turn was interrupted or ended, the
 * session is closing, or the CLI withdrew it). The policy (`ask`, `allow`, `deny`) may change
 * while the session runs (the ACP agent's modes); a change answers the requests asked from then on.
 */
export class ApprovalBook {
  private readonly pending = new Map<string, Pending>();
  /** The CLI's own id of each request, by the opaque id the book gave it, until it is asked. */
  private readonly labelled = new Map<string, string>();

  constructor(
    private readonly host: ApprovalBookHost,
    public policy: ApprovalPolicy = 'ask',
  ) {}

  /** The ids still waiting for an answer, oldest first. */
  get ids(): string[] {
    return [...this.pending.keys()];
  }

  /**
   * The CLI's approval ids are guessable (JSON-RPC ids count from 0 in every run): before anyone
   * sees a request, its id becomes a random one, and only that one answers it. A CLI's withdrawal of
   * a request names it by that id too; any other resolution (Claude's own deny names a tool call) keeps its id.
   */
  label(event: AnyEvent): void {
    if (event.kind !== 'approval_requested' && event.kind !== 'approval_resolved') return;
    const native = event.payload.approval_id;
    if (native === null) return;
    if (event.kind === 'approval_requested') {
      const id = randomUUID();
      this.labelled.set(id, native);
      event.payload.approval_id = id;
      return;
    }
    for (const [id, asked] of this.labelled) if (asked === native) event.payload.approval_id = id;
    for (const [id, asked] of this.pending) if (asked.native === native) event.payload.approval_id = id;
  }

  /** A request (as `label` named it) waits for its answer: the policy, the callback or the host's. */
  ask(event: ApprovalRequestEvent): void {
    const id = event.payload.approval_id;
    if (id === null || this.pending.has(id)) return;
    const native = this.labelled.get(id) ?? id;
    this.labelled.delete(id);
    const timeoutMs = this.host.timeoutMs;
    const timer = setTimeout(
      () => this.resolve(id, { decision: 'deny', reason: `no answer within ${timeoutMs} ms` }, 'timeout'),
      timeoutMs,
    );
    this.pending.set(id, { native, timer });
    if (this.policy !== 'ask') {
      this.resolve(id, { decision: this.policy, reason: `the session answers every request: ${this.policy}` }, 'policy');
      return;
    }
    const onApproval = this.host.onApproval;
    if (!onApproval) return;
    const refuse = (error: unknown) =>
      this.resolve(
        id,
        { decision: 'deny', reason: `the approval callback failed: ${describeReason(error) ?? 'unknown error'}` },
        'callback',
      );
    try {
      void Promise.resolve(onApproval(event)).then((answer) => {
        if (answer) this.resolve(id, answer, 'callback');
      }, refuse);
    } catch (error) {
      refuse(error);
    }
  }

  /** Answers a pending request (null withdraws it); false when it is not pending. */
  resolve(id: string, answer: ApprovalAnswer | null, by: AnsweredBy): boolean {
    const native = this.take(id);
    if (native === null) return false;
    this.host.answer(native, answer);
    this.host.resolved(id, answer, by);
    return true;
  }

  /** Every pending request is withdrawn. */
  withdrawAll(): void {
    for (const id of [...this.pending.keys()]) this.resolve(id, null, 'withdrawn');
  }

  /** The CLI resolved a request itself (it withdrew it): it is no longer pending, and nothing answers it. */
  withdrawnByCli(id: string | null): void {
    if (id !== null) this.take(id);
  }

  /** Takes request `id` out: its CLI's own id, or null when it was not pending. */
  private take(id: string): string | null {
    const pending = this.pending.get(id);
    if (!pending) return null;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    return pending.native;
  }
}
