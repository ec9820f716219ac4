import { Event, type AnyEvent } from '../events/event';
import { TrustedEventBuilder } from '../events/trusted-build';
import type { Registry } from '../registry/registry';
import type { JsonObject, JsonValue } from '../schema/json';
import { PreciseDate, toPreciseDate } from '../schema/precise-date';
import { parseLine } from '../wire/json-line';
import { finishDrafts } from '../providers/drafts';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import { detectProfile, isProviderProfile, profileFor } from './profiles';
import { assertProviderId, type ProviderId } from './provider-id';
import { shapeHoldFor, type ShapeHold } from './shape-retention';

/** How a decoded run ended, when known: the child's exit code, or the signal that ended it. */
export interface ExitInfo {
  code: number | null;
  signal: string | null;
  /** The last lines the CLI wrote to stderr, where the reason for a missing result usually is (the runner passes them). */
  stderrTail?: string;
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
  /**
   * Decoding a live stream as it is read (the runner does): a line with no time of its own is stamped
   * with the time it was read (`clock`), not with the previous line's time, which may be seconds or
   * minutes old (Claude stamps only its assistant and user lines, Codex none). Default false: a file's
   * read time says nothing about its lines, so there an untimed line takes the latest time seen.
   */
  live?: boolean;
  /**
   * Decoding a whole file (not live): its first lines with no time of their own take the time of the
   * first line that has one, rather than the time of decoding, which would put them after the
   * recording's later lines (a Claude transcript starts with its untimed `system` line). Their events
   * wait for that line (`push` gives [] for them meanwhile), at most 256 lines: past them they go out
   * with the time of decoding. `decodeLines` and the `decode` command set it; default false.
   */
  lookAhead?: boolean;
}

/** A stateful decoder of one run's stdout lines. */
export interface Decoder {
  /** The CLI being decoded (its registry id); for `'auto'`, null until a line has named it. */
  readonly provider: string | null;
  /** The session id the CLI announced so far, or null. */
  readonly sessionId: string | null;
  /**
   * Maps one stdout line to events; never throws. A blank line gives none, any other line at least
   * one, at once; with `lookAhead`, the events of a file's first lines with no time of their own wait
   * (up to 256 lines) for the first line that has one, and come out with it, stamped with its time.
   */
  push(line: string): AnyEvent[];
  /** `push` of a line its reader already parsed (wire/json-line.ts `parseLine`): `value` is undefined when the line is not JSON. */
  pushParsed(value: JsonValue | undefined, line: string): AnyEvent[];
  /**
   * What the run still owes at the end of the stream (held text, a missing result); later calls give [].
   * `owed: 'held'`: only what the decoder still holds (streamed text), for an owner that says itself
   * how the stream ended (a runner that stopped the CLI, a session). `notes`: events its owner adds
   * last, in the run's envelope (a reader's warning about lines it could not read).
   */
  end(exit?: ExitInfo, owed?: 'all' | 'held', notes?: readonly EventDraft[]): AnyEvent[];
}

/**
 * A decoder for one run of `provider` (or `'auto'`: the first JSON line recognised by
 * `detectProvider` names it). An unknown provider id is a TypeError listing the known ones.
 */
export function createDecoder(provider: ProviderId | 'auto', options: DecoderOptions = {}): Decoder {
  const id = assertProviderId(provider, true);
  return decoderFor(id === 'auto' ? null : profileFor(id), options);
}

/**
 * @internal A decoder over any profile (null: detect it with `detect`, as `'auto'` does).
 * Not exported from the package: tests use it to drive the machinery with a test profile.
 */
export function decoderFor(
  profile: ProviderProfile | null,
  options: DecoderOptions = {},
  detect: (line: JsonObject) => ProviderProfile | null = detectProfile,
): Decoder {
  checkOptions(options);
  return new LineDecoder(profile, options, detect, false);
}

/**
 * @internal The decoder of a CLI process's stdout (runs, sessions): live, and leaving the sequence
 * and the "never backwards" floor to the process, which numbers and stamps its stdout and stderr
 * events in one order (`CliProcess.emit`): its events carry sequence 0 and their line's own time,
 * else the time it was read, until the process sets them.
 */
export function processDecoder(profile: ProviderProfile, keepRaw: DecoderOptions['keepRaw']): Decoder {
  const options: DecoderOptions = { keepRaw, live: true };
  checkOptions(options);
  return new LineDecoder(profile, options, detectProfile, true);
}

