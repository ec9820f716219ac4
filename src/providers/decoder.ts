import { Event, type AnyEvent } from '../events/event';
import type { Registry } from '../registry/registry';
import type { JsonObject, JsonValue } from '../schema/json';
import { toPreciseDate } from '../schema/precise-date';
import { finishDrafts } from './drafts';
import type { EventDraft, ProviderProfile } from './profile';
import { profileFor, detectProfile } from './profiles';
import { assertProviderId, type ProviderId } from './provider-id';

/** How a decoded run ended, when known: the child's exit code, or the signal that ended it. */
export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

/** Options of `createDecoder` and `decodeLines`. */
export interface DecoderOptions {
  /** Registry of payload classes for the events; `Registry.default` unless given. */
  registry?: Registry;
  /**
   * Which events carry the native line in the envelope's `raw`: `'all'` (the default), `'unmapped'`
   * (only lines with no normalized meaning) or `'none'`. A `raw` event's payload keeps the line either way.
   */
  keepRaw?: 'all' | 'unmapped' | 'none';
  /** The first event's `sequence`; default 0. */
  startSequence?: number;
  /** The time of decoding, for lines with no time of their own (tests pass a fixed clock). Default: now. */
  clock?: () => Date;
}

/** A stateful decoder of one run's stdout lines. */
export interface Decoder {
  /** The provider being decoded; for `'auto'`, null until a line has named it. */
  readonly provider: ProviderId | null;
  /** The session id the CLI announced so far, or null. */
  readonly sessionId: string | null;
  /** Maps one stdout line to events; never throws. A blank line gives none, any other line at least one. */
  push(line: string): AnyEvent[];
  /** What the run still owes at the end of the stream (held text, a missing result); later calls give []. */
  end(exit?: ExitInfo): AnyEvent[];
}

/**
 * A decoder for one run of `provider` (or `'auto'`: the first JSON line recognised by
 * `detectProvider` names it). An unknown provider id is a TypeError listing the known ones.
 */
export function createDecoder(provider: ProviderId | 'auto', options: DecoderOptions = {}): Decoder {
  const id = assertProviderId(provider, true);
  return new LineDecoder(id === 'auto' ? null : profileFor(id), options);
}

/** The per-run machinery every provider shares: sequence, session id, time, raw, terminal state. */
class LineDecoder implements Decoder {
  private profile: ProviderProfile | null;
  private state: unknown;
  private sequence: number;
  private lastTime: Date | null = null;
  private sawResult = false;
  private ended = false;
  sessionId: string | null = null;

  constructor(
    profile: ProviderProfile | null,
    private readonly options: DecoderOptions,
  ) {
    this.profile = profile;
    this.state = profile?.newState();
    this.sequence = options.startSequence ?? 0;
  }

  get provider(): ProviderId | null {
    return this.profile?.id ?? null;
  }

  push(line: string): AnyEvent[] {
    const text = typeof line === 'string' ? line : String(line);
    if (text.trim() === '') return [];
    const parsed = parseLine(text);
    if (!isObject(parsed)) {
      // Not a JSON object (plain stdout text, a bare number…): held drafts are complete now.
      const released = this.release(null);
      return [...this.build(released, null), ...this.unmapped(parsed === undefined ? text : parsed, text)];
    }
    if (!this.profile) this.adopt(parsed);
    const profile = this.profile;
    if (!profile) return this.unmapped(parsed, parsed);
    this.noteLine(profile, parsed);
    const released = this.release(parsed);
    let drafts: EventDraft[];
    try {
      drafts = profile.decode(parsed, this.state);
    } catch (error) {
      return [...this.build(released, parsed), ...this.unmapped(parsed, parsed, { decode_error: describe(error) })];
    }
    if (drafts.length === 0) return [...this.build(released, parsed), ...this.unmapped(parsed, parsed)];
    return [...this.build(released, parsed), ...this.build(drafts, parsed)];
  }

  end(exit?: ExitInfo): AnyEvent[] {
    if (this.ended) return [];
    this.ended = true;
    const drafts = this.release(null);
    if (!this.sawResult) drafts.push(...missingResult(exit));
    return this.build(drafts, null);
  }

  /** For `'auto'`: the first recognised line names the provider. */
  private adopt(line: JsonObject): void {
    const profile = detectProfile(line);
    if (!profile) return;
    this.profile = profile;
    this.state = profile.newState();
  }

  /** A line's session id and time apply to its own events and every later one. */
  private noteLine(profile: ProviderProfile, line: JsonObject): void {
    try {
      const id = profile.sessionId(line);
      if (typeof id === 'string' && id !== '') this.sessionId = id;
      const time = toPreciseDate(profile.timestamp(line));
      if (time) this.lastTime = time;
    } catch {
      // A malformed id or time field is ignored: the line's events take the previous ones.
    }
  }

  private release(next: JsonObject | null): EventDraft[] {
    if (!this.profile?.release) return [];
    try {
      return this.profile.release(next, this.state);
    } catch {
      return [];
    }
  }

  /** The `raw` event of a line with no normalized meaning: its payload keeps the whole line. */
  private unmapped(content: JsonValue, line: JsonValue, metadata: JsonObject = {}): AnyEvent[] {
    return [this.event({ kind: 'raw', payload: { stream: 'stdout', content, metadata } }, line, true)];
  }

  private build(drafts: EventDraft[], line: JsonValue): AnyEvent[] {
    return drafts.map((draft) => this.event(draft, line, false));
  }

  private event(draft: EventDraft, line: JsonValue, unmapped: boolean): AnyEvent {
    const keepRaw = this.options.keepRaw ?? 'all';
    const raw = keepRaw === 'all' || (keepRaw === 'unmapped' && unmapped) ? line : null;
    const attrs = {
      kind: draft.kind,
      provider: this.profile?.id ?? null,
      provider_session_id: this.sessionId,
      sequence: this.sequence,
      timestamp: this.lastTime ?? this.options.clock?.() ?? new Date(),
      payload: draft.payload,
      raw,
    };
    const parsed = Event.safeParse(attrs, { registry: this.options.registry });
    if (draft.kind === 'result' && parsed.success) this.sawResult = true;
    this.sequence += 1;
    if (parsed.success) return parsed.data;
    // A draft the payload class refuses (a provider sent an odd value): keep what it was as raw data.
    const fallback = Event.parse({
      ...attrs,
      kind: 'raw',
      payload: { stream: 'stdout', content: line, metadata: { draft_kind: draft.kind, decode_error: parsed.error.message } },
    });
    return fallback;
  }
}

/** The events owed when the stream ended without the provider's own terminal line. */
function missingResult(exit: ExitInfo | undefined): EventDraft[] {
  if (!exit) {
    // Decoding a file: the run may still be going, so this is only a warning.
    return finishDrafts({ failed: true, severity: 'warning', errorCode: 'no_result', errorMessage: 'the stream ended without a result line', stop_reason: 'no_result' });
  }
  const metadata = { exit_code: exit.code, signal: exit.signal };
  if (exit.code === 0 && !exit.signal) return finishDrafts({ failed: false, metadata });
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${String(exit.code)}`;
  return finishDrafts({
    failed: true,
    severity: 'fatal',
    errorCode: 'no_result',
    errorMessage: `the CLI ${how} without a result line`,
    stop_reason: 'no_result',
    metadata,
  });
}

/** The parsed line, or undefined when it is not JSON. */
function parseLine(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unprintable error';
  }
}
