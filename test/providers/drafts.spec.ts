import 'reflect-metadata';
import fc from 'fast-check';
import { copyOf, extend, pick } from '../../src/providers/drafts';
import type { JsonObject } from '../../src/schema/json';
import { jsonKey, jsonValue, numRuns, objectFrom } from '../hardening/arbitraries';

/*
 * The metadata builders profiles use instead of object spreads (drafts.ts): the same object as the
 * spread they stand for, key for key and in the same order, a `__proto__` key of a native line kept
 * as a key, and no prototype's keys.
 */

/** A native line's object: JSON keys (`__proto__` among them) with JSON values, as JSON.parse makes them. */
const line = fc.array(fc.tuple(jsonKey, jsonValue), { maxLength: 8 }).map((entries) => objectFrom(entries) as JsonObject);

/** Own keys in order with their values: what JSON.stringify writes and what a spread copies. */
const entriesOf = (value: object) => Reflect.ownKeys(value).map((key) => [key, (value as Record<PropertyKey, unknown>)[key]]);

describe('extend and copyOf', () => {
  it('give the object `{ ...to, ...from }` and `{ ...from }` give, and leave `from` as it was', () => {
    fc.assert(
      fc.property(line, line, (to, from) => {
        const expected = { ...to, ...from };
        const before = entriesOf(from);
        const target = copyOf(to);
        expect(extend(target, from)).toBe(target);
        expect(entriesOf(target)).toEqual(entriesOf(expected));
        expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
        expect(entriesOf(copyOf(from))).toEqual(entriesOf({ ...from }));
        expect(copyOf(from)).not.toBe(from);
        expect(entriesOf(from)).toEqual(before);
      }),
      { numRuns: numRuns(200) },
    );
  });

  it('keep a `__proto__` key of a native line as a key, and copy no inherited key', () => {
    const from = JSON.parse('{"a":1,"__proto__":{"polluted":true},"b":2}') as JsonObject;
    const copy = copyOf(from);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe('{"a":1,"__proto__":{"polluted":true},"b":2}');
    const child = Object.create(from) as JsonObject;
    child.own = true;
    expect(copyOf(child)).toEqual({ own: true });
  });
});

describe('pick', () => {
  it('sets the present own keys in the order asked, on the object given, as the copy loop did', () => {
    fc.assert(
      fc.property(
        line,
        fc.array(
          jsonKey.filter((key) => key !== '__proto__'),
          { maxLength: 6 },
        ),
        line,
        (from, keys, into) => {
          const expected: JsonObject = { ...into };
          for (const key of keys) if (Object.prototype.hasOwnProperty.call(from, key) && from[key] !== undefined) expected[key] = from[key];
          const target = copyOf(into);
          expect(pick(from, keys, target)).toBe(target);
          expect(entriesOf(target)).toEqual(entriesOf(expected));
        },
      ),
      { numRuns: numRuns(200) },
    );
  });

  it('takes no key from a prototype, and makes a new object by default', () => {
    const from = Object.create({ inherited: 1 }) as JsonObject;
    from.own = 2;
    from.absent = undefined as unknown as JsonObject[string];
    expect(pick(from, ['inherited', 'own', 'absent', 'constructor'])).toEqual({ own: 2 });
  });
});
