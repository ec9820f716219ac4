import 'reflect-metadata';
import { Event, type AnyEvent } from '../../src';
import { createDecoder, decoderFor } from '../../src/decode/decoder';
import { finishDrafts, str } from '../../src/providers/drafts';
import type { EventDraft, ProviderProfile } from '../../src/providers/profile';
import type { JsonObject } from '../../src/schema/json';

/*
 * The shared per-run machinery, driven by a small test profile so that each rule is seen on its
 * own: lines `{"t": …}` where `t` says what the profile answers.
 */

interface TestState {
  /** Text of the open run of `delta` lines, held until a line that is not a delta (as Gemini's). */
  open: string | null;
}

const testProfile: ProviderProfile<TestState> = {
  id: 'gemini',
  detect: (line) => typeof line.t === 'string',
  newState: () => ({ open: null }),
  sessionId: (line) => str(line.sid),
  timestamp: (line) => line.at ?? null,
  decode(line, state): EventDraft[] {
    switch (line.t) {
      case 'start':
        return [{ kind: 'run_started', payload: { cwd: str(line.cwd) } }];
      case 'say':
        return [{ kind: 'assistant_message', payload: { content: [{ type: 'text', text: str(line.text) }] } }];
      case 'delta':
        state.open = (state.open ?? '') + String(line.text);
        return [{ kind: 'assistant_delta', payload: { content: String(line.text), index: 0 } }];
      case 'tools':
        return [
          { kind: 'tool_use', payload: { tool_name: 'shell', tool_call_id: 'c1', input: { command: 'ls' } } },
          { kind: 'tool_result', payload: { tool_call_id: 'c1', content: 'a b', is_error: false } },
        ];
      case 'done':
        return finishDrafts({ failed: line.failed === true, errorMessage: str(line.message) });
      case 'refused':
        return [{ kind: 'cost_update', payload: { input_tokens: -1 } }];
      case 'throws':
        throw new Error('cannot read this line');
      case 'not-an-array':
        return { kind: 'raw' } as unknown as EventDraft[];
      default:
        return [];
    }
  },
  release(next, state): EventDraft[] {
    if (state.open === null || next?.t === 'delta') return [];
    const text = state.open;
    state.open = null;
    return [{ kind: 'assistant_message', payload: { content: [{ type: 'text', text }] } }];
  },
};

const CLOCK_TIME = '2026-01-01T00:00:00.000Z';
const clock = () => new Date(CLOCK_TIME);
const line = (fields: JsonObject) => JSON.stringify(fields);
const json = (event: AnyEvent) => JSON.parse(JSON.stringify(event)) as Record<string, any>;

function decode(lines: string[], options: Parameters<typeof decoderFor>[1] = {}): AnyEvent[] {
  const decoder = decoderFor(testProfile, { clock, ...options });
  return lines.flatMap((text) => decoder.push(text));
}