const KEEP_RAW = ['all', 'unmapped', 'none'];

/** Options are the caller's, not the stream's: a wrong one is a TypeError now rather than a raw event per line later. */
function checkOptions(options: DecoderOptions): void {
  const { keepRaw, startSequence, clock, live, lookAhead } = options;
  if (keepRaw !== undefined && !KEEP_RAW.includes(keepRaw))
    throw new TypeError(`keepRaw must be one of ${KEEP_RAW.join(', ')}; got ${JSON.stringify(keepRaw)}`);
  if (startSequence !== undefined && !(Number.isSafeInteger(startSequence) && startSequence >= 0)) {
    throw new TypeError(`startSequence must be a non-negative integer; got ${String(startSequence)}`);
  }
  if (clock !== undefined && typeof clock !== 'function') throw new TypeError('clock must be a function returning a Date');
  if (live !== undefined && typeof live !== 'boolean') throw new TypeError(`live must be a boolean; got ${String(live)}`);
  if (lookAhead !== undefined && typeof lookAhead !== 'boolean')
    throw new TypeError(`lookAhead must be a boolean; got ${String(lookAhead)}`);
  if (lookAhead && live) throw new TypeError('lookAhead is for files: a live stream cannot wait for later lines');
}

/** One native line as the decoder saw it: its text, and its JSON value (the text itself when it is not JSON). */
interface Source {
  readonly text: string;
  readonly value: JsonValue;
}

/** The shapes key of a decoder still detecting its profile. */
const NO_PROFILE = {};

/** The per-run machinery every provider shares: sequence, session id, time, raw, terminal state. */
class LineDecoder implements Decoder {
  private profile: ProviderProfile | null;
  private state: unknown;
  private sequence: number;
  /** The latest time a line carried of its own. */
  private lastTime: Date | null = null;
  /**
   * Decoding a file: the events of its first lines while none had a time of its own, held back to
   * take the first time a line has (a file has no "now"; its lines' times are the recording's).
   * Null once a line had a time, past `UNTIMED_LINES`, and without the `lookAhead` option.
   */
  private waiting: AnyEvent[] | null;
  private waitingLines = 0;
  /** The timestamp of the events being built: the current line's (set by `noteLine`), else that of the lines before. */
  private stamp: Date | null = null;
  /** The default clock's last Date and its time (see `now`). */
  private nowDate: Date | null = null;
  private nowMs = 0;
  private sawResult = false;
  private ended = false;
  sessionId: string | null = null;
  /** The `keepRaw` option, read once. */
  private readonly keepRaw: 'all' | 'unmapped' | 'none';
  /** The trusted build of events in the registry in force (see `event`). */
  private readonly trusted: TrustedEventBuilder;
  /** Where the shapes of this profile's lines are held, never their data (see shape-retention.ts); null for a shadow decoder. */
  private shapes: ShapeHold | null;

  constructor(
    profile: ProviderProfile | null,
    private readonly options: DecoderOptions,
    private readonly detect: (line: JsonObject) => ProviderProfile | null,
    /** The process owning the stream numbers and floors the events (see `processDecoder`). */
    private readonly owned: boolean,
    shadow = false,
  ) {
    this.profile = profile;
    this.state = profile?.newState();
    this.sequence = options.startSequence ?? 0;
    this.waiting = options.lookAhead && !options.live ? [] : null;
    this.keepRaw = options.keepRaw ?? 'all';
    this.trusted = new TrustedEventBuilder(options.registry);
    this.shapes = shadow ? null : this.shapesOf(profile);
  }

  /** A decoder of this one's profile and options for the skeletons of its lines (see shape-retention.ts). */
  private readonly shadow = (): LineDecoder =>
    new LineDecoder(this.profile, { ...this.options, startSequence: 0 }, this.detect, this.owned, true);

  /**
   * Where the shapes of `profile`'s lines are held: only for the package's own profiles, which are
   * pure. A shadow decoder must never run another profile: a session protocol's shares its state
   * with the session and answers the CLI's requests.
   */
  private shapesOf(profile: ProviderProfile | null): ShapeHold | null {
    if (profile === null) return this.detect === detectProfile ? shapeHoldFor(NO_PROFILE) : null;
    return isProviderProfile(profile) ? shapeHoldFor(profile) : null;
  }

