import type { EventKind } from '../registry/kinds';
import type { PayloadFor } from '../registry/payload-classes';
import type { JsonObject } from '../schema/json';
import type { ModelInput } from '../schema/model';

/**
 * An event a provider profile asks for: its kind and payload attributes. The decoder adds
 * the envelope (provider, session id, sequence, timestamp, raw), so a profile never does.
 */
export type EventDraft = {
  [K in EventKind]: { readonly kind: K; readonly payload: ModelInput<PayloadFor<K>> };
}[EventKind];

/**
 * What one CLI's stdout lines mean. A profile is a pure mapping: the shared machinery in
 * `decoder.ts` owns lines, JSON, sequence, session id, timestamps, `raw`, the "nothing is
 * lost" rule and the end of stream, so each provider file holds only its own format.
 */
export interface ProviderProfile<S = unknown> {
  /** The CLI's id (its registry file's), carried by every event as `provider`. */
  readonly id: string;
  /** True when a parsed JSON object line is this provider's output (`detectProvider` asks each profile). */
  detect(line: JsonObject): boolean;
  /** A fresh per-run state (open text, running usage totals, pending tool calls…). */
  newState(): S;
  /** The session id the line announces, or null. */
  sessionId(line: JsonObject): string | null;
  /** The line's own time (ISO 8601 text or epoch ms), or null when it has none. */
  timestamp(line: JsonObject): unknown;
  /**
   * Maps one JSON object line. An empty array means the line has no normalized meaning:
   * the decoder then emits it as a `raw` event, so a profile never builds raw events itself.
   * It may throw on a malformed line; the decoder turns that into a `raw` event too.
   */
  decode(line: JsonObject, state: S): EventDraft[];
  /**
   * Drafts held back until the next line shows they are complete (Gemini's assistant text
   * arrives only as deltas). Called before every line with that line, or with null before a
   * line that is not a JSON object and at the end of the stream.
   */
  release?(next: JsonObject | null, state: S): EventDraft[];
}
