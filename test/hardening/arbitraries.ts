import 'reflect-metadata';
import fc from 'fast-check';
import {
  Event,
  EventKind,
  FieldSpec,
  KINDS,
  Model,
  PAYLOAD_CLASSES,
  PreciseDate,
  SchemaError,
  ToolDescriptor,
  ToolRequest,
  ToolResponse,
  fieldsOf,
} from '../../src';

/*
 * Shared fast-check arbitraries for the hardening suite (and for differential tests of the
 * fast path against the reference path). Inputs are built from the declared field specs
 * (`fieldsOf`), so a new field or payload class is covered without touching this file.
 */

/** Runs per property: `FUZZ_RUNS` when set (`FUZZ_RUNS=100000 npm run fuzz`), else the CI default. */
export function numRuns(ciDefault: number): number {
  const runs = Number(process.env.FUZZ_RUNS);
  return Number.isSafeInteger(runs) && runs > 0 ? runs : ciDefault;
}

/**
 * Per-test timeout: roomy for CI (other suites share the cores), unlimited for a fuzz run.
 * Each spec calls `jest.setTimeout(TEST_TIMEOUT_MS)`.
 */
export const TEST_TIMEOUT_MS = process.env.FUZZ_RUNS ? 24 * 3600 * 1000 : 60_000;

/** Both parse paths; every property runs in each. */
export const MODES = ['fast', 'reference'] as const;
export type Mode = (typeof MODES)[number];

/** Payload and tool classes by name, for `describe.each`. */
export const MODEL_CLASSES: [string, typeof Model & { new (): Model }][] = [
  ...KINDS.map((kind) => [PAYLOAD_CLASSES[kind].name, PAYLOAD_CLASSES[kind]] as [string, typeof Model & { new (): Model }]),
  ['ToolDescriptor', ToolDescriptor],
  ['ToolRequest', ToolRequest],
  ['ToolResponse', ToolResponse],
];

// ---------------------------------------------------------------------------------------------
// Text

/** Characters String.prototype.trim removes (a sample: ASCII, NBSP, line separators, BOM). */
export const WHITESPACE = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2028', '\u2029', '\u3000', '\ufeff'];
/** Unpaired UTF-16 halves: legal in JS strings, escaped by JSON.stringify, kept by the library. */
export const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff'];

const textUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom(...WHITESPACE, '"', '\\', '\u0000', '\u2028', '😀', 'é', 'e\u0301') },
  { weight: 1, arbitrary: fc.constantFrom(...LONE_SURROGATES) },
);

/** Any string, empty included: unicode, control characters, quotes, lone surrogates. */
export const anyText = fc.string({ unit: textUnit, maxLength: 24 });
const whitespaceRun = fc.array(fc.constantFrom(...WHITESPACE), { maxLength: 3 }).map((chars) => chars.join(''));
/** Free text with surrounding whitespace (trimmed fields must trim it; text fields keep it). */
export const paddedText = fc.tuple(whitespaceRun, anyText, whitespaceRun).map(([a, b, c]) => a + b + c);
/** Text that is not blank once trimmed (required strings). */
export const nonBlankText = paddedText.filter((text) => text.trim() !== '');

/** Keys that name something on Object.prototype or on a class: must stay plain data. */
export const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'then',
  'toJSON',
  '',
];
/** Object keys for JSON data: any text, often a hostile one. */
export const jsonKey = fc.oneof({ weight: 4, arbitrary: anyText }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_KEYS) });

/** The result of `run`, or its SchemaError; any other exception fails the test. */
export function outcome<T>(run: () => T): { value?: T; error?: SchemaError } {
  try {
    return { value: run() };
  } catch (error) {
    if (error instanceof SchemaError) return { error };
    throw error;
  }
}

/**
 * A plain object from entries, each an own enumerable data property: `__proto__` becomes a key,
 * as JSON.parse makes it, instead of setting the prototype (which `{ [k]: v }` spreads would not).
 */
export function objectFrom(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

// ---------------------------------------------------------------------------------------------
// JSON values

/** Numbers at the edges of a double and of the safe integers, plus -0. */
export const BOUNDARY_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  2 ** 53,
  2 ** 53 + 2,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  -Number.MIN_VALUE,
  Number.EPSILON,
  1e21,
  1e-7,
  123456789.123456789,
];

/** Any finite double (JSON can hold no other number); JSON writes -0 as 0. */
export const jsonNumber = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(...BOUNDARY_NUMBERS),
);
export const jsonScalar = fc.oneof(fc.constant(null), fc.boolean(), jsonNumber, anyText);

