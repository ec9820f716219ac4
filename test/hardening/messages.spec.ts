import 'reflect-metadata';
import fc from 'fast-check';
import { Event, KINDS, PAYLOAD_CLASSES, SchemaError, fieldsOf } from '../../src';
import { MODES, numRuns, objectFrom, TEST_TIMEOUT_MS } from './arbitraries';

jest.setTimeout(TEST_TIMEOUT_MS);

/*
 * Error messages stay short whatever the input. Decision: a message quotes at most 40
 * characters of any offending value, and of any key on an issue path (longer keys are cut
 * with "…"); paths longer than 8 keys show their first and last 4; at most 10 issues are
 * listed, then "… N more". `error.issues` and `error.errors` keep everything exactly,
 * including full keys (they are data, for programs, not text for logs).
 */

const RUNS = numRuns(60);
/** 40 quoted characters plus the rest of the longest issue text (the kind enum lists all kinds). */
const ISSUE_MESSAGE_BOUND = 400;
/** tag + 10 issues (path ≤ 8 keys of ≤ 41 characters, plus message) + "… N more". */
const ERROR_MESSAGE_BOUND = 60 + 10 * (8 * 42 + 6 + ISSUE_MESSAGE_BOUND) + 40;

/** The marker no message template contains: runs of it can only come from the input. */
const MARK = 'ж';
const KEY_MARK = 'ю';

function longestRun(text: string, char: string): number {
  let best = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}

/** A huge value made of the marker: as a string, or inside JSON data, or as a key. */
const hugeText = fc.integer({ min: 41, max: 200_000 }).map((n) => MARK.repeat(n));
const hugeKey = fc.integer({ min: 41, max: 50_000 }).map((n) => KEY_MARK.repeat(n));
const hugeValue = fc.oneof(
  hugeText,
  hugeText.map((text) => [text]),
  fc.tuple(hugeKey, hugeText).map(([key, text]) => objectFrom([[key, text]])),
  fc.tuple(hugeKey, hugeText).map(([key, text]) => objectFrom([[key, () => text]])),
  fc.tuple(hugeKey, fc.integer({ min: 1, max: 60 })).map(([key, depth]) => {
    // deep path of huge keys ending in a bad value
    let value: unknown = undefined;
    for (let i = 0; i < depth; i++) value = objectFrom([[key, value === undefined ? [NaN] : value]]);
    return value;
  }),
);

/** An event input with huge values at several envelope and payload fields and huge unknown keys. */
const hugeEvent = fc
  .tuple(
    fc.constantFrom(...KINDS),
    fc.subarray(
      fieldsOf(Event).map((spec) => spec.key),
      { minLength: 1 },
    ),
    fc.array(hugeValue, { minLength: 20, maxLength: 20 }),
    fc.array(fc.tuple(hugeKey, hugeValue), { maxLength: 15 }),
    fc.boolean(),
  )
  .map(([kind, envelopeKeys, values, unknown, hugeKind]) => {
    const payloadKeys = fieldsOf(PAYLOAD_CLASSES[kind]).map((spec) => spec.key);
    const payload = objectFrom(payloadKeys.map((key, i) => [key, values[(i + 7) % values.length]]));
    const entries: [string, unknown][] = [
      ['kind', hugeKind ? MARK.repeat(100_000) : kind],
      ...envelopeKeys.filter((key) => key !== 'kind').map((key, i) => [key, values[i % values.length]] as [string, unknown]),
      ['payload', payload],
      ...unknown,
    ];
    return objectFrom(entries);
  });

describe.each(MODES)('bounded error messages (%s path)', (mode) => {
  it('an invalid event never quotes more than 40 characters of a value or a key, and its message is bounded', () => {
    let failures = 0;
    fc.assert(
      fc.property(hugeEvent, (input) => {
        const result = Event.safeParse(input, { mode });
        if (result.success) return; // e.g. huge strings in free-text fields are valid
        failures += 1;
        const { error } = result;
        expect(error).toBeInstanceOf(SchemaError);
        expect(error.message.length).toBeLessThanOrEqual(ERROR_MESSAGE_BOUND);
        expect(longestRun(error.message, MARK)).toBeLessThanOrEqual(40);
        expect(longestRun(error.message, KEY_MARK)).toBeLessThanOrEqual(40);
        for (const issue of error.issues) {
          expect(issue.message.length).toBeLessThanOrEqual(ISSUE_MESSAGE_BOUND);
          expect(longestRun(issue.message, MARK)).toBeLessThanOrEqual(40);
          expect(longestRun(issue.message, KEY_MARK)).toBeLessThanOrEqual(40);
        }
      }),
      { numRuns: RUNS },
    );
    // The property checks something only when parses fail: most generated events must fail.
    expect(failures).toBeGreaterThan(RUNS / 2);
  });

  it('the issue paths keep huge keys whole (documented: paths are data)', () => {
    const key = KEY_MARK.repeat(10_000);
    const result = Event.safeParse(
      objectFrom([
        ['kind', 'raw'],
        ['metadata', objectFrom([[key, () => 1]])],
      ]),
      { mode },
    );
    if (result.success) throw new Error('expected a failure');
    expect(result.error.issues[0].path).toEqual(['metadata', key]);
    expect(Object.keys(result.error.errors.metadata)).toEqual([key]);
    expect(result.error.message).toBe(`invalid_event: metadata["${KEY_MARK.repeat(40)}…"]: not JSON-serializable: function`);
  });
});
