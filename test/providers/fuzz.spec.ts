import 'reflect-metadata';
import fc from 'fast-check';
import { Event, type AnyEvent } from '../../src';
import { createDecoder } from '../../src/decode/decoder';
import { PROVIDERS, type ProviderId } from '../../src/decode/provider-id';
import { anyText, jsonObject, jsonValue, numRuns, TEST_TIMEOUT_MS } from '../hardening/arbitraries';
import { FIXTURE_CLOCK, fixtures, nativeLines } from './fixtures';

jest.setTimeout(TEST_TIMEOUT_MS);

/*
 * No line makes a decoder throw, and every non-blank line yields at least one valid event:
 * arbitrary text, arbitrary JSON objects, and real fixture lines with a field deleted or its
 * value replaced (null, a number, an array, an object, a huge string, any JSON), for every
 * provider and for 'auto'. Mutated lines are decoded in their transcript, so each profile's
 * per-run state (open text, pending tools, running totals) meets them too.
 */

const RUNS = numRuns(200);
const DECODERS: (ProviderId | 'auto')[] = [...PROVIDERS, 'auto'];
const decoderId = fc.constantFrom(...DECODERS);

/** Pushes every line, then ends; checks the "never throws, nothing lost, valid events" contract on the way. */
function decodeChecked(provider: ProviderId | 'auto', lines: string[], exit?: { code: number | null; signal: string | null }): AnyEvent[] {
  const decoder = createDecoder(provider, { clock: FIXTURE_CLOCK });
  const events: AnyEvent[] = [];
  for (const line of lines) {
    const produced = decoder.push(line);
    if (line.trim() !== '') expect(produced.length).toBeGreaterThanOrEqual(1);
    events.push(...produced);
  }
  events.push(...decoder.end(exit));
  events.forEach((event, i) => {
    expect(event.sequence).toBe(i);
    const text = JSON.stringify(event);
    expect(JSON.stringify(Event.fromJSON(text))).toBe(text);
  });
  return events;
}

/** The paths to every value inside a JSON value (object keys and array indices), the root excluded. */
function pathsOf(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(value)) value.forEach((item, i) => (out.push([...prefix, i]), pathsOf(item, [...prefix, i], out)));
  else if (typeof value === 'object' && value !== null)
    for (const key of Object.keys(value)) {
      out.push([...prefix, key]);
      pathsOf((value as Record<string, unknown>)[key], [...prefix, key], out);
    }
  return out;
}

const HUGE = 'x'.repeat(200_000);

/** How one value is changed: deleted, or replaced by a value of another type. */
const mutation = fc.oneof(
  fc.constant({ delete: true as const }),
  fc.constantFrom(null, 0, -1, 1.5, 1e308, true, [], {}, '', HUGE, [HUGE], { type: 'text' }).map((value) => ({ value })),
  jsonValue.map((value) => ({ value })),
);

type Mutation = { delete: true } | { value: unknown };

/** `line` (parsed JSON) with the value at the n-th path (modulo their count) mutated; the root itself when it has none. */
function mutate(line: unknown, n: number, change: Mutation): unknown {
  const copy = JSON.parse(JSON.stringify(line)) as unknown;
  const paths = pathsOf(copy);
  if (paths.length === 0) return 'delete' in change ? {} : change.value;
  const path = paths[n % paths.length];
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if ('delete' in change) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else {
    parent[last] = change.value;
  }
  return copy;
}

const transcripts = fixtures().map((fixture) => ({
  label: `${fixture.provider}/${fixture.name}`,
  provider: fixture.provider,
  lines: nativeLines(fixture),
  exit: fixture.exit,
}));

it('arbitrary text lines never make a decoder throw', () => {
  fc.assert(
    fc.property(
      decoderId,
      fc.array(fc.oneof(anyText, fc.constantFrom('{', '}', '[]', '{"type":', 'null', '""', '\ufeff{}')), { maxLength: 6 }),
      (provider, lines) => {
        decodeChecked(provider, lines);
      },
    ),
    { numRuns: RUNS },
  );
});

it('arbitrary JSON objects and values never make a decoder throw', () => {
  fc.assert(
    fc.property(
      decoderId,
      fc.array(fc.oneof({ weight: 3, arbitrary: jsonObject }, { weight: 1, arbitrary: jsonValue }), { minLength: 1, maxLength: 6 }),
      (provider, values) => {
        decodeChecked(
          provider,
          values.map((value) => JSON.stringify(value)),
        );
      },
    ),
    { numRuns: RUNS },
  );
});

// Every native `type` seen in the fixtures, so arbitrary objects also reach the profiles' handlers.
const nativeTypes = [
  ...new Set(
    transcripts
      .flatMap((t) =>
        t.lines.map((line) => {
          try {
            return (JSON.parse(line) as { type?: unknown }).type;
          } catch {
            return undefined;
          }
        }),
      )
      .filter((type): type is string => typeof type === 'string'),
  ),
];

const maybe = nativeTypes.length > 0 ? it : it.skip;

maybe('arbitrary objects carrying a real native type never make a decoder throw', () => {
  fc.assert(
    fc.property(
      decoderId,
      fc.array(fc.tuple(fc.constantFrom(...nativeTypes), jsonObject), { minLength: 1, maxLength: 6 }),
      (provider, lines) => {
        decodeChecked(
          provider,
          lines.map(([type, fields]) => JSON.stringify({ ...fields, type })),
        );
      },
    ),
    { numRuns: RUNS },
  );
});

const withTranscripts = transcripts.length > 0 ? it : it.skip;

withTranscripts('fixture transcripts with mutated lines never make their decoder (or auto) throw', () => {
  const changes = fc.array(fc.tuple(fc.nat(), fc.nat(), mutation), { minLength: 1, maxLength: 3 });
  fc.assert(
    fc.property(fc.constantFrom(...transcripts), fc.boolean(), changes, (transcript, auto, edits) => {
      const lines = [...transcript.lines];
      for (const [lineIndex, pathIndex, change] of edits) {
        const i = lineIndex % lines.length;
        let parsed: unknown;
        try {
          parsed = JSON.parse(lines[i]);
        } catch {
          continue; // a text line has no fields to change
        }
        lines[i] = JSON.stringify(mutate(parsed, pathIndex, change));
      }
      decodeChecked(auto ? 'auto' : transcript.provider, lines, transcript.exit);
    }),
    { numRuns: RUNS },
  );
});

withTranscripts('fixture lines in any order, repeated or missing, never make their decoder throw', () => {
  fc.assert(
    fc.property(fc.constantFrom(...transcripts), fc.array(fc.nat(), { maxLength: 30 }), (transcript, picks) => {
      decodeChecked(
        transcript.provider,
        picks.map((n) => transcript.lines[n % transcript.lines.length]),
        transcript.exit,
      );
    }),
    { numRuns: RUNS },
  );
});