const jsonTree = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ maxDepth: 4, depthIdentifier: 'json', withCrossShrink: true }, jsonScalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5, depthIdentifier: 'json' }),
  object: fc
    .uniqueArray(fc.tuple(jsonKey, tie('value')), { maxLength: 5, selector: ([key]) => key, depthIdentifier: 'json' })
    .map(objectFrom),
}));

/** Any JSON value (hostile keys, unicode, boundary numbers), as JSON.parse could return it. */
export const jsonValue: fc.Arbitrary<unknown> = jsonTree.value;
/** A JSON array. */
export const jsonArray: fc.Arbitrary<unknown[]> = jsonTree.array;
/** A JSON object. */
export const jsonObject: fc.Arbitrary<Record<string, unknown>> = jsonTree.object;

// ---------------------------------------------------------------------------------------------
// Timestamps

/** Epoch ms of 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years a 4-digit ISO text can name. */
export const MIN_WRITABLE_MS = -62167219200000;
export const MAX_WRITABLE_MS = 253402300799999;

const instant = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true });

/** ISO 8601 text as providers write it: 0 to 9 fraction digits (µs, ns), `Z` or an offset. */
export const isoTimestamp = fc
  .tuple(instant, fc.integer({ min: 0, max: 9 }), fc.stringMatching(/^\d{9}$/), fc.constantFrom('Z', '+00:00', '-05:30', '+14:00'))
  .map(([date, digits, fraction, zone]) => {
    const base = date.toISOString().slice(0, 19);
    return `${base}${digits ? `.${fraction.slice(0, digits)}` : ''}${zone}`;
  });

/** Any accepted timestamp input: ISO text (most often), a Date, or epoch ms. */
export const timestampInput = fc.oneof(
  { weight: 4, arbitrary: isoTimestamp },
  { weight: 1, arbitrary: fc.constant('2026-03-19T00:00:00.123456Z') },
  { weight: 1, arbitrary: instant },
  { weight: 1, arbitrary: instant.map((date) => new PreciseDate(date.getTime())) },
  { weight: 1, arbitrary: fc.integer({ min: MIN_WRITABLE_MS, max: MAX_WRITABLE_MS }) },
  { weight: 1, arbitrary: fc.constantFrom(MIN_WRITABLE_MS, MAX_WRITABLE_MS, 0, -0) },
);

// ---------------------------------------------------------------------------------------------
// Field values, from the declared specs

/** Marks a key left out of a generated input. */
export const ABSENT: unique symbol = Symbol('absent');
type Maybe<T> = T | typeof ABSENT;

