import 'reflect-metadata';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createDecoder, decodeLines, detectProvider, PROVIDERS, type AnyEvent } from '../../src';
import { detectedAsCopy, FIXTURE_CLOCK, fixtures, nativeLines, type Fixture } from './fixtures';

const all = fixtures();

async function collect(events: AsyncIterable<AnyEvent>): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const event of events) {
    const { id: _id, ...rest } = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
    out.push(rest);
  }
  return out;
}

/** What pushing the lines one by one (a file: `lookAhead`) and ending without exit information gives. */
function pushed(provider: Parameters<typeof createDecoder>[0], lines: string[]): Record<string, unknown>[] {
  const decoder = createDecoder(provider, { clock: FIXTURE_CLOCK, lookAhead: true });
  return [...lines.flatMap((line) => decoder.push(line)), ...decoder.end()].map((event) => {
    const { id: _id, ...rest } = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
    return rest;
  });
}

async function* chunksOf(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('decodeLines', () => {
  it('decodes text and unknown lines of a stream of strings, then ends with what the run owes (no exit information)', async () => {
    const events = await collect(
      decodeLines('claude', Readable.from(['Loading…\n{"hello":', '"world"}\n\n'], { objectMode: true }), { clock: FIXTURE_CLOCK }),
    );
    expect(events.map((e) => [e.kind, e.sequence])).toEqual([
      ['raw', 0],
      ['raw', 1],
      ['error', 2],
      ['result', 3],
    ]);
    expect(events[1].payload).toEqual({ stream: 'stdout', content: { hello: 'world' }, metadata: {} });
    expect(events[2].payload).toMatchObject({ severity: 'warning', code: 'no_result' });
  });

  it('passes its options to the decoder', async () => {
    const events = await collect(
      decodeLines('codex', Readable.from([Buffer.from('x\n')]), { startSequence: 7, keepRaw: 'none', clock: FIXTURE_CLOCK }),
    );
    expect(events.map((e) => [e.sequence, e.raw, e.timestamp])).toEqual([
      [7, null, '2026-01-01T00:00:00.000Z'],
      [8, null, '2026-01-01T00:00:00.000Z'],
      [9, null, '2026-01-01T00:00:00.000Z'],
    ]);
  });

  it('a recorded Claude run whose first line has no time: every event takes the recording\'s times, none "now", none backwards', async () => {
    const recording = [
      { type: 'system', subtype: 'init', cwd: '/tmp/w', session_id: 's-1', tools: [], model: 'claude-x' },
      {
        type: 'assistant',
        timestamp: '2025-05-06T07:08:09.123Z',
        session_id: 's-1',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Hi' }] },
      },
      { type: 'user', timestamp: '2025-05-06T07:08:10.000Z', session_id: 's-1', message: { role: 'user', content: 'more' } },
      {
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'Hi',
        session_id: 's-1',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    ].map((line) => `${JSON.stringify(line)}\n`);
    const events = await collect(decodeLines('claude', Readable.from(recording), { clock: FIXTURE_CLOCK }));
    const times = events.map((e) => e.timestamp as string);
    expect(times[0]).toBe('2025-05-06T07:08:09.123Z');
    expect(times.at(-1)).toBe('2025-05-06T07:08:10.000Z');
    expect(times).toEqual([...times].sort());
    expect(events.map((e) => e.sequence)).toEqual(events.map((_e, i) => i));
  });

  it('throws the unknown-provider TypeError at once, before reading anything', () => {
    let read = false;
    const source = (async function* () {
      read = true;
      yield 'x\n';
    })();
    expect(() => decodeLines('chatgpt' as never, source)).toThrow(
      /unknown provider "chatgpt": expected one of claude, codex, gemini, cursor, opencode, amp, qwen, pi, kilo, cline, auto/,
    );
    expect(read).toBe(false);
  });

  describe.each(all.map((fixture) => [`${fixture.provider}/${fixture.name}`, fixture] as const))('%s', (_label, fixture: Fixture) => {
    const lines = nativeLines(fixture);

    it('from the file gives what pushing its lines gives', async () => {
      expect(await collect(decodeLines(fixture.provider, createReadStream(fixture.nativePath), { clock: FIXTURE_CLOCK }))).toEqual(
        pushed(fixture.provider, lines),
      );
    });

    it('with CRLF line ends, in chunks of 7 bytes (lines and characters split), gives the same', async () => {
      const crlf = `${lines.join('\r\n')}\r\n`;
      expect(await collect(decodeLines(fixture.provider, chunksOf(crlf, 7), { clock: FIXTURE_CLOCK }))).toEqual(
        pushed(fixture.provider, lines),
      );
    });
  });
});

describe('detectProvider', () => {
  it.each([['not json'], [''], ['42'], ['null'], ['[{"type":"system"}]'], ['"text"']])('names no provider for %j', (line) => {
    expect(detectProvider(line)).toBeNull();
  });

  it('names no provider for an object no CLI prints', () => {
    expect(detectProvider('{"hello":"world"}')).toBeNull();
    expect(detectProvider({ hello: 'world' })).toBeNull();
    expect(detectProvider([])).toBeNull();
  });

  // Each fixture's first recognised line names its provider (or the CLI whose format it copies: `COPIES`).
  it.each(all.map((fixture) => [`${fixture.provider}/${fixture.name}`, fixture] as const))(
    '%s: the first recognised line names its provider, as text or parsed',
    (_label, fixture) => {
      const named =
        nativeLines(fixture)
          .map((line) => detectProvider(line))
          .find((id) => id !== null) ?? null;
      expect(detectedAsCopy(fixture.provider, named) ? fixture.provider : named).toBe(fixture.provider);
      const first = nativeLines(fixture).find((line) => detectProvider(line) !== null);
      if (first) expect(detectProvider(JSON.parse(first) as object)).toBe(named);
    },
  );

  it('answers only known ids', () => {
    for (const fixture of all) for (const line of nativeLines(fixture)) expect([null, ...PROVIDERS]).toContain(detectProvider(line));
  });
});
