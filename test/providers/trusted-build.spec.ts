import 'reflect-metadata';
import fc from 'fast-check';
import { Event, KINDS, PAYLOAD_CLASSES, PreciseDate, Registry, fieldsOf, type AnyEvent, type EventKind } from '../../src';
import { TrustedEventBuilder } from '../../src/events/trusted-build';
import { decoderFor } from '../../src/decode/decoder';
import type { EventDraft, ProviderProfile } from '../../src/providers/profile';
import { profileFor } from '../../src/decode/profiles';
import type { JsonObject, JsonValue } from '../../src/schema/json';
import { toPreciseDate } from '../../src/schema/precise-date';
import { ToolUsePayload } from '../../src/payloads';
import { TEST_TIMEOUT_MS, invalidValue, jsonKey, jsonValue, nonJsonValue, numRuns, objectFrom, validValue } from '../hardening/arbitraries';
import { FIXTURE_CLOCK, fixtures, nativeLines } from './fixtures';

jest.setTimeout(TEST_TIMEOUT_MS);

/*
 * The decoder builds its events with the trusted build (src/events/trusted-build.ts), which
 * neither copies nor guards a draft's values; `Event.safeParse` of the same attributes is what it
 * stands in for. For every fixture's drafts, and for drafts fast-check mutates (values of the
 * wrong type, blank, out of range, not JSON at all, unknown keys, odd kinds and payloads, other
 * envelopes), both answer the same: the same event (as JSON, the id aside), or a refusal for
 * both. Under `npm run test:eval-free` this runs on the closure path too.
 */

const RUNS = numRuns(300);

/** The attributes the decoder hands both builds: a draft in an envelope. */
interface Case {
  kind: unknown;
  payload: unknown;
  provider: string | null;
  session: string | null;
  sequence: number;
  timestamp: Date;
  raw: JsonValue;
}

const attrsOf = (c: Case): Record<string, unknown> => ({
  kind: c.kind,
  provider: c.provider,
  provider_session_id: c.session,
  sequence: c.sequence,
  timestamp: c.timestamp,
  payload: c.payload,
  raw: c.raw,
});

/** An event as JSON, without its id (each build uses up its own). */
function wire(event: AnyEvent): Record<string, unknown> {
  const { id, ...rest } = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
  expect(typeof id).toBe('number');
  return rest;
}

/**
 * Both builds of a case answer the same; answers the trusted event, if any. The trusted build only
 * declines a payload that is an instance (which a parse passes through, or refuses, by its class):
 * the decoder then runs the full parse.
 */
function expectSame(builder: TrustedEventBuilder, c: Case): AnyEvent | undefined {
  const parsed = Event.safeParse(attrsOf(c));
  const built = builder.build(c.kind, c.payload, c.provider, c.session, c.sequence, c.timestamp, c.raw);
  if (!parsed.success) {
    expect(built).toBeUndefined();
    return undefined;
  }
  const instance =
    typeof c.payload === 'object' && c.payload !== null && ![Object.prototype, null].includes(Object.getPrototypeOf(c.payload));
  if (instance && built === undefined) return undefined;
  expect(built).toBeDefined();
  expect(wire(built!)).toEqual(wire(parsed.data));
  expect(built).toBeInstanceOf(Event);
  expect(built!.payload).toBeInstanceOf(PAYLOAD_CLASSES[parsed.data.kind]);
  expect(built!.timestamp).toBeInstanceOf(PreciseDate);
  expect(built!.timestamp).not.toBe(c.timestamp);
  return built;
}