/** A value the field accepts (types as documented in the field table of docs/event-model.md). */
export function validValue(spec: FieldSpec): fc.Arbitrary<unknown> {
  switch (spec.type) {
    case 'text':
      return paddedText;
    case 'trimmed':
      return spec.required ? nonBlankText : paddedText;
    case 'int': {
      const min = spec.min ?? 0;
      const edges = [min, min + 1, Number.MAX_SAFE_INTEGER, ...(min === 0 ? [-0] : [])];
      return fc.oneof(fc.integer({ min, max: 10_000 }), fc.integer({ min, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(...edges));
    }
    case 'number': {
      const min = spec.min ?? 0;
      return fc.oneof(
        fc.double({ min, noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom(min, Number.MAX_VALUE, Number.MAX_SAFE_INTEGER, 0.1, ...(min === 0 ? [-0, Number.MIN_VALUE] : [])),
      );
    }
    case 'bool':
      return fc.boolean();
    case 'enum':
      return fc.tuple(whitespaceRun, fc.constantFrom(...(spec.values ?? [])), whitespaceRun).map(([a, b, c]) => a + b + c);
    case 'object':
      return jsonObject;
    case 'array':
      return jsonArray;
    case 'any':
      return jsonValue;
    case 'string_list':
      return fc.array(paddedText, { maxLength: 4 });
    case 'timestamp':
      return timestampInput;
    case 'payload':
      throw new Error('payload values are built by eventInput');
  }
}

/** A value the field must reject (the rules of docs/event-model.md broken one way or another). */
export function invalidValue(spec: FieldSpec): fc.Arbitrary<unknown> {
  const notString = fc.oneof(fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}), fc.constant([' x ']));
  switch (spec.type) {
    case 'text':
      return notString;
    case 'trimmed':
      return spec.required ? fc.oneof(notString, whitespaceRun) : notString;
    case 'int':
      return fc.oneof(
        fc.constantFrom(
          0.5,
          -1,
          (spec.min ?? 0) - 1,
          Number.MAX_SAFE_INTEGER + 1,
          2 ** 53 + 2,
          1e300,
          Infinity,
          -Infinity,
          NaN,
          '1',
          true,
          [1],
          {},
        ),
        fc.double({ noNaN: true }).filter((n) => !Number.isInteger(n)),
        fc.integer({ min: -1e9, max: -1 }),
      );
    case 'number':
      return fc.oneof(
        fc.constantFrom(-1, -Number.MIN_VALUE, Infinity, -Infinity, NaN, '1', true, {}),
        fc.double({ max: -Number.MIN_VALUE, noNaN: true }),
      );
    case 'bool':
      return fc.constantFrom('true', 'false', 0, 1, [], {});
    case 'enum':
      return fc.oneof(
        fc.constantFrom(1, true, [], {}, 'nope'),
        anyText.filter((text) => !(spec.values ?? []).includes(text.trim())),
      );
    case 'object':
      return fc.oneof(
        fc.constantFrom([], 'x', 1, true),
        nonJsonValue.map((bad) => ({ ok: 1, bad })),
      );
    case 'array':
      return fc.oneof(
        fc.constantFrom({}, 'x', 1, true),
        nonJsonValue.map((bad) => [1, bad]),
      );
    case 'any':
      // a bare `undefined` is "missing" (the default), so it is nested here
      return fc.oneof(
        nonJsonValue.filter((value) => value !== undefined),
        nonJsonValue.map((bad) => ({ bad })),
        nonJsonValue.map((bad) => [bad]),
      );
    case 'string_list':
      return fc.oneof(
        fc.constantFrom('a', 1, {}, true),
        fc.constantFrom(1, null, {}, [], true).map((bad) => ['a', bad]),
      );
    case 'timestamp':
      return fc.constantFrom(
        'yesterday',
        '2026-13-01T00:00:00Z',
        '2026-03-19',
        '',
        NaN,
        Infinity,
        8.64e15 + 1,
        true,
        {},
        [],
        new Date(NaN),
        MAX_WRITABLE_MS + 1,
        MIN_WRITABLE_MS - 1,
        new Date(MAX_WRITABLE_MS + 1),
        new Date(-8.64e15),
      );
    case 'payload':
      return fc.constantFrom('x', 1, true, [], new Date(), new Map());
  }
}

/** Values that are not JSON data: each must be reported as `serializable` (or a type error). */
export const nonJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    undefined,
    NaN,
    Infinity,
    -Infinity,
    () => 1,
    Symbol('s'),
    1n,
    new Date(0),
    new Map(),
    new Set(),
    /x/,
    new Uint8Array(2),
    new (class Thing {})(),
  ),
  fc.constant(null).map(() => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    return cycle;
  }),
);

/** The input object for one class: each field absent, null (default) or valid, plus unknown keys. */
export function modelInput(cls: object, options: { skip?: readonly string[] } = {}): fc.Arbitrary<Record<string, unknown>> {
  const fields = fieldsOf(cls).filter((spec) => spec.type !== 'payload' && !options.skip?.includes(spec.key));
  const known = new Set(fieldsOf(cls).map((spec) => spec.key));
  const values = fields.map((spec) =>
    spec.required
      ? validValue(spec)
      : fc.oneof(
          { weight: 1, arbitrary: fc.constant<Maybe<unknown>>(ABSENT) },
          { weight: 1, arbitrary: fc.constant(null) },
          { weight: 4, arbitrary: validValue(spec) },
        ),
  );
  // `extra` is where unknown keys are stored, so an incoming key of that name is not generated here.
  const unknownKey = jsonKey.filter((key) => !known.has(key) && key !== 'extra');
  const unknown = fc.uniqueArray(fc.tuple(unknownKey, jsonValue), { maxLength: 4, selector: ([key]) => key });
  return fc
    .tuple(fc.tuple(...values), unknown)
    .map(([vals, extra]) =>
      objectFrom([...fields.flatMap((spec, i) => (vals[i] === ABSENT ? [] : [[spec.key, vals[i]] as const])), ...extra]),
    );
}

/** A generated event input (wire form, as an object) of a known kind. */
export interface EventCase {
  kind: EventKind;
  input: Record<string, unknown>;
}

