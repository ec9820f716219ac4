import 'reflect-metadata';
import fc from 'fast-check';
import { Event, Model, ParseResult, fieldsOf } from '../src';
import {
  MODEL_CLASSES,
  anyEventInput,
  callerBuilt,
  callerWrappings,
  anyMutatedEventInput,
  firstDifference,
  invalidValue,
  modelInput,
  numRuns,
  objectFrom,
} from './hardening/arbitraries';

/*
 * The fast path (generated code) and the reference path (class-transformer +
 * class-validator on the same classes) must agree on every input: accept or
 * reject, the hydrated values, and the issues (tag, kind, codes and paths).
 */

type Outcome = ParseResult<object>;

/** Ids and "now" differ per parse when absent, so the cases pin them. */
function pinned(input: Record<string, unknown>): Record<string, unknown> {
  const out = objectFrom(Object.entries(Object.getOwnPropertyDescriptors(input)).map(([k, d]) => [k, d.value]));
  if (out.id === undefined || out.id === null) out.id = 7;
  if (out.timestamp === undefined || out.timestamp === null) out.timestamp = '2026-03-19T00:00:00.123456Z';
  return out;
}

/**
 * The input as one JSON line, pinned as it reads back (JSON.stringify drops an `undefined` or a
 * function, which may be an id); undefined when JSON.stringify refuses it (a BigInt, a cycle).
 */
function jsonLine(input: Record<string, unknown>): string | undefined {
  let line: string;
  try {
    line = JSON.stringify(input);
  } catch {
    return undefined;
  }
  const back: unknown = JSON.parse(line);
  return back !== null && typeof back === 'object' && !Array.isArray(back) ? JSON.stringify(pinned(back as Record<string, unknown>)) : line;
}

/** The same outcome, or a description of the first difference. */
function disagreement(fast: Outcome, reference: Outcome): string | undefined {
  if (fast.success !== reference.success) {
    const failed = fast.success ? reference : fast;
    return `fast ${fast.success ? 'accepted' : 'rejected'}, reference ${reference.success ? 'accepted' : 'rejected'}: ${failed.success ? '' : failed.error.message}`;
  }
  if (fast.success && reference.success) {
    if (fast.data.constructor !== reference.data.constructor) return 'different classes';
    const values = firstDifference((fast.data as Model).toMap(), (reference.data as Model).toMap());
    if (values) return `values differ at ${values}`;
    const text = JSON.stringify(fast.data) === JSON.stringify(reference.data);
    return text ? undefined : 'JSON text differs';
  }
  if (fast.success || reference.success) return undefined;
  const summary = (o: Outcome) =>
    o.success ? '' : JSON.stringify([o.error.tag, o.error.kind, o.error.issues.map((i) => [i.code, i.path, i.type ?? null]).sort()]);
  return summary(fast) === summary(reference) ? undefined : `issues differ: ${summary(fast)} vs ${summary(reference)}`;
}

function expectAgreement(parse: (mode: 'fast' | 'reference') => Outcome): void {
  const problem = disagreement(parse('fast'), parse('reference'));
  if (problem) throw new Error(problem);
}

describe('fast path and reference path agree', () => {
  it('on valid events of every kind', () => {
    fc.assert(
      fc.property(anyEventInput, ({ input }) => {
        const event = pinned(input);
        expectAgreement((mode) => Event.safeParse(event, { mode }));
        expect(Event.safeParse(event).success).toBe(true);
      }),
      { numRuns: numRuns(800) },
    );
  });

  it('on events with one field broken (the issue paths included)', () => {
    fc.assert(
      fc.property(anyMutatedEventInput, ({ input, path }) => {
        const event = pinned(input);
        expectAgreement((mode) => Event.safeParse(event, { mode }));
        const fast = Event.safeParse(event);
        expect(fast.success).toBe(false);
        if (!fast.success) expect(fast.error.issues.map((i) => i.path.slice(0, path.length))).toContainEqual(path);
      }),
      { numRuns: numRuns(1200) },
    );
  });

  it('on the same lines read as JSON text', () => {
    fc.assert(
      fc.property(anyEventInput, ({ input }) => {
        const line = JSON.stringify(pinned(input));
        expectAgreement((mode) => Event.safeFromJSON(line, { mode }));
      }),
      { numRuns: numRuns(400) },
    );
  });

  it('on broken lines read as JSON text', () => {
    fc.assert(
      fc.property(anyMutatedEventInput, ({ input }) => {
        const line = jsonLine(pinned(input));
        if (line !== undefined) expectAgreement((mode) => Event.safeFromJSON(line, { mode }));
      }),
      { numRuns: numRuns(600) },
    );
  });

  // fromJSON first tries the fast path for JSON.parse output, which keeps no issues; a line it
  // refuses goes through the full parse. Both must answer what a parse of the same object answers.
  it('fromJSON (its fast path, then the full parse) answers what a parse of the parsed object answers', () => {
    fc.assert(
      fc.property(fc.oneof(anyEventInput, anyMutatedEventInput), ({ input }) => {
        const line = jsonLine(pinned(input));
        if (line === undefined) return;
        const problem = disagreement(Event.safeFromJSON(line), Event.safeParse(JSON.parse(line)));
        if (problem) throw new Error(`${problem} on ${line.slice(0, 300)}`);
      }),
      { numRuns: numRuns(1200) },
    );
  });

  it('on caller-built objects: getters, changing getters, Proxies, forged prototypes, sparse arrays (issue #12)', () => {
    fc.assert(
      fc.property(fc.oneof(anyEventInput, anyMutatedEventInput), callerWrappings, ({ input }, wrappings) => {
        const event = pinned(input);
        // Each parse gets its own copy: a changing getter must be read for the first time by each.
        expectAgreement((mode) => Event.safeParse(callerBuilt(event, wrappings), { mode }));
      }),
      { numRuns: numRuns(600) },
    );
  });

  describe.each(MODEL_CLASSES)('%s', (_name, cls) => {
    const fields = fieldsOf(cls);
    const broken = fc
      .tuple(modelInput(cls), fc.constantFrom(...fields))
      .chain(([input, spec]) =>
        invalidValue(spec).map((value) =>
          objectFrom([
            ...Object.entries(Object.getOwnPropertyDescriptors(input)).map(([k, d]) => [k, d.value] as [string, unknown]),
            [spec.key, value],
          ]),
        ),
      );
    const Cls = cls as unknown as { safeParse(input: unknown, options: { mode: 'fast' | 'reference' }): Outcome };

    it('on valid and broken inputs', () => {
      fc.assert(
        fc.property(fc.oneof(modelInput(cls), broken), (input) => expectAgreement((mode) => Cls.safeParse(input, { mode }))),
        { numRuns: numRuns(120) },
      );
    });
  });

  it('on non-object input', () => {
    for (const input of [null, undefined, 1, 'x', true, [], [1], new Date(0), new Map()]) {
      expectAgreement((mode) => Event.safeParse(input, { mode }));
    }
  });
});
