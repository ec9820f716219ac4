import type { Registry } from '../registry/registry';
import { Codec, codecOf } from '../schema/codec';
import { INVALID } from '../schema/context';
import { ParseSetup, TrustedParse, trustedParserOf } from '../schema/engine';
import { FieldRule, FieldSpec, fieldsOf } from '../schema/field';
import { Invalid } from '../schema/issue';
import { EMPTY_OBJECT, type JsonValue } from '../schema/json';
import { PreciseDate } from '../schema/precise-date';
import { Event, setupFor, type AnyEvent } from './event';

/*
 * @internal The trusted build of a decoder's events (not exported from the package). A decoder
 * makes every envelope value itself (provider, session id, sequence, timestamp, the line for `raw`),
 * and a provider profile makes the payload's attributes from the line's JSON.parse output: values
 * that are JSON facts owned by nobody else, like `fromJSON`'s input. So nothing is copied or read
 * through guards, but every field convention still applies exactly as in `Event.safeParse` of the
 * same attributes: each envelope value is read by its field's rule (one that stays the same from
 * event to event, such as the provider, the session id or the line shared by a line's events, is
 * read once), the payload by its class's fast path (`trustedParserOf`: the generated parse
 * `fromJSON` runs), and the fields the decoder gives no value (the id, `metadata`) take their
 * missing-value convention, once the rest is known to be valid. When anything is not as expected,
 * the build declines (answers undefined) and the decoder runs the full parse, which answers with the
 * event or the issues: the trusted build never decides a refusal, and
 * `test/providers/trusted-build.spec.ts` checks that it builds the same events as the full parse.
 */

const NOTHING: unique symbol = Symbol('nothing');
const getTime = Date.prototype.getTime;

/** What the trusted build knows of one kind in one registry. */
interface KindEntry {
  /** The declared name. */
  readonly kind: string;
  /** The trusted build of the kind's payload class; undefined when the registry has no class for it. */
  readonly parse: TrustedParse | undefined;
}

/** Per registry setup, what the trusted build knows of each kind (module-wide: it outlives a decoder). */
const KINDS = new WeakMap<ParseSetup, Map<string, KindEntry>>();

function kindsOf(setup: ParseSetup): Map<string, KindEntry> {
  let kinds = KINDS.get(setup);
  if (!kinds) {
    kinds = new Map();
    KINDS.set(setup, kinds);
  }
  return kinds;
}

/** One envelope field the decoder gives a value: where it sits, its spec and its rule's reader. */
class Given {
  readonly spec: FieldSpec;
  readonly read: FieldRule['read'];

  constructor(
    readonly at: number,
    fields: readonly FieldSpec[],
  ) {
    this.spec = fields[at];
    this.read = this.spec.rule.read;
  }
}

function isPlainPrototype(proto: unknown): boolean {
  return proto === Object.prototype || proto === null;
}

function given(fields: readonly FieldSpec[], key: string): Given {
  const at = fields.findIndex((spec) => spec.key === key);
  if (at < 0) throw new Error(`Event has no field ${key}`);
  return new Given(at, fields);
}

/** A decoder's builder of trusted events in one registry; one per decoder (it remembers the last envelope values). */
export class TrustedEventBuilder {
  private readonly setup: ParseSetup;
  private readonly codec: Codec;
  private readonly fields: readonly FieldSpec[];
  private readonly kinds: Map<string, KindEntry>;
  private readonly kind: Given;
  private readonly provider: Given;
  private readonly session: Given;
  private readonly sequence: Given;
  private readonly timestamp: Given;
  private readonly raw: Given;
  private readonly payloadAt: number;
  /** The fields the decoder gives no value: each takes its missing-value convention (a new id, the shared empty metadata). */
  private readonly others: readonly number[];
  /** Whether each of them has a missing-value convention (a required one would make every build fail). */
  private readonly othersHaveDefaults: boolean;
  // The last value given for a field and what its rule stored (or INVALID): the provider, the
  // session id and a line's `raw` stay the same over many events, and a kind often repeats. Strings
  // are immutable, and the line is read only while its events are built, so the stored value can
  // be reused as it is.
  private kindIn: unknown = NOTHING;
  private entryOut: KindEntry | undefined = undefined;
  private providerIn: unknown = NOTHING;
  private providerOut: unknown = INVALID;
  private sessionIn: unknown = NOTHING;
  private sessionOut: unknown = INVALID;
  private rawIn: unknown = NOTHING;
  private rawOut: unknown = INVALID;
  // The last timestamp given and the time and text its rule stored: every event gets a new
  // PreciseDate of them (a Date is mutable, so none is shared), without reading the text again.
  // A Date is taken to be unchanged while it is the same object with the same time.
  private stampIn: unknown = NOTHING;
  private stampMs = 0;
  private stampText: string | undefined = undefined;
  private readonly values: unknown[];

  constructor(registry: Registry | undefined) {
    this.setup = setupFor(registry);
    this.kinds = kindsOf(this.setup);
    this.codec = codecOf(Event);
    const fields = fieldsOf(Event);
    this.fields = fields;
    this.kind = given(fields, 'kind');
    this.provider = given(fields, 'provider');
    this.session = given(fields, 'provider_session_id');
    this.sequence = given(fields, 'sequence');
    this.timestamp = given(fields, 'timestamp');
    this.raw = given(fields, 'raw');
    this.payloadAt = fields.findIndex((spec) => spec.type === 'payload');
    const known = [this.kind, this.provider, this.session, this.sequence, this.timestamp, this.raw].map((field) => field.at);
    this.others = fields.map((_, i) => i).filter((i) => i !== this.payloadAt && !known.includes(i));
    this.othersHaveDefaults = this.others.every((i) => fields[i].default !== undefined);
    this.values = new Array<unknown>(fields.length).fill(undefined);
  }