/**
 * A valid event input of `kind`: every envelope and payload field absent, null or valid,
 * unknown keys at both levels, the kind padded with whitespace, the payload missing, null,
 * a plain object or an instance of the kind's class.
 */
export function eventInput(kind: EventKind): fc.Arbitrary<EventCase> {
  const cls = PAYLOAD_CLASSES[kind] as unknown as typeof Model & { new (): Model };
  const payloadObject = modelInput(cls);
  const payload = fc.oneof(
    { weight: 1, arbitrary: fc.constant<unknown>(ABSENT) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 6, arbitrary: payloadObject },
    { weight: 1, arbitrary: payloadObject.map((input) => cls.parse(input)) },
  );
  const kindText = fc.tuple(whitespaceRun, whitespaceRun).map(([a, b]) => a + kind + b);
  return fc.tuple(modelInput(Event, { skip: ['kind'] }), kindText, payload).map(([envelope, kindValue, payloadValue]) => {
    const entries: [string, unknown][] = [
      ['kind', kindValue],
      ...Object.entries(Object.getOwnPropertyDescriptors(envelope)).map(([k, d]) => [k, d.value] as [string, unknown]),
    ];
    if (payloadValue !== ABSENT) entries.push(['payload', payloadValue]);
    return { kind, input: objectFrom(entries) };
  });
}

/** A valid event input of any kind. */
export const anyEventInput: fc.Arbitrary<EventCase> = fc.constantFrom(...KINDS).chain(eventInput);

/** Where a mutation went, and the path its issue must carry. */
export interface MutatedCase extends EventCase {
  path: (string | number)[];
  value: unknown;
}

/**
 * A valid event with exactly one field (envelope or payload) replaced by a value the field must
 * reject: wrong types, nulls where required, boundary numbers, non-JSON data.
 */
export function mutatedEventInput(kind: EventKind): fc.Arbitrary<MutatedCase> {
  const envelopeFields = fieldsOf(Event).filter((spec) => spec.key !== 'kind');
  const payloadFields = fieldsOf(PAYLOAD_CLASSES[kind]);
  const targets = [
    ...envelopeFields.map((spec) => ({ spec, inPayload: false })),
    ...payloadFields.map((spec) => ({ spec, inPayload: true })),
  ];
  return fc
    .tuple(eventInput(kind), fc.constantFrom(...targets))
    .chain(([base, target]) => invalidValue(target.spec).map((value) => ({ base, target, value })))
    .map(({ base, target, value }) => {
      const input = objectFrom(Object.entries(Object.getOwnPropertyDescriptors(base.input)).map(([k, d]) => [k, d.value]));
      if (target.inPayload) {
        const given = input.payload;
        const plain = given && typeof given === 'object' ? ((given as Model).toMap?.() ?? given) : {};
        const payload = objectFrom(Object.entries(Object.getOwnPropertyDescriptors(plain)).map(([k, d]) => [k, d.value]));
        payload[target.spec.key] = value;
        input.payload = payload;
        return { kind, input, path: ['payload', target.spec.key], value };
      }
      input[target.spec.key] = value;
      return { kind, input, path: [target.spec.key], value };
    });
}

/** A mutated event of any kind. */
export const anyMutatedEventInput: fc.Arbitrary<MutatedCase> = fc.constantFrom(...KINDS).chain(mutatedEventInput);

/**
 * Arbitrary JavaScript values, the nastier the better: boxed primitives, null-prototype
 * objects, typed and sparse arrays, Maps, Sets, Dates, bigint, functions-free (fast-check).
 */
export const hostileAnything: fc.Arbitrary<unknown> = fc.anything({
  key: jsonKey,
  maxDepth: 4,
  withBoxedValues: true,
  withNullPrototype: true,
  withTypedArray: true,
  withSparseArray: true,
  withMap: true,
  withSet: true,
  withBigInt: true,
  withDate: true,
  withObjectString: true,
  withUnicodeString: true,
});

/** An event envelope with one field (or the payload, or one payload field) set to anything at all. */
export const eventWithAnything: fc.Arbitrary<unknown> = fc
  .tuple(
    anyEventInput,
    hostileAnything,
    fc.constantFrom('envelope', 'payload', 'payloadField'),
    fc.constantFrom(...fieldsOf(Event).map((spec) => spec.key)),
    fc.string({ maxLength: 12 }),
  )
  .map(([{ input }, value, where, envelopeKey, payloadKey]) => {
    const out = objectFrom(Object.entries(Object.getOwnPropertyDescriptors(input)).map(([k, d]) => [k, d.value]));
    if (where === 'envelope') out[envelopeKey] = value;
    else if (where === 'payload') out.payload = value;
    else out.payload = objectFrom([[payloadKey, value]]);
    return out;
  });