/** Every fixture's drafts, each in the envelope the decoder would give it. */
function fixtureCases(): Case[] {
  const cases: Case[] = [];
  for (const fixture of fixtures()) {
    const profile = profileFor(fixture.provider);
    const state = profile.newState();
    let session: string | null = null;
    let timestamp: Date = FIXTURE_CLOCK();
    const add = (drafts: readonly EventDraft[], raw: JsonValue) => {
      for (const draft of drafts)
        cases.push({ kind: draft.kind, payload: draft.payload, provider: profile.id, session, sequence: cases.length, timestamp, raw });
    };
    for (const text of nativeLines(fixture)) {
      let line: unknown;
      try {
        line = JSON.parse(text);
      } catch {
        continue;
      }
      if (typeof line !== 'object' || line === null || Array.isArray(line)) continue;
      const object = line as JsonObject;
      if (profile.release) add(profile.release(object, state), null);
      session = profile.sessionId(object) ?? session;
      timestamp = toPreciseDate(profile.timestamp(object)) ?? timestamp;
      add(profile.decode(object, state), object);
      add([{ kind: 'raw', payload: { stream: 'stdout', content: object, metadata: {} } }], object);
    }
  }
  return cases;
}

const FIXTURE_CASES = fixtureCases();

describe('the trusted build and Event.safeParse of the same attributes', () => {
  it('give the same events for every fixture draft, with raw kept and without', () => {
    expect(FIXTURE_CASES.length).toBeGreaterThan(500);
    const builder = new TrustedEventBuilder(undefined);
    for (const c of FIXTURE_CASES) {
      expect(expectSame(builder, c)).toBeDefined();
      expect(expectSame(builder, { ...c, raw: null })).toBeDefined();
    }
  });

  it('share the line in raw, and the draft values in the payload, instead of copying them', () => {
    const builder = new TrustedEventBuilder(undefined);
    const line = { type: 'x', nested: { deep: [1, 2] } };
    const input = { command: 'ls', args: ['-l'] };
    const event = builder.build('tool_use', { tool_name: ' Bash ', input }, 'claude', 's-1', 0, FIXTURE_CLOCK(), line);
    expect(event?.raw).toBe(line);
    expect(event?.kind === 'tool_use' && event.payload.input).toBe(input);
    expect(event?.kind === 'tool_use' && event.payload.tool_name).toBe('Bash');
    // The timestamp is the event's own: each event gets a new Date.
    const again = builder.build('tool_use', { input }, 'claude', 's-1', 1, event!.timestamp, line);
    expect(again?.timestamp).not.toBe(event?.timestamp);
    expect(again?.timestamp.getTime()).toBe(event?.timestamp.getTime());
  });

  it('give the same answer for mutated drafts and envelopes', () => {
    const builder = new TrustedEventBuilder(undefined);
    const base = fc.constantFrom(...FIXTURE_CASES);
    const anyKind = fc.constantFrom(...KINDS);
    const payloadFieldOf = (kind: unknown) =>
      fieldsOf(PAYLOAD_CLASSES[(KINDS as readonly unknown[]).includes(kind) ? (kind as EventKind) : 'raw']);
    /** One change to a case: a payload field, an unknown key, the payload itself, the kind, or the envelope. */
    const change = fc.oneof(
      // A declared payload field set to a valid value, an invalid one, non-JSON data, null or undefined.
      fc
        .record({ at: fc.nat(), how: fc.constantFrom('valid', 'invalid', 'nonjson', 'null', 'undefined', 'delete'), seed: fc.nat() })
        .map((m) => ({ field: m })),
      // An unknown payload key with JSON or non-JSON data.
      fc.tuple(jsonKey, fc.oneof(jsonValue, nonJsonValue)).map(([key, value]) => ({ unknown: { key, value } })),
      // The payload replaced: missing, null, not an object, an instance, an array.
      fc
        .constantFrom(
          undefined,
          null,
          'x',
          1,
          [],
          new Date(0),
          new Map(),
          Object.create(null) as object,
          ToolUsePayload.parse({ tool_name: 'x' }),
        )
        .map((payload) => ({ payload })),
      // The kind padded, unknown, or another kind for the same payload.
      fc
        .oneof(
          anyKind.map((k) => ` ${k}\t`),
          anyKind,
          fc.constantFrom('nope', '', 1, null, undefined, 'constructor'),
        )
        .map((kind) => ({ kind })),
      // The envelope: provider and session ids (blank, padded), sequences, timestamps, raw values.
      fc
        .record({
          provider: fc.constantFrom(null, '', '  ', ' claude ', 'codex'),
          session: fc.constantFrom(null, '', ' s-1 ', 's-2'),
          sequence: fc.constantFrom(0, 1, 2 ** 53, -1, 1.5, Number.MAX_SAFE_INTEGER),
          timestamp: fc.constantFrom(
            new Date(0),
            new Date(NaN),
            new Date(8.64e15),
            FIXTURE_CLOCK(),
            new PreciseDate(1, '1970-01-01T00:00:00.001Z'),
            new PreciseDate(1, 'junk'),
          ),
          raw: fc.oneof(
            jsonValue,
            nonJsonValue.map((bad) => ({ bad })),
          ),
        })
        .map((envelope) => ({ envelope })),
    );
    fc.assert(
      fc.property(base, fc.array(change, { minLength: 1, maxLength: 3 }), (start, changes) => {
        const c: Case = { ...start, payload: start.payload };
        for (const m of changes) {
          if ('field' in m) {
            const fields = payloadFieldOf(c.kind);
            const spec = fields[m.field.at % fields.length];
            const payload = isPlain(c.payload) ? copyOwn(c.payload as object) : {};
            if (m.field.how === 'delete') delete payload[spec.key];
            else payload[spec.key] = pick(m.field.how, spec, m.field.seed);
            c.payload = payload;
          } else if ('unknown' in m) {
            const payload = isPlain(c.payload) ? copyOwn(c.payload as object) : {};
            Object.defineProperty(payload, m.unknown.key, { value: m.unknown.value, enumerable: true, writable: true, configurable: true });
            c.payload = payload;
          } else if ('payload' in m) {
            c.payload = m.payload;
          } else if ('kind' in m) {
            c.kind = m.kind;
          } else {
            Object.assign(c, m.envelope);
          }
        }
        expectSame(builder, c);
      }),
      { numRuns: RUNS },
    );
  });

  it('read a timestamp again when the same Date was set to another time, and an envelope value again when it changes', () => {
    const builder = new TrustedEventBuilder(undefined);
    const stamp = new Date('2026-01-01T00:00:00.000Z');
    const c: Case = {
      kind: 'stderr',
      payload: { content: 'x' },
      provider: 'codex',
      session: 's',
      sequence: 0,
      timestamp: stamp,
      raw: null,
    };
    expectSame(builder, c);
    stamp.setTime(Date.parse('2026-01-02T00:00:00.000Z'));
    expect(expectSame(builder, c)?.timestamp.toISOString()).toBe('2026-01-02T00:00:00.000Z');
    stamp.setTime(NaN);
    expect(expectSame(builder, c)).toBeUndefined();
    for (const session of [' t ', null, '', 's']) expectSame(builder, { ...c, timestamp: FIXTURE_CLOCK(), session });
  });

  it('use the registry in force', () => {
    class RichToolUse extends ToolUsePayload {}
    const registry = Registry.default.with('tool_use', RichToolUse);
    const builder = new TrustedEventBuilder(registry);
    const event = builder.build('tool_use', { tool_name: 'x' }, 'claude', null, 0, FIXTURE_CLOCK(), null);
    expect(event?.payload).toBeInstanceOf(RichToolUse);
    expect(wire(event!)).toEqual(
      wire(
        Event.parse(
          { kind: 'tool_use', provider: 'claude', sequence: 0, timestamp: FIXTURE_CLOCK(), payload: { tool_name: 'x' } },
          { registry },
        ),
      ),
    );
  });
});