  /**
   * The event of a draft (`kind`, `payload`: the profile's attributes) in the envelope the decoder
   * gives; undefined when the trusted build declines, for the full parse to answer.
   */
  build(
    kind: unknown,
    payload: unknown,
    provider: string | null,
    session: string | null,
    sequence: number,
    timestamp: Date,
    raw: JsonValue,
  ): AnyEvent | undefined {
    // One array serves every event: the constructor copies the values out of it (what it still
    // holds is the last event's, which the decoder holds anyway: see `Kept` in decoder.ts).
    const values = this.values;

    if (kind !== this.kindIn) {
      this.entryOut = this.entryFor(kind);
      this.kindIn = kind;
    }
    const entry = this.entryOut;
    if (entry === undefined) return undefined; // a kind is required, and stored as one of the declared names
    values[this.kind.at] = entry.kind;

    if (provider !== this.providerIn) {
      this.providerOut = this.readGiven(this.provider, provider);
      this.providerIn = provider;
    }
    if (this.providerOut === INVALID) return undefined;
    values[this.provider.at] = this.providerOut;

    if (session !== this.sessionIn) {
      this.sessionOut = this.readGiven(this.session, session);
      this.sessionIn = session;
    }
    if (this.sessionOut === INVALID) return undefined;
    values[this.session.at] = this.sessionOut;

    const s = this.sequence;
    const storedSequence = typeof sequence === 'number' ? s.read(sequence, s.spec, true) : this.readGiven(s, sequence);
    if (storedSequence === INVALID || storedSequence instanceof Invalid) return undefined;
    values[s.at] = storedSequence;

    const storedTime = this.stamp(timestamp);
    if (storedTime === INVALID) return undefined;
    values[this.timestamp.at] = storedTime;

    if (raw !== this.rawIn) {
      const stored = this.readGiven(this.raw, raw);
      // Reused only when the rule stores the line itself (it does, for trusted JSON): no copy is shared.
      this.rawIn = stored === raw || stored === INVALID || typeof stored !== 'object' ? raw : NOTHING;
      this.rawOut = stored;
    }
    if (this.rawOut === INVALID) return undefined;
    values[this.raw.at] = this.rawOut;

    // Only a plain object (or nothing: the kind's default payload) is built here: a parse passes an
    // instance of the kind's class through as it is, which the full parse decides.
    if (payload !== undefined && payload !== null && (typeof payload !== 'object' || !isPlainPrototype(Object.getPrototypeOf(payload))))
      return undefined;
    if (entry.parse === undefined) return undefined;
    const storedPayload = entry.parse(payload ?? EMPTY_OBJECT);
    if (storedPayload === INVALID) return undefined;
    values[this.payloadAt] = storedPayload;

    // The rest is valid: only now are the missing values made (an id is used up only by an event).
    if (!this.othersHaveDefaults) return undefined;
    const others = this.others;
    for (let i = 0; i < others.length; i++) values[others[i]] = this.codec.missingValue(others[i]);
    return this.codec.build(values, undefined) as AnyEvent;
  }

  /** What a given field stores for `value` (present or missing, as any parse reads it), or INVALID. */
  private readGiven(field: Given, value: unknown): unknown {
    if (value === undefined || value === null) return field.spec.default ? this.codec.missingValue(field.at) : INVALID;
    const stored = field.read(value, field.spec, true);
    return stored instanceof Invalid ? INVALID : stored;
  }

  /** The stored timestamp: a new PreciseDate each time, its time and text read once per timestamp given. */
  private stamp(value: unknown): unknown {
    if (value === this.stampIn && (typeof value !== 'object' || getTime.call(value) === this.stampMs)) {
      return new PreciseDate(this.stampMs, this.stampText);
    }
    const stored = this.readGiven(this.timestamp, value);
    if (stored instanceof PreciseDate && value !== null && value !== undefined && (typeof value !== 'object' || value instanceof Date)) {
      this.stampIn = value;
      this.stampMs = getTime.call(stored);
      this.stampText = stored.text;
    } else {
      this.stampIn = NOTHING;
    }
    return stored;
  }

  /**
   * What the build knows of the kind a draft names, or undefined when its rule refuses it. The
   * entries are keyed by the declared names, which the rule reads as themselves: a draft naming one
   * (every profile's does) finds its entry without the rule.
   */
  private entryFor(kind: unknown): KindEntry | undefined {
    const known = typeof kind === 'string' ? this.kinds.get(kind) : undefined;
    if (known !== undefined) return known;
    const stored = this.readGiven(this.kind, kind);
    return typeof stored === 'string' ? this.kindEntry(stored) : undefined;
  }

  private kindEntry(kind: string): KindEntry {
    let entry = this.kinds.get(kind);
    if (entry === undefined) {
      const cls = this.setup.payloadClass?.(kind);
      entry = { kind, parse: cls && trustedParserOf(cls, this.setup) };
      this.kinds.set(kind, entry);
    }
    return entry;
  }
}