// ---------------------------------------------------------------------------------------------
// Caller-built objects (issue #12): the same data behind getters, Proxies and sparse arrays

/** How one object or array of an input is rebuilt by a caller. */
export const CALLER_WRAPPINGS = [
  'plain',
  'getters', // each key an enumerable getter
  'changing getters', // the first read answers the value, later reads a function
  'proxy', // a transparent Proxy
  'proxy claiming Event.prototype',
  'forged Event prototype', // Object.setPrototypeOf(copy, Event.prototype)
  'sparse', // arrays: a hole after the items; objects: plain
  'huge sparse', // arrays: one item at index 1e6; objects: plain
] as const;
export type CallerWrapping = (typeof CALLER_WRAPPINGS)[number];

/** Wrappings to apply in turn, one per object or array met (cycled). */
export const callerWrappings = fc.array(fc.constantFrom(...CALLER_WRAPPINGS), { minLength: 1, maxLength: 24 });

function withGetters(base: Record<string, unknown> | unknown[], changing: boolean): object {
  const out: object = Array.isArray(base) ? [] : {};
  for (const key of Object.keys(base)) {
    const value = (base as Record<string, unknown>)[key];
    let reads = 0;
    Object.defineProperty(out, key, { enumerable: true, configurable: true, get: () => (changing && reads++ > 0 ? () => value : value) });
  }
  return out;
}

function wrapped(base: Record<string, unknown> | unknown[], how: CallerWrapping): unknown {
  switch (how) {
    case 'getters':
    case 'changing getters':
      return withGetters(base, how === 'changing getters');
    case 'proxy':
      return new Proxy(base, {});
    case 'proxy claiming Event.prototype':
      return new Proxy(base, { getPrototypeOf: () => Event.prototype });
    case 'forged Event prototype':
      return Object.setPrototypeOf(Array.isArray(base) ? [...base] : objectFrom(Object.entries(base)), Event.prototype);
    case 'sparse':
    case 'huge sparse':
      if (!Array.isArray(base)) return base;
      base[how === 'sparse' ? base.length + 1 : 1e6] = 'x';
      return base;
    default:
      return base;
  }
}

/**
 * `value` rebuilt as a caller might build it: every object and array (Dates aside) wrapped by the
 * next of `wrappings`, in a fixed order, so each call builds the same structure afresh (a changing
 * getter must be met for the first time by each parse).
 */
export function callerBuilt(value: unknown, wrappings: readonly CallerWrapping[]): unknown {
  let next = 0;
  const ancestors = new Set<object>();
  const rebuild = (node: unknown): unknown => {
    // A cycle is left as it is (the original object): both paths must still find it.
    if (typeof node !== 'object' || node === null || node instanceof Date || ancestors.has(node)) return node;
    const how = wrappings[next++ % wrappings.length];
    ancestors.add(node);
    const rebuilt = Array.isArray(node)
      ? node.map(rebuild)
      : objectFrom(Object.entries(Object.getOwnPropertyDescriptors(node)).map(([k, d]) => [k, rebuild(d.value)] as [string, unknown]));
    ancestors.delete(node);
    return wrapped(rebuilt, how);
  };
  return rebuild(value);
}

// ---------------------------------------------------------------------------------------------
// JSON text

/** A valid event line. */
export const validEventLine = anyEventInput.map(({ input }) => JSON.stringify(Event.parse(input)));

const JSON_NOISE = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ',',
  ':',
  '\\',
  'x',
  '0',
  '-',
  '.',
  'e',
  ' ',
  '\n',
  '\u0000',
  'NaN',
  'undefined',
  "'",
  '\ud800',
];

/** A corrupted line: cut, inserted into, overwritten or shortened at a random place; mostly no longer JSON. */
export const corruptedLine = fc
  .tuple(validEventLine, fc.nat(), fc.constantFrom('cut', 'insert', 'replace', 'delete'), fc.constantFrom(...JSON_NOISE))
  .map(([line, at, how, noise]) => {
    const i = at % (line.length + 1);
    if (how === 'cut') return line.slice(0, i);
    if (how === 'insert') return line.slice(0, i) + noise + line.slice(i);
    if (how === 'replace') return line.slice(0, i) + noise + line.slice(i + 1);
    return line.slice(0, i) + line.slice(i + 1);
  });

