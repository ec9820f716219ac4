import 'reflect-metadata';
import fc from 'fast-check';
import { Event, KINDS, Model, ParseResult, SchemaError } from '../../src';
import {
  MODEL_CLASSES,
  MODES,
  Mode,
  anyEventInput,
  eventWithAnything,
  hostileAnything,
  mutatedEventInput,
  numRuns,
  TEST_TIMEOUT_MS,
} from './arbitraries';

jest.setTimeout(TEST_TIMEOUT_MS);

/*
 * safeParse never throws, on anything; parse throws nothing but SchemaError; both parse paths
 * make the same accept/reject decision. Values come from fc.anything (boxed values, null
 * prototypes, typed and sparse arrays, Maps, Sets, bigint, hostile keys) and from valid events
 * with one field replaced by a wrong value.
 */

const RUNS = numRuns(150);

/** safeParse and parse of one input in one mode: checks the contract, answers the result. */
function checkContract(
  safeParse: (input: unknown, mode: Mode) => ParseResult<unknown>,
  parse: (input: unknown, mode: Mode) => unknown,
  input: unknown,
  mode: Mode,
): ParseResult<unknown> {
  const result = safeParse(input, mode); // a throw here fails the property
  expect(typeof result.success).toBe('boolean');
  let thrown: unknown;
  try {
    parse(input, mode);
  } catch (error) {
    thrown = error;
  }
  if (result.success) {
    expect(thrown).toBeUndefined();
  } else {
    expect(result.error).toBeInstanceOf(SchemaError);
    expect(result.error.issues.length).toBeGreaterThan(0);
    expect(thrown).toBeInstanceOf(SchemaError);
    expect((thrown as SchemaError).issues).toEqual(result.error.issues);
  }
  return result;
}

/** Both modes: the contract, and the same decision. */
function checkBothModes(
  safeParse: (input: unknown, mode: Mode) => ParseResult<unknown>,
  parse: (input: unknown, mode: Mode) => unknown,
  input: unknown,
): ParseResult<unknown>[] {
  const results = MODES.map((mode) => checkContract(safeParse, parse, input, mode));
  expect(results[1].success).toBe(results[0].success);
  return results;
}

const eventSafeParse = (input: unknown, mode: Mode) => Event.safeParse(input, { mode }) as ParseResult<unknown>;
const eventParse = (input: unknown, mode: Mode) => Event.parse(input, { mode });

describe('never throws: Event', () => {
  it('safeParse(anything) answers, parse throws only SchemaError, both paths agree', () => {
    fc.assert(
      fc.property(hostileAnything, (input) => {
        checkBothModes(eventSafeParse, eventParse, input);
      }),
      { numRuns: RUNS },
    );
  });

  it('an event with one field, the payload or a payload field set to anything', () => {
    fc.assert(
      fc.property(eventWithAnything, (input) => {
        checkBothModes(eventSafeParse, eventParse, input);
      }),
      { numRuns: RUNS },
    );
  });

  it('safeFromJSON(anything) answers; fromJSON throws only SchemaError', () => {
    fc.assert(
      fc.property(hostileAnything, (input) => {
        for (const mode of MODES) {
          const result = Event.safeFromJSON(input as string, { mode });
          if (typeof input !== 'string') expect(result).toMatchObject({ success: false, error: { issues: [{ code: 'json' }] } });
          try {
            Event.fromJSON(input as string, { mode });
          } catch (error) {
            expect(error).toBeInstanceOf(SchemaError);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe.each(KINDS)('wrong values are rejected with their path: %s', (kind) => {
  it('one field (envelope or payload) set to a wrong type, a blank required string, a boundary number or non-JSON data', () => {
    fc.assert(
      fc.property(mutatedEventInput(kind), ({ input, path }) => {
        for (const result of checkBothModes(eventSafeParse, eventParse, input)) {
          expect(result.success).toBe(false);
          if (result.success) return;
          // the mutated field is reported (nested data reports a deeper path that starts there)
          const at = result.error.issues.filter((issue) => path.every((key, i) => issue.path[i] === key));
          expect(at.length).toBeGreaterThan(0);
          expect(result.error.tag).toBe(path[0] === 'payload' ? 'invalid_event_payload' : 'invalid_event');
        }
      }),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  });
});

describe.each(MODEL_CLASSES)('never throws: %s', (_name, cls) => {
  const safeParse = (input: unknown, mode: Mode) => cls.safeParse(input, { mode }) as ParseResult<unknown>;
  const parse = (input: unknown, mode: Mode) => cls.parse(input, { mode });

  it('safeParse(anything) answers, parse throws only SchemaError, both paths agree', () => {
    fc.assert(
      fc.property(hostileAnything, (input) => {
        for (const result of checkBothModes(safeParse, parse, input)) {
          if (result.success) expect(result.data).toBeInstanceOf(cls);
          else expect(result.error.tag).toBe(cls.prototype instanceof Model && 'kind' in cls ? 'invalid_payload' : 'invalid_tool');
        }
      }),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  });

  it('a valid input with one key set to anything', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(new (cls as unknown as new () => Record<string, unknown>)()), 'unknown_key'),
        hostileAnything,
        (key, value) => {
          checkBothModes(safeParse, parse, { [key]: value, name: 'n', tool_name: 't', tool_call_id: 'c' });
        },
      ),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  });
});

describe('never throws: valid events stay valid under both paths', () => {
  it('every generated valid event parses in both modes', () => {
    fc.assert(
      fc.property(anyEventInput, ({ input }) => {
        for (const result of checkBothModes(eventSafeParse, eventParse, input)) expect(result.success).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