  /** The CLI whose lines these are (a session protocol's profile may be of a CLI that is not a `ProviderId`). */
  get provider(): string | null {
    return this.profile?.id ?? null;
  }

  push(line: string): AnyEvent[] {
    const text = typeof line === 'string' ? line : String(line);
    if (isBlank(text)) return [];
    return this.pushParsed(parseLine(text), text);
  }

  pushParsed(parsed: JsonValue | undefined, text: string): AnyEvent[] {
    if (isBlank(text)) return [];
    let events: AnyEvent[];
    if (isObject(parsed)) {
      events = this.decodeObject(text, parsed);
      this.shapes?.note(parsed, this.shadow);
    } else {
      events = this.decodeText(text, parsed);
    }
    return this.waiting === null ? events : this.untilTimed(events);
  }

  /**
   * Decoding a file, while no line had a time of its own: the events wait for the first line that
   * has one, then all take its time (a Claude transcript starts with its untimed `system` line). The
   * wait is bounded: past UNTIMED_LINES lines with no time (Codex lines never have one), the events
   * go out with the time of decoding, and later own times are raised to it, as in a file with no times.
   */
  private untilTimed(events: AnyEvent[]): AnyEvent[] {
    const waiting = this.waiting!;
    if (this.lastTime !== null) {
      this.waiting = null;
      // Every event so far, those of this line made of the lines before it too (held text), takes this line's time.
      const held = waiting.length === 0 ? events : [...waiting, ...events];
      for (const event of held) event.timestamp = copyOf(this.lastTime);
      return held;
    }
    for (const event of events) waiting.push(event);
    if (++this.waitingLines <= UNTIMED_LINES) return [];
    this.waiting = null;
    this.lastTime = this.stamp;
    return waiting;
  }

  /** A line that is not a JSON object (plain stdout text, a bare number…): held drafts are complete now. */
  private decodeText(text: string, parsed: JsonValue | undefined): AnyEvent[] {
    // Held drafts (Gemini's open text) belong to the lines before this one: they are built
    // with the envelope state as it was (session, time), before this line is noted.
    const released = this.build(this.release(null), null);
    this.stampLine(null);
    released.push(this.unmapped({ text, value: parsed === undefined ? text : parsed }));
    return released;
  }

  private decodeObject(text: string, parsed: JsonObject): AnyEvent[] {
    const source: Source = { text, value: parsed };
    if (!this.profile) this.adopt(parsed);
    const profile = this.profile;
    if (!profile) {
      this.stampLine(null);
      return [this.unmapped(source)];
    }
    // As for text: held drafts first, in the envelope of the lines before.
    const held = this.release(parsed);
    const released = held.length === 0 ? null : this.build(held, null);
    this.noteLine(profile, parsed);
    let drafts: EventDraft[];
    try {
      drafts = checkDrafts(profile.decode(parsed, this.state));
    } catch (error) {
      return append(released, this.unmapped(source, { decode_error: describe(error) }));
    }
    if (drafts.length === 0) return append(released, this.unmapped(source));
    // Most lines are one event, and no event was held: an array of one, made at its size.
    if (released === null && drafts.length === 1 && 0 in drafts) return [this.event(drafts[0], source, false)];
    return this.build(drafts, source, released ?? []);
  }

  end(exit?: ExitInfo, owed: 'all' | 'held' = 'all', notes: readonly EventDraft[] = []): AnyEvent[] {
    if (this.ended) return [];
    this.ended = true;
    const drafts = [...this.release(null)];
    this.stampLine(null);
    // A result held until the end of the stream (Cline's) is the run's result too.
    if (!this.sawResult && !drafts.some((draft) => draft.kind === 'result') && owed === 'all') drafts.push(...missingResult(exit));
    drafts.push(...notes);
    const waiting = this.waiting;
    this.waiting = null;
    // A file none of whose lines had a time: its events have the time of decoding.
    return this.build(drafts, null, waiting ?? []);
  }

  /** For `'auto'`: the first recognised line names the provider. */
  private adopt(line: JsonObject): void {
    const profile = this.detect(line);
    if (!profile) return;
    this.profile = profile;
    this.state = profile.newState();
    if (this.shapes) this.shapes = this.shapesOf(profile);
  }

