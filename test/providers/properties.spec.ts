import 'reflect-metadata';
import { Event, type AnyEvent } from '../../src';
import { createDecoder, type DecoderOptions } from '../../src/decode/decoder';
import { detectedAsCopy, FIXTURE_CLOCK, fixtures, nativeLines, type Fixture } from './fixtures';

/*
 * Properties every decoder keeps on every fixture transcript, whichever exist (they arrive
 * provider by provider): the events are valid and round-trip, sequences count up by one, every
 * line is accounted for, tool results follow their calls, and failures come with an error.
 */

const all = fixtures();

/** The fixture decoded line by line: the events of each line, then those of `end`. */
function decodeByLine(
  fixture: Fixture,
  options: DecoderOptions = {},
): { perLine: { line: string; events: AnyEvent[] }[]; ended: AnyEvent[] } {
  const decoder = createDecoder(fixture.provider, { clock: FIXTURE_CLOCK, ...options });
  const perLine = nativeLines(fixture).map((line) => ({ line, events: decoder.push(line) }));
  return { perLine, ended: decoder.end(fixture.exit) };
}

function decodeAll(fixture: Fixture, options: DecoderOptions = {}): AnyEvent[] {
  const { perLine, ended } = decodeByLine(fixture, options);
  return [...perLine.flatMap((entry) => entry.events), ...ended];
}

const withoutId = (event: AnyEvent) => {
  const { id: _id, ...rest } = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
  return rest;
};

const parseOrText = (line: string): unknown => {
  try {
    return JSON.parse(line);
  } catch {
    return line;
  }
};

it('fixtures are listed from test/fixtures/providers (the properties below run on each)', () => {
  for (const fixture of all) expect(nativeLines(fixture).length).toBeGreaterThan(0);
});

describe.each(all.map((fixture) => [`${fixture.provider}/${fixture.name}`, fixture] as const))('%s', (_label, fixture) => {
  it('every event passes Event.fromJSON and round-trips to the same JSON', () => {
    for (const event of decodeAll(fixture)) {
      const text = JSON.stringify(event);
      expect(JSON.stringify(Event.fromJSON(text))).toBe(text);
    }
  });

  it('sequences go up by exactly 1 from startSequence (0, or as given)', () => {
    expect(decodeAll(fixture).map((e) => e.sequence)).toEqual(decodeAll(fixture).map((_e, i) => i));
    const from = decodeAll(fixture, { startSequence: 1000 }).map((e) => e.sequence);
    expect(from).toEqual(from.map((_s, i) => 1000 + i));
  });

  it('every non-blank line yields at least one event, and one of them carries the line as raw', () => {
    for (const { line, events } of decodeByLine(fixture).perLine) {
      if (line.trim() === '') {
        expect(events).toEqual([]);
        continue;
      }
      expect([line, events.length > 0]).toEqual([line, true]);
      expect([line, events.some((event) => JSON.stringify(event.raw) === JSON.stringify(parseOrText(line)))]).toEqual([line, true]);
    }
  });

  it("keepRaw 'none' changes nothing but the envelope's raw", () => {
    const none = decodeAll(fixture, { keepRaw: 'none' });
    expect(none.every((event) => event.raw === null)).toBe(true);
    expect(none.map(withoutId)).toEqual(decodeAll(fixture).map((event) => ({ ...withoutId(event), raw: null })));
  });

  it('every event names the provider, and the session id never goes back to null once announced', () => {
    const events = decodeAll(fixture);
    expect(new Set(events.map((e) => e.provider))).toEqual(new Set([fixture.provider]));
    const firstWithSession = events.findIndex((e) => e.provider_session_id !== null);
    if (firstWithSession >= 0) expect(events.slice(firstWithSession).filter((e) => e.provider_session_id === null)).toEqual([]);
  });

  it('every tool_result with a tool_call_id follows a tool_use with that id', () => {
    const seen = new Set<string>();
    for (const event of decodeAll(fixture)) {
      if (event.kind === 'tool_use' && event.payload.tool_call_id) seen.add(event.payload.tool_call_id);
      if (event.kind === 'tool_result' && event.payload.tool_call_id)
        expect([event.sequence, seen.has(event.payload.tool_call_id)]).toEqual([event.sequence, true]);
    }
  });

  it('the run ends with a result, and every failed result comes after an error event of its own', () => {
    const events = decodeAll(fixture);
    expect(events.some((e) => e.kind === 'result')).toBe(true);
    let errorSinceLastResult = false;
    for (const event of events) {
      if (event.kind === 'error') errorSinceLastResult = true;
      if (event.kind !== 'result') continue;
      if (event.payload.status === 'failed') expect([event.sequence, errorSinceLastResult]).toEqual([event.sequence, true]);
      errorSinceLastResult = false;
    }
    for (const event of events) if (event.kind === 'result') expect(['completed', 'failed']).toContain(event.payload.status);
  });

  it("'auto' names the provider from the lines and decodes them the same (lines before it is named have no provider)", () => {
    const auto = createDecoder('auto', { clock: FIXTURE_CLOCK });
    const events = [...nativeLines(fixture).flatMap((line) => auto.push(line)), ...auto.end(fixture.exit)];
    const expected = detectedAsCopy(fixture.provider, auto.provider) ? (auto.provider as string) : fixture.provider;
    expect(auto.provider).toBe(expected);
    if (expected !== fixture.provider) return;
    const named = events.findIndex((event) => event.provider !== null);
    expect(events.slice(0, named).filter((event) => event.kind !== 'raw')).toEqual([]);
    expect(events.slice(named).every((event) => event.provider === expected)).toBe(true);
    const withoutProvider = (event: AnyEvent) => ({ ...withoutId(event), provider: undefined });
    expect(events.map(withoutProvider)).toEqual(decodeAll(fixture).map(withoutProvider));
  });
});