/** Text that is not JSON at all, or only almost. */
export const badJsonText = fc.oneof(
  corruptedLine,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\ufeff{"kind":"raw"}',
    '{"kind":"raw"}\n{"kind":"raw"}',
    "{'kind':'raw'}",
    '{"kind":"raw",}',
    '{kind:"raw"}',
    'NaN',
    '{"kind":"raw","n":NaN}',
    '{"kind":"raw","n":Infinity}',
    '{"kind":"raw","n":01}',
    '{"kind":"raw","n":1.}',
    '{"kind":"raw","s":"\t"}',
    '{"kind":"raw","s":"\\x41"}',
    '{"kind":"raw"',
  ),
);

// ---------------------------------------------------------------------------------------------
// Equality

/**
 * Deep equality of parsed values, precisely: same prototype (so same class) at every object,
 * same own enumerable string keys (in the same order for plain objects and arrays), no symbol
 * keys, and equal values.
 * Dates (timestamps) compare by their JSON text (a PreciseDate's exact digits), numbers with
 * `===` (so -0 equals 0: JSON has no negative zero). Returns the path of the first difference,
 * or undefined when equal.
 */
export function firstDifference(
  a: unknown,
  b: unknown,
  path: (string | number)[] = [],
  seen = new Map<object, object>(),
): string | undefined {
  const at = (why: string) => `${path.map(String).join('.') || '<root>'}: ${why}`;
  if (a instanceof Date || b instanceof Date) {
    if (!(a instanceof Date && b instanceof Date)) return at('only one is a Date');
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return at('different Date classes');
    return a.toJSON() === b.toJSON() ? undefined : at(`timestamps ${a.toJSON()} !== ${b.toJSON()}`);
  }
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return a === b || (Number.isNaN(a) && Number.isNaN(b)) ? undefined : at(`${String(a)} !== ${String(b)}`);
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return at('different prototypes');
  if (seen.has(a)) return seen.get(a) === b ? undefined : at('cycles differ');
  seen.set(a, b);
  // Symbol-keyed slots (an instance's `extra`) are compared like any other property.
  const symbolsA = Object.getOwnPropertySymbols(a);
  const symbolsB = Object.getOwnPropertySymbols(b);
  if (symbolsA.length !== symbolsB.length || symbolsA.some((symbol) => !symbolsB.includes(symbol))) return at('symbol keys differ');
  for (const symbol of symbolsA) {
    const diff = firstDifference(
      (a as Record<symbol, unknown>)[symbol],
      (b as Record<symbol, unknown>)[symbol],
      [...path, String(symbol)],
      seen,
    );
    if (diff) return diff;
  }
  // The key order of JSON data is part of its text; a class instance's field order is not (toMap fixes it).
  const proto = Object.getPrototypeOf(a);
  const ordered = proto === Object.prototype || proto === null || Array.isArray(a);
  const keysA = ordered ? Object.keys(a) : Object.keys(a).sort();
  const keysB = ordered ? Object.keys(b) : Object.keys(b).sort();
  if (keysA.length !== keysB.length || keysA.some((key, i) => key !== keysB[i])) return at(`keys [${keysA}] vs [${keysB}]`);
  if (Array.isArray(a) && (a as unknown[]).length !== (b as unknown[]).length) return at('array lengths');
  for (const key of keysA) {
    const da = Object.getOwnPropertyDescriptor(a, key)!;
    const db = Object.getOwnPropertyDescriptor(b, key)!;
    if (!('value' in da) || !('value' in db)) return at(`accessor at ${key}`);
    const diff = firstDifference(da.value, db.value, [...path, Array.isArray(a) ? Number(key) : key], seen);
    if (diff) return diff;
  }
  return undefined;
}

/** A deep copy made the same careful way (own data properties, prototypes kept), for before/after checks. */
export function snapshot<T>(value: T, seen = new Map<object, unknown>()): T {
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return seen.get(value) as T;
  if (value instanceof PreciseDate) return new PreciseDate(value.getTime(), value.iso) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  const copy = Array.isArray(value) ? [] : Object.create(Object.getPrototypeOf(value));
  seen.set(value, copy);
  for (const key of Reflect.ownKeys(value)) {
    const desc = Object.getOwnPropertyDescriptor(value, key)!;
    if ('value' in desc) desc.value = snapshot(desc.value, seen);
    Object.defineProperty(copy, key, desc);
  }
  return copy;
}
