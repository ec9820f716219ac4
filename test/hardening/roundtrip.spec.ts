import 'reflect-metadata';
import { wire } from '../wire';
import fc from 'fast-check';
import { Event, KINDS } from '../../src';
import { MODEL_CLASSES, MODES, eventInput, firstDifference, modelInput, numRuns, TEST_TIMEOUT_MS } from './arbitraries';

jest.setTimeout(TEST_TIMEOUT_MS);

/*
 * Round trips. "Deep-equal" is `firstDifference` (arbitraries.ts): same class at every object,
 * same own keys in the same order, timestamps by their JSON text, numbers by `===` (JSON has
 * no -0). The second JSON text must be byte-identical to the first.
 */

const RUNS = numRuns(60);

function expectSame(actual: unknown, expected: unknown): void {
  const diff = firstDifference(actual, expected);
  if (diff) throw new Error(`not deep-equal at ${diff}`);
}

describe.each(MODES)('round trips (%s path)', (mode) => {
  it.each([...KINDS])('%s: fromJSON(JSON.stringify(e)) deep-equals e; the text is stable; parse(object) agrees', (kind) => {
    fc.assert(
      fc.property(eventInput(kind), ({ input }) => {
        const event = Event.parse(input, { mode });
        expect(event).toBeInstanceOf(Event);
        expect(event.kind).toBe(kind);
        const text = JSON.stringify(event);
        expect(JSON.stringify(event)).toBe(text);

        const back = Event.fromJSON(text, { mode });
        expectSame(back, event);
        expect(JSON.stringify(back)).toBe(text);

        // the same wire object, parsed as an object (JSON-ready form, then snake_case map with Dates)
        expectSame(Event.parse(JSON.parse(text), { mode }), event);
        expectSame(Event.parse(wire(event), { mode }), event);
        expectSame(Event.parse(event.toMap(), { mode }), event);
      }),
      { numRuns: RUNS },
    );
  });

  it.each(MODEL_CLASSES)('%s: fromJSON(JSON.stringify(p)) deep-equals p; the text is stable', (_name, cls) => {
    fc.assert(
      fc.property(modelInput(cls), (input) => {
        const model = cls.parse(input, { mode });
        expect(model).toBeInstanceOf(cls);
        const text = JSON.stringify(model);
        const back = cls.fromJSON(text, { mode });
        expectSame(back, model);
        expect(JSON.stringify(back)).toBe(text);
        expectSame(cls.parse(model.toMap(), { mode }), model);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('round trips: both paths build the same event', () => {
  it('fast and reference parse every valid input to deep-equal events with the same JSON', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KINDS).chain(eventInput), ({ input }) => {
        const fast = Event.parse(input, { mode: 'fast' });
        const reference = Event.parse(input, { mode: 'reference' });
        // missing ids and timestamps default to the next counter value and to now: compare all else
        reference.id = fast.id;
        if (input.timestamp == null) reference.timestamp = fast.timestamp;
        expectSame(reference, fast);
        expect(JSON.stringify(reference)).toBe(JSON.stringify(fast));
      }),
      { numRuns: RUNS * 4 },
    );
  });
});