  /** A line's session id and time apply to its own events and every later one. */
  private noteLine(profile: ProviderProfile, line: JsonObject): void {
    // A malformed id or time field is ignored: the line's events take the previous ones.
    try {
      const id = profile.sessionId(line);
      if (typeof id === 'string' && !isBlank(id)) this.sessionId = id;
    } catch {
      // keep the previous session id
    }
    let own: Date | null = null;
    try {
      own = toPreciseDate(profile.timestamp(line)) ?? null;
    } catch {
      // no time of its own
    }
    this.stampLine(own);
  }

  /**
   * The timestamp of a line's events (of the end's, with null): its own time when it has one. Else,
   * decoding live, the time it was read; decoding a file, the latest time a line had (the time of
   * decoding before any had one: a file's read time says nothing about its lines). Never earlier
   * than the times before it: live, than every earlier event (a CLI's clock may run behind the
   * reader's: Claude's assistant times come from the host that ran the model); in a file, than the
   * earlier lines' own times.
   */
  private stampLine(own: Date | null): void {
    if (this.owned) {
      this.stamp = own ?? this.now();
      return;
    }
    if (this.options.live) {
      this.stamp = laterOf(own ?? this.now(), this.stamp);
      return;
    }
    if (own) this.lastTime = laterOf(own, this.lastTime);
    this.stamp = this.lastTime ?? this.now();
  }

  private release(next: JsonObject | null): readonly EventDraft[] {
    if (!this.profile?.release) return NO_DRAFTS;
    try {
      return checkDrafts(this.profile.release(next, this.state));
    } catch {
      return NO_DRAFTS;
    }
  }

  /**
   * The time of decoding: the `clock` option's, else now. The default clock's Date is reused while
   * `Date.now()` is unchanged (many lines are decoded in one millisecond): it is the decoder's own,
   * never handed out (each event gets a new Date of its time), and the trusted build reads a Date it
   * was given before only once.
   */
  private now(): Date {
    const clock = this.options.clock;
    if (clock) return clock() ?? new Date();
    const ms = Date.now();
    if (ms !== this.nowMs || this.nowDate === null) {
      this.nowDate = new Date(ms);
      this.nowMs = ms;
    }
    return this.nowDate;
  }

  /** The `raw` event of a line with no normalized meaning: its payload keeps the whole line. */
  private unmapped(source: Source, metadata: JsonObject = {}): AnyEvent {
    return this.event({ kind: 'raw', payload: { stream: 'stdout', content: source.value, metadata } }, source, true);
  }

  /**
   * Events of `drafts`, added to `out`; `source` is the line they came from, or null for drafts of
   * no one line (held text, end of stream).
   */
  private build(drafts: readonly EventDraft[], source: Source | null, out: AnyEvent[] = []): AnyEvent[] {
    // A hole in a sparse answer is no draft (checkDrafts lets holes through, as `every` skips them).
    for (let i = 0; i < drafts.length; i++) if (i in drafts) out.push(this.event(drafts[i], source, false));
    return out;
  }

  /**
   * One event of a draft. The values in a draft are JSON.parse output or the profile's own, and the
   * envelope's are the decoder's: the trusted build (`events/trusted-build.ts`) applies the field
   * conventions without copying or guarding them, and the line is shared by its events' `raw`.
   * When it declines, the full parse of the same attributes answers, as for a caller's object: the
   * event, or the issues that turn the draft into a `raw` event.
   */
  private event(draft: EventDraft, source: Source | null, unmapped: boolean): AnyEvent {
    const keepRaw = this.keepRaw;
    const raw = source !== null && (keepRaw === 'all' || (keepRaw === 'unmapped' && unmapped)) ? source.value : null;
    const provider = this.profile?.id ?? null;
    const timestamp = this.stamp ?? this.now();
    // A process's decoder leaves the sequence to the process (see `processDecoder`).
    const sequence = this.owned ? 0 : this.sequence++;
    const built = this.trusted.build(draft.kind, draft.payload, provider, this.sessionId, sequence, timestamp, raw);
    if (built !== undefined) {
      if (draft.kind === 'result') this.sawResult = true;
      return built;
    }
    return this.parsed(draft, source, {
      kind: draft.kind,
      provider,
      provider_session_id: this.sessionId,
      sequence,
      timestamp,
      payload: draft.payload,
      raw,
    });
  }

