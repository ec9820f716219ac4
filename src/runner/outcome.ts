import type { AnyEvent } from '../events/event';
import { UsageTotals, type UsageFigures } from '../providers/usage';
import { KINDS, type EventKind } from '../registry/kinds';
import type { Termination } from './ending';
import type { RunCost, RunOutcome, RunStatus } from './types';

/** The run's own usage `totals` add up to, as a run reports it (`RunOutcome.cost`, a queued run's record), or null when nothing was reported. */
export function runCostOf(totals: UsageTotals): RunCost | null {
  const total = totals.total;
  if (!total) return null;
  const { input_tokens, output_tokens, cache_read_input_tokens, cache_write_input_tokens, reasoning_output_tokens, cost_usd } = total;
  return {
    input_tokens,
    output_tokens,
    total_tokens: input_tokens + output_tokens,
    cache_read_input_tokens,
    cache_write_input_tokens,
    reasoning_output_tokens,
    cost_usd,
  };
}

/** Adds up a run's events as they pass: counts by kind, usage, session id, the CLI's own result. */
export class OutcomeTally {
  readonly counts = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<EventKind, number>;
  private readonly usage: UsageTotals;
  sessionId: string | null = null;
  /** The status of the last `result` event, or null while there has been none. */
  resultStatus: unknown = null;

  /** `baseline`: the session's usage before this run (a resumed session's saved total), left out of the run's own. */
  constructor(baseline: UsageFigures | null = null) {
    this.usage = new UsageTotals(baseline);
  }

  note(event: AnyEvent): void {
    this.counts[event.kind] += 1;
    if (event.provider_session_id) this.sessionId = event.provider_session_id;
    if (event.kind === 'cost_update') {
      this.usage.add(event.payload);
    } else if (event.kind === 'result') {
      this.resultStatus = event.payload.status;
    }
  }

  /** The run's own usage so far. */
  get cost(): RunCost | null {
    return runCostOf(this.usage);
  }

  /** Whether the last result so far is a completed one. */
  get completed(): boolean {
    return this.resultStatus === 'completed';
  }

  get sawResult(): boolean {
    return this.counts.result > 0;
  }

  /**
   * The outcome. The library's own termination decides the status, never the exit code (on SIGTERM
   * Gemini exits 0, Claude 143, and the Codex wrapper re-raises the signal); a CLI only cleaned up
   * after its completed result (`cleanedUp`) is completed; otherwise any sign of failure (a non-zero
   * exit, a signal, a result that is not `completed`, no result at all) makes it `failed`.
   */
  outcome(exit: { code: number | null; signal: string | null }, termination: Termination | null, cleanedUp = false): RunOutcome {
    let status: RunStatus;
    if (termination) status = termination.status;
    else if (cleanedUp) status = this.completed ? 'completed' : 'failed';
    else if (exit.code !== 0 || exit.signal !== null || this.resultStatus !== 'completed') status = 'failed';
    else status = 'completed';
    return { status, exitCode: exit.code, signal: exit.signal, sessionId: this.sessionId, counts: { ...this.counts }, cost: this.cost };
  }
}