describe('a decoder', () => {
  /** A profile that answers the drafts it is given, for lines `{"n": index}`. */
  function scripted(drafts: unknown[]): { profile: ProviderProfile<null>; lines: JsonObject[] } {
    const lines: JsonObject[] = [];
    const profile: ProviderProfile<null> = {
      id: 'codex',
      detect: () => true,
      newState: () => null,
      sessionId: () => 'session-1',
      timestamp: () => null,
      decode(line) {
        lines.push(line);
        return [drafts[line.n as number] as EventDraft];
      },
    };
    return { profile, lines };
  }

  /** What the decoder made of a draft before the trusted build: the full parse, its raw fallback, or the text. */
  function expected(draft: { kind: unknown; payload: unknown }, line: JsonObject, sequence: number): Record<string, unknown> {
    const attrs = {
      kind: draft.kind,
      provider: 'codex',
      provider_session_id: 'session-1',
      sequence,
      timestamp: FIXTURE_CLOCK(),
      payload: draft.payload,
      raw: line,
    };
    const parsed = Event.safeParse(attrs);
    if (parsed.success) return wire(parsed.data);
    const metadata = { draft_kind: draft.kind, decode_error: parsed.error.message };
    return wire(Event.parse({ ...attrs, kind: 'raw', payload: { stream: 'stdout', content: line, metadata } }));
  }

  it('turns every draft into the event the full parse gives, or the same raw event with its decode_error', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(...KINDS).chain((kind) =>
            fc
              .oneof(
                fc.constantFrom(...FIXTURE_CASES.filter((c) => c.kind === kind).map((c) => c.payload), {}),
                fc
                  .tuple(fc.constantFrom(...fieldsOf(PAYLOAD_CLASSES[kind])), fc.nat())
                  .map(([spec, seed]) => ({ [spec.key]: pick(seed % 2 ? 'invalid' : 'nonjson', spec, seed) })),
              )
              .map((payload) => ({ kind, payload })),
          ),
          { minLength: 1, maxLength: 6 },
        ),
        (drafts) => {
          const { profile, lines } = scripted(drafts);
          const decoder = decoderFor(profile, { clock: FIXTURE_CLOCK });
          const events = drafts.flatMap((_, n) => decoder.push(JSON.stringify({ n })));
          expect(events.map(wire)).toEqual(drafts.map((draft, n) => expected(draft, lines[n], n)));
          // The line the profile read is the one every built event keeps in raw: shared, not copied
          // (a refused draft's raw event comes from the full parse, which copies).
          events.forEach((event, n) => {
            if (Event.safeParse({ ...drafts[n], timestamp: FIXTURE_CLOCK() }).success) expect(event.raw).toBe(lines[n]);
          });
        },
      ),
      { numRuns: Math.max(20, RUNS / 5) },
    );
  });
});

function isPlain(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** A copy of an object's own enumerable data (a `__proto__` key stays a key). */
function copyOwn(value: object): Record<string, unknown> {
  return objectFrom(
    Object.entries(Object.getOwnPropertyDescriptors(value))
      .filter(([, d]) => d.enumerable)
      .map(([k, d]) => [k, d.value]),
  );
}

/** A value for a field: valid, invalid for its rule, not JSON, null or undefined. */
function pick(how: string, spec: ReturnType<typeof fieldsOf>[number], seed: number): unknown {
  const sample = (arbitrary: fc.Arbitrary<unknown>) => fc.sample(arbitrary, { numRuns: 1, seed })[0];
  switch (how) {
    case 'valid':
      return sample(validValue(spec));
    case 'invalid':
      return sample(invalidValue(spec));
    case 'nonjson':
      return sample(
        fc.oneof(
          nonJsonValue,
          nonJsonValue.map((bad) => ({ bad })),
          nonJsonValue.map((bad) => [1, bad]),
          fc.constant([1, , 2]),
        ),
      );
    case 'null':
      return null;
    default:
      return undefined;
  }
}