  /** The event of a draft the trusted build declined, by the full parse of its attributes (`attrs`). */
  private parsed(draft: EventDraft, source: Source | null, attrs: Record<string, unknown> & { timestamp: Date }): AnyEvent {
    const registry = this.options.registry;
    const line = source?.value ?? null;
    const parsed = Event.safeParse(attrs, { registry });
    if (draft.kind === 'result' && parsed.success) this.sawResult = true;
    if (parsed.success) return parsed.data;
    // A draft the payload class refuses (a provider sent an odd value): keep what it was as raw data.
    const metadata = { draft_kind: draft.kind, decode_error: parsed.error.message };
    const fallback = Event.safeParse({ ...attrs, kind: 'raw', payload: { stream: 'stdout', content: line, metadata } }, { registry });
    if (fallback.success) return fallback.data;
    // Even that was refused (a line nested deeper than any event may be): keep the line's text.
    return Event.parse({
      kind: 'raw',
      provider: attrs.provider,
      provider_session_id: attrs.provider_session_id,
      sequence: attrs.sequence,
      timestamp: attrs.timestamp,
      payload: { stream: 'stdout', content: source?.text ?? null, metadata },
      raw: this.keepRaw === 'none' || source === null ? null : source.text,
    });
  }
}

/** `events` (null: none yet) with `event` added. */
function append(events: AnyEvent[] | null, event: AnyEvent): AnyEvent[] {
  if (events === null) return [event];
  events.push(event);
  return events;
}

/**
 * How many lines of a file may pass with no time of their own before their events go out with the
 * time of decoding (see `untilTimed`): a bounded look-ahead, so that a file with no times at all
 * (Codex) is not held whole.
 */
const UNTIMED_LINES = 256;

/** A new Date of `time` (each event has its own), keeping the text a PreciseDate was read from. */
function copyOf(time: Date): Date {
  return time instanceof PreciseDate ? new PreciseDate(time.getTime(), time.text) : new Date(time.getTime());
}

/** What a profile with nothing held releases. */
const NO_DRAFTS: readonly EventDraft[] = Object.freeze([]);

/** `time`, or `floor` when `time` is earlier: the one home of "timestamps never go backwards". */
export function laterOf(time: Date, floor: Date | null): Date {
  return floor !== null && time.getTime() < floor.getTime() ? floor : time;
}

/** How a CLI ended, for a message: "was killed by SIGTERM", "exited with code 2". */
export function describeExit(exit: { code: number | null; signal: string | null }): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${String(exit.code)}`;
}

/** The events owed when the stream ended without the provider's own terminal line. */
function missingResult(exit: ExitInfo | undefined): EventDraft[] {
  if (!exit) {
    // Decoding a file: the run may still be going, so this is only a warning.
    return finishDrafts({
      failed: true,
      severity: 'warning',
      errorCode: 'no_result',
      errorMessage: 'the stream ended without a result line',
      stop_reason: 'no_result',
    });
  }
  const metadata = { exit_code: exit.code, signal: exit.signal };
  if (exit.code === 0 && !exit.signal) return finishDrafts({ failed: false, metadata });
  const how = describeExit(exit);
  const tail = exit.stderrTail?.trim() ?? '';
  // The last thing the CLI said on stderr is usually why: it ends the message, and the tail is kept.
  const last = tail.split('\n').at(-1)?.trim() ?? '';
  return finishDrafts({
    failed: true,
    severity: 'fatal',
    errorCode: 'no_result',
    errorMessage: `the CLI ${how} without a result line${last === '' ? '' : `: ${last}`}`,
    errorMetadata: tail === '' ? metadata : { ...metadata, stderr_tail: tail },
    stop_reason: 'no_result',
    metadata,
  });
}

/** A profile's answer when it is an array of draft objects; anything else is the profile's bug, reported as one. */
function checkDrafts(drafts: unknown): EventDraft[] {
  if (!Array.isArray(drafts) || !drafts.every(isDraft)) throw new TypeError('the profile did not answer an array of drafts');
  return drafts as EventDraft[];
}

function isDraft(draft: unknown): boolean {
  return typeof draft === 'object' && draft !== null;
}

/** `text.trim() === ''`, without the builtin call for text that starts with printable ASCII (a JSON line, a session id). */
function isBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  return !(first > 32 && first < 127) && text.trim() === '';
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