describe('sequence', () => {
  it('starts at 0 and goes up by 1 per event, across push and end', () => {
    const decoder = decoderFor(testProfile, { clock });
    const events = [
      ...decoder.push(line({ t: 'start' })),
      ...decoder.push(line({ t: 'tools' })),
      ...decoder.push('text'),
      ...decoder.end(),
    ];
    expect(events.map((e) => e.sequence)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('starts at startSequence', () => {
    expect(decode([line({ t: 'tools' }), line({ t: 'noise' })], { startSequence: 41 }).map((e) => e.sequence)).toEqual([41, 42, 43]);
  });

  it('counts a refused draft and a raw event like any other', () => {
    expect(decode([line({ t: 'refused' }), line({ t: 'throws' }), line({ t: 'say' })]).map((e) => e.sequence)).toEqual([0, 1, 2]);
  });
});

describe('session id', () => {
  it('is null before the announcing line, then on every event from that line on', () => {
    const decoder = decoderFor(testProfile, { clock });
    const before = decoder.push(line({ t: 'noise' }));
    expect(decoder.sessionId).toBeNull();
    const announcing = decoder.push(line({ t: 'tools', sid: 's-1' }));
    const after = [...decoder.push(line({ t: 'say' })), ...decoder.push('plain text'), ...decoder.end()];
    expect(before.map((e) => e.provider_session_id)).toEqual([null]);
    expect([...announcing, ...after].map((e) => e.provider_session_id)).toEqual(['s-1', 's-1', 's-1', 's-1', 's-1', 's-1']);
    expect(decoder.sessionId).toBe('s-1');
  });

  it('follows a later announcement; a blank or non-string id is ignored', () => {
    const events = decode([
      line({ t: 'say', sid: 'a' }),
      line({ t: 'say', sid: '  ' }),
      line({ t: 'say', sid: 7 }),
      line({ t: 'say', sid: 'b' }),
    ]);
    expect(events.map((e) => e.provider_session_id)).toEqual(['a', 'a', 'a', 'b']);
  });
});

describe('timestamp', () => {
  it("is the line's own time, kept digit for digit", () => {
    const [event] = decode([line({ t: 'say', at: '2025-06-07T08:09:10.123456Z' })]);
    expect(json(event).timestamp).toBe('2025-06-07T08:09:10.123456Z');
  });

  it('accepts epoch milliseconds', () => {
    const [event] = decode([line({ t: 'say', at: Date.UTC(2025, 0, 2) })]);
    expect(event.timestamp.toISOString()).toBe('2025-01-02T00:00:00.000Z');
  });

  it('takes the clock before any line had a time, then the latest time seen', () => {
    const events = decode([
      line({ t: 'say' }),
      line({ t: 'say', at: '2025-01-01T00:00:01Z' }),
      line({ t: 'say' }),
      line({ t: 'say', at: 'not a time' }),
      'plain text',
      line({ t: 'say', at: '2025-01-01T00:00:02Z' }),
    ]);
    expect(events.map((e) => json(e).timestamp)).toEqual([
      CLOCK_TIME,
      '2025-01-01T00:00:01Z',
      '2025-01-01T00:00:01Z',
      '2025-01-01T00:00:01Z',
      '2025-01-01T00:00:01Z',
      '2025-01-01T00:00:02Z',
    ]);
  });

  it('is read from the clock once per line: the events of one line share it', () => {
    let tick = 0;
    const decoder = decoderFor(testProfile, { clock: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)) });
    const times = [...decoder.push(line({ t: 'tools' })), ...decoder.push(line({ t: 'say' })), ...decoder.end()].map((e) =>
      e.timestamp.toISOString(),
    );
    expect(times).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:01.000Z',
      '2026-01-01T00:00:02.000Z',
      '2026-01-01T00:00:02.000Z',
    ]);
  });

  // #18 "Timestamps: lines with no time of their own inherit the previous line's": live, they take their read time.
  it("live: an untimed line is stamped with the time it was read, not the previous line's time", () => {
    let now = Date.UTC(2026, 0, 1, 0, 0, 0);
    const decoder = decoderFor(testProfile, { clock: () => new Date(now), live: true });
    const times: string[] = [];
    const read = (text: string, at: number) => {
      now = at;
      times.push(...decoder.push(text).map((e) => e.timestamp.toISOString()));
    };
    read(line({ t: 'say', at: '2026-01-01T00:00:01Z' }), Date.UTC(2026, 0, 1, 0, 0, 2));
    read(line({ t: 'say' }), Date.UTC(2026, 0, 1, 1, 13, 0)); // 73 minutes later
    read('plain text', Date.UTC(2026, 0, 1, 1, 14, 0));
    now = Date.UTC(2026, 0, 1, 1, 15, 0);
    times.push(...decoder.end({ code: 0, signal: null }).map((e) => e.timestamp.toISOString()));
    expect(times).toEqual(['2026-01-01T00:00:01.000Z', '2026-01-01T01:13:00.000Z', '2026-01-01T01:14:00.000Z', '2026-01-01T01:15:00.000Z']);
  });

  it("never goes backwards: live, a line whose own time is earlier than an earlier event takes that event's time", () => {
    let now = Date.UTC(2026, 0, 1, 0, 0, 10);
    const decoder = decoderFor(testProfile, { clock: () => new Date(now), live: true });
    const first = decoder.push(line({ t: 'say' }));
    now += 1000;
    const behind = decoder.push(line({ t: 'say', at: '2026-01-01T00:00:05Z' }));
    const later = decoder.push(line({ t: 'say', at: '2026-01-01T00:00:30Z' }));
    expect([...first, ...behind, ...later].map((e) => e.timestamp.toISOString())).toEqual([
      '2026-01-01T00:00:10.000Z',
      '2026-01-01T00:00:10.000Z',
      '2026-01-01T00:00:30.000Z',
    ]);
  });

  // A recording whose first line has no time (Claude's `system` line) used to stamp it "now", then go back to the recording's times.
  it('lookAhead (a file): the first untimed lines take the first time a line has, and never run backwards', () => {
    const decoder = decoderFor(testProfile, { clock, lookAhead: true });
    const recording = [
      line({ t: 'start', sid: 's1' }),
      line({ t: 'delta', text: 'Hel' }),
      'plain text',
      line({ t: 'say', text: 'first timed', at: '2025-03-04T05:06:07.891Z' }),
      line({ t: 'tools' }),
      line({ t: 'say', at: '2025-03-04T05:06:09Z' }),
    ];
    const perLine = recording.map((text) => decoder.push(text));
    // The untimed lines' events wait for the first timed line, then come out with it, in order.
    expect(perLine.map((events) => events.length)).toEqual([0, 0, 0, 5, 2, 1]);
    const events = [...perLine.flat(), ...decoder.end()];
    expect(events.map((e) => [e.kind, json(e).timestamp])).toEqual([
      ['run_started', '2025-03-04T05:06:07.891Z'],
      ['assistant_delta', '2025-03-04T05:06:07.891Z'],
      ['assistant_message', '2025-03-04T05:06:07.891Z'],
      ['raw', '2025-03-04T05:06:07.891Z'],
      ['assistant_message', '2025-03-04T05:06:07.891Z'],
      ['tool_use', '2025-03-04T05:06:07.891Z'],
      ['tool_result', '2025-03-04T05:06:07.891Z'],
      ['assistant_message', '2025-03-04T05:06:09Z'],
      ['error', '2025-03-04T05:06:09Z'],
      ['result', '2025-03-04T05:06:09Z'],
    ]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_e, i) => i));
    expect(new Set(events.map((e) => e.timestamp)).size).toBe(events.length);
  });

  it('lookAhead is bounded: 256 untimed lines go out with the time of decoding, and later own times are raised to it', () => {
    const decoder = decoderFor(testProfile, { clock, lookAhead: true });
    const held = Array.from({ length: 256 }, () => decoder.push(line({ t: 'say' })));
    expect(held.every((events) => events.length === 0)).toBe(true);
    const flushed = decoder.push(line({ t: 'say' }));
    expect(flushed).toHaveLength(257);
    const later = decoder.push(line({ t: 'say', at: '2025-01-01T00:00:00Z' }));
    expect([...flushed, ...later].every((e) => json(e).timestamp === CLOCK_TIME)).toBe(true);
  });

  it('lookAhead: a file with no times at all ends with the time of decoding; live refuses it', () => {
    const decoder = decoderFor(testProfile, { clock, lookAhead: true });
    expect(decoder.push(line({ t: 'say' }))).toEqual([]);
    expect(decoder.end().map((e) => [e.kind, json(e).timestamp])).toEqual([
      ['assistant_message', CLOCK_TIME],
      ['error', CLOCK_TIME],
      ['result', CLOCK_TIME],
    ]);
    expect(() => decoderFor(testProfile, { lookAhead: true, live: true })).toThrow(/lookAhead is for files/);
  });

  it("never goes backwards in a file either: an own time earlier than an earlier line's is raised to it", () => {
    const events = decode([
      line({ t: 'say', at: '2025-01-01T00:00:05Z' }),
      line({ t: 'say', at: '2025-01-01T00:00:01Z' }),
      line({ t: 'say' }),
    ]);
    expect(events.map((e) => json(e).timestamp)).toEqual(['2025-01-01T00:00:05Z', '2025-01-01T00:00:05Z', '2025-01-01T00:00:05Z']);
  });

  it('is now when no clock is given', () => {
    const before = Date.now();
    const [event] = decoderFor(testProfile).push(line({ t: 'say' }));
    expect(event.timestamp.getTime()).toBeGreaterThanOrEqual(before);
    expect(event.timestamp.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('without a clock, is read again for each line, and each event has its own Date', () => {
    const decoder = decoderFor(testProfile, { live: true });
    const events: AnyEvent[] = [];
    const before = Date.now();
    // Lines decoded within one millisecond, then lines after the clock moved on.
    for (let i = 0; i < 3; i++) events.push(...decoder.push(line({ t: 'tools' })));
    const moved = Date.now() + 2;
    while (Date.now() < moved) {
      // wait for the clock to move on
    }
    const later = decoder.push(line({ t: 'say' }));
    expect(new Set([...events, ...later].map((e) => e.timestamp)).size).toBe(events.length + later.length);
    for (const event of events) expect(event.timestamp.getTime()).toBeGreaterThanOrEqual(before);
    expect(later[0].timestamp.getTime()).toBeGreaterThanOrEqual(moved);
    // A caller changing an event's Date changes no other event's.
    events[0].timestamp.setTime(0);
    expect(events[1].timestamp.getTime()).toBeGreaterThanOrEqual(before);
  });
});

describe('keepRaw', () => {
  const lines = [line({ t: 'say', text: 'hi' }), line({ t: 'noise', n: 1 }), 'plain'];

  it("'all' (the default): every event's raw is the native line", () => {
    expect(decode(lines).map((e) => e.raw)).toEqual([{ t: 'say', text: 'hi' }, { t: 'noise', n: 1 }, 'plain']);
  });

  it("'unmapped': only raw events keep the line in the envelope", () => {
    expect(decode(lines, { keepRaw: 'unmapped' }).map((e) => e.raw)).toEqual([null, { t: 'noise', n: 1 }, 'plain']);
  });

  it("'none': no envelope keeps it, but a raw event's payload still does", () => {
    const events = decode(lines, { keepRaw: 'none' });
    expect(events.map((e) => e.raw)).toEqual([null, null, null]);
    expect(events.map((e) => e.kind === 'raw' && e.payload.content)).toEqual([false, { t: 'noise', n: 1 }, 'plain']);
  });
});

describe('lines with no normalized meaning', () => {
  it.each([[''], ['   '], ['\t\r']])('a blank line %j gives no event and uses no sequence number', (blank) => {
    const decoder = decoderFor(testProfile, { clock });
    expect(decoder.push(blank)).toEqual([]);
    expect(decoder.push(line({ t: 'say' }))[0].sequence).toBe(0);
  });

  it('text that is not JSON is a raw event holding the text', () => {
    const [event] = decode(['Loaded cached credentials.']);
    expect(json(event)).toMatchObject({
      kind: 'raw',
      provider: 'gemini',
      payload: { stream: 'stdout', content: 'Loaded cached credentials.', metadata: {} },
      raw: 'Loaded cached credentials.',
    });
  });

  it.each([
    ['42', 42],
    ['"text"', 'text'],
    ['[1,{"a":2}]', [1, { a: 2 }]],
    ['null', null],
    ['true', true],
  ])('JSON that is not an object (%s) is a raw event holding the value', (text, value) => {
    const [event] = decode([text]);
    expect(event.kind).toBe('raw');
    expect(json(event).payload.content).toEqual(value);
  });

  it('a line the profile maps to nothing is a raw event holding the parsed line', () => {
    const [event] = decode([line({ t: 'heartbeat', n: 3 })]);
    expect(json(event)).toMatchObject({ kind: 'raw', payload: { content: { t: 'heartbeat', n: 3 }, metadata: {} } });
  });

  it('a profile that throws gives a raw event with the error in its metadata', () => {
    const [event] = decode([line({ t: 'throws' })]);
    expect(json(event)).toMatchObject({
      kind: 'raw',
      payload: { content: { t: 'throws' }, metadata: { decode_error: 'cannot read this line' } },
    });
  });

  it('a profile that answers something other than an array of drafts gives a raw event too', () => {
    const [event] = decode([line({ t: 'not-an-array' })]);
    expect(json(event)).toMatchObject({
      kind: 'raw',
      payload: { metadata: { decode_error: 'the profile did not answer an array of drafts' } },
    });
  });

  it('a draft its payload class refuses is a raw event naming the draft kind and the issue', () => {
    const [event] = decode([line({ t: 'refused' })]);
    const { payload } = json(event);
    expect(event.kind).toBe('raw');
    expect(payload.content).toEqual({ t: 'refused' });
    expect(payload.metadata.draft_kind).toBe('cost_update');
    expect(payload.metadata.decode_error).toMatch(/input_tokens/);
  });

  it('a line nested deeper than an event may hold is a raw event holding its text', () => {
    const deep = `{"t":"say","a":${'['.repeat(1500)}${']'.repeat(1500)}}`;
    const [event] = decode([deep]);
    expect(event.kind).toBe('raw');
    expect(json(event).payload.content).toBe(deep);
    expect(json(event).payload.metadata.decode_error).toMatch(/deep/i);
    const [deepArray] = decode([`${'['.repeat(1500)}${']'.repeat(1500)}`], { keepRaw: 'none' });
    expect([deepArray.kind, deepArray.raw]).toEqual(['raw', null]);
  });

  it('every event is a valid Event that round-trips through its JSON', () => {
    const events = [
      ...decode([line({ t: 'start', sid: 'x', at: '2025-01-01T00:00:00.5Z' }), line({ t: 'tools' }), line({ t: 'refused' }), 'text', '[]']),
    ];
    for (const event of events) expect(JSON.stringify(Event.fromJSON(JSON.stringify(event)))).toBe(JSON.stringify(event));
  });
});

describe('end of stream', () => {
  const kindsAndPayloads = (events: AnyEvent[]) => events.map((e) => [e.kind, json(e).payload]);

  it('with exit code 0 and no result line: a completed result', () => {
    const decoder = decoderFor(testProfile, { clock });
    decoder.push(line({ t: 'say' }));
    expect(kindsAndPayloads(decoder.end({ code: 0, signal: null }))).toEqual([
      ['result', { status: 'completed', stop_reason: null, output: null, object: null, metadata: { exit_code: 0, signal: null } }],
    ]);
  });

  it('with a non-zero code: a fatal no_result error naming the code, then a failed result', () => {
    const events = decoderFor(testProfile, { clock }).end({ code: 3, signal: null });
    expect(kindsAndPayloads(events)).toEqual([
      [
        'error',
        {
          message: 'the CLI exited with code 3 without a result line',
          code: 'no_result',
          severity: 'fatal',
          metadata: { exit_code: 3, signal: null },
        },
      ],
      ['result', { status: 'failed', stop_reason: 'no_result', output: null, object: null, metadata: { exit_code: 3, signal: null } }],
    ]);
  });

  // #18 "The no-result error carries none of stderr, where the reason usually is: keep its tail."
  it('with stderr given: the error ends with its last line and keeps the tail', () => {
    const [error] = decoderFor(testProfile, { clock }).end({ code: 1, signal: null, stderrTail: 'warming up\nError: invalid model "x"\n' });
    expect(error.payload).toMatchObject({
      message: 'the CLI exited with code 1 without a result line: Error: invalid model "x"',
      metadata: { exit_code: 1, signal: null, stderr_tail: 'warming up\nError: invalid model "x"' },
    });
  });

  it('with a signal: the error names the signal', () => {
    const events = decoderFor(testProfile, { clock }).end({ code: null, signal: 'SIGKILL' });
    expect(json(events[0]).payload).toMatchObject({
      message: 'the CLI was killed by SIGKILL without a result line',
      severity: 'fatal',
      code: 'no_result',
    });
    expect(json(events[1]).payload).toMatchObject({ status: 'failed', metadata: { exit_code: null, signal: 'SIGKILL' } });
  });

  it('with no exit information (a file): a warning and a failed result', () => {
    const events = decoderFor(testProfile, { clock }).end();
    expect(kindsAndPayloads(events)).toEqual([
      ['error', { message: 'the stream ended without a result line', code: 'no_result', severity: 'warning', metadata: {} }],
      ['result', { status: 'failed', stop_reason: 'no_result', output: null, object: null, metadata: {} }],
    ]);
  });

  it('after a result line: nothing more, whatever the exit', () => {
    for (const exit of [undefined, { code: 0, signal: null }, { code: 1, signal: null }]) {
      const decoder = decoderFor(testProfile, { clock });
      decoder.push(line({ t: 'done' }));
      expect(decoder.end(exit)).toEqual([]);
    }
  });

  it("a profile's failed result brings its error event first", () => {
    const events = decode([line({ t: 'done', failed: true, message: 'API Error: 400' })]);
    expect(kindsAndPayloads(events)).toEqual([
      ['error', { message: 'API Error: 400', code: null, severity: 'error', metadata: {} }],
      ['result', { status: 'failed', stop_reason: null, output: null, object: null, metadata: {} }],
    ]);
  });

  it('a second end() gives nothing', () => {
    const decoder = decoderFor(testProfile, { clock });
    expect(decoder.end()).toHaveLength(2);
    expect(decoder.end()).toEqual([]);
    expect(decoder.end({ code: 1, signal: null })).toEqual([]);
  });

  it('end events continue the sequence and keep the session and the latest time', () => {
    const decoder = decoderFor(testProfile, { clock });
    decoder.push(line({ t: 'say', sid: 's', at: '2025-05-05T05:05:05Z' }));
    const events = decoder.end({ code: 0, signal: null });
    expect(events.map((e) => [e.sequence, e.provider_session_id, json(e).timestamp, e.raw])).toEqual([
      [1, 's', '2025-05-05T05:05:05Z', null],
    ]);
  });
});

describe('held drafts (release)', () => {
  const deltas = [
    line({ t: 'delta', text: 'Hel', at: '2025-01-01T00:00:01Z' }),
    line({ t: 'delta', text: 'lo', at: '2025-01-01T00:00:02Z' }),
  ];

  it('are released before the next line that completes them, with the envelope of the lines they came from', () => {
    const events = decode([...deltas, line({ t: 'tools', sid: 'later', at: '2025-01-01T00:00:03Z' })]);
    expect(events.map((e) => [e.kind, e.provider_session_id, json(e).timestamp])).toEqual([
      ['assistant_delta', null, '2025-01-01T00:00:01Z'],
      ['assistant_delta', null, '2025-01-01T00:00:02Z'],
      ['assistant_message', null, '2025-01-01T00:00:02Z'],
      ['tool_use', 'later', '2025-01-01T00:00:03Z'],
      ['tool_result', 'later', '2025-01-01T00:00:03Z'],
    ]);
    // Made from several lines, the message has no one native line to keep.
    expect(events[2].raw).toBeNull();
    expect(json(events[2]).payload.content).toEqual([{ type: 'text', text: 'Hello' }]);
  });

  it('are released before a line that is not JSON', () => {
    expect(decode([...deltas, 'some text']).map((e) => e.kind)).toEqual(['assistant_delta', 'assistant_delta', 'assistant_message', 'raw']);
  });

  it('are released at the end of the stream, before a missing result', () => {
    const decoder = decoderFor(testProfile, { clock });
    deltas.forEach((text) => decoder.push(text));
    expect(decoder.end().map((e) => e.kind)).toEqual(['assistant_message', 'error', 'result']);
  });

  it('are not released by a blank line', () => {
    expect(decode([deltas[0], '', deltas[1]]).map((e) => e.kind)).toEqual(['assistant_delta', 'assistant_delta']);
  });
});

describe("'auto'", () => {
  const detect = (candidate: JsonObject) => (testProfile.detect(candidate) ? (testProfile as ProviderProfile) : null);

  it('decodes lines as raw with no provider until a line is recognised, then as that provider', () => {
    const decoder = decoderFor(null, { clock }, detect);
    expect(decoder.provider).toBeNull();
    const early = [...decoder.push('banner text'), ...decoder.push(line({ unknown: true }))];
    expect(early.map((e) => [e.kind, e.provider])).toEqual([
      ['raw', null],
      ['raw', null],
    ]);
    const later = [...decoder.push(line({ t: 'tools', sid: 's' })), ...decoder.end({ code: 0, signal: null })];
    expect(decoder.provider).toBe('gemini');
    expect(later.map((e) => [e.kind, e.provider, e.sequence])).toEqual([
      ['tool_use', 'gemini', 2],
      ['tool_result', 'gemini', 3],
      ['result', 'gemini', 4],
    ]);
  });

  it('with nothing recognised, the end still owes a result, with no provider', () => {
    const decoder = createDecoder('auto', { clock });
    expect(decoder.push('just text').map((e) => [e.kind, e.provider])).toEqual([['raw', null]]);
    expect(decoder.end().map((e) => [e.kind, e.provider])).toEqual([
      ['error', null],
      ['result', null],
    ]);
  });
});

describe('createDecoder', () => {
  it('names the known ids when the provider is unknown', () => {
    expect(() => createDecoder('claude-code' as never)).toThrow(
      new TypeError(
        'unknown provider "claude-code": expected one of claude, codex, gemini, cursor, opencode, amp, qwen, pi, kilo, cline, auto',
      ),
    );
  });

  it.each([
    [{ keepRaw: 'some' }, /keepRaw must be one of all, unmapped, none/],
    [{ startSequence: -1 }, /startSequence must be a non-negative integer/],
    [{ startSequence: 1.5 }, /startSequence must be a non-negative integer/],
    [{ clock: 'now' }, /clock must be a function/],
    [{ live: 'yes' }, /live must be a boolean/],
  ])('refuses the option %j', (options, message) => {
    expect(() => createDecoder('claude', options as never)).toThrow(message);
  });

  it('gives each provider its id on every event, even on lines it does not recognise', () => {
    for (const provider of ['claude', 'codex', 'gemini', 'cursor', 'opencode', 'amp'] as const) {
      const decoder = createDecoder(provider, { clock });
      const events = [...decoder.push('not json'), ...decoder.end()];
      expect(events.map((e) => e.provider)).toEqual([provider, provider, provider]);
      expect(decoder.provider).toBe(provider);
    }
  });
});
