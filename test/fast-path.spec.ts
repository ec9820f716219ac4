import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Event, Registry } from '../src';
import { canGenerateCode } from '../src/schema/accelerate';
import { codecOf } from '../src/schema/codec';
import { INVALID, ModelClass } from '../src/schema/context';

/*
 * fromJSON tries the generated fast path first and falls back to the full parse, so a fast path
 * that refused every line would go unnoticed by every other test (only slower). These tests
 * call it directly: it must accept every valid sample line by itself, build what the full
 * parse builds, and refuse every invalid line.
 */

const read = (file: string) =>
  readFileSync(join(__dirname, '..', 'examples', file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');

/** The lines of the bundled samples that are JSON (bad JSON never reaches a parse), by whether the full parse accepts them. */
const [VALID, INVALID_LINES] = ['valid.jsonl', 'sample.jsonl', 'invalid.jsonl']
  .flatMap(read)
  .filter((line) => {
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  })
  .reduce<[string[], string[]]>(
    ([ok, bad], line) => (Event.safeParse(JSON.parse(line)).success ? [[...ok, line], bad] : [ok, [...bad, line]]),
    [[], []],
  );

const tryParse = codecOf(Event).tryParse;
const payloads = (kind: string) => codecOf(Registry.default.classFor(kind) as ModelClass).tryParse;

/** The wire form without the process-local id (a line without one gets the next id). */
const wire = (event: unknown) => JSON.stringify({ ...(JSON.parse(JSON.stringify(event)) as object), id: 0 });

// Under `npm run test:eval-free` there is no fast path (fromJSON runs the full parse): test/eval-free.spec.ts.
const it = canGenerateCode() ? global.it : global.it.skip;

it('is generated where code generation is allowed', () => {
  expect(typeof tryParse).toBe('function');
});

it('accepts every valid sample line by itself and builds what the full parse builds', () => {
  expect(VALID.length).toBeGreaterThan(10);
  for (const line of VALID) {
    const fast = tryParse!(JSON.parse(line), payloads);
    expect(fast).not.toBe(INVALID);
    expect(fast).toBeInstanceOf(Event);
    const full = Event.parse(JSON.parse(line));
    expect(Object.getPrototypeOf((fast as Event).payload)).toBe(Object.getPrototypeOf(full.payload));
    if (line.includes('"timestamp"')) expect(wire(fast)).toBe(wire(full));
  }
});

it('refuses every invalid sample line, leaving the issues to the full parse', () => {
  expect(INVALID_LINES.length).toBeGreaterThan(1);
  for (const line of INVALID_LINES) expect(tryParse!(JSON.parse(line), payloads)).toBe(INVALID);
});

it('keeps unknown keys at both levels, and moves a key named after an inherited member to the slot', () => {
  const line =
    '{"kind":"tool_use","timestamp":"2026-03-19T00:00:00.123456Z","payload":{"tool_name":" sh ","toMap":1,"hint":{"a":[1]}},"trace_id":"t"}';
  const fast = tryParse!(JSON.parse(line), payloads) as Event<'tool_use'>;
  expect(fast).not.toBe(INVALID);
  expect(fast.extra).toEqual({ trace_id: 't' });
  expect(fast.payload.extra).toEqual({ toMap: 1, hint: { a: [1] } });
  expect(typeof fast.payload.toMap).toBe('function');
  expect(wire(fast)).toBe(wire(Event.fromJSON(line)));
});

it('uses no id on a line it refuses', () => {
  const before = Event.create('raw').id;
  expect(tryParse!(JSON.parse('{"kind":"raw","payload":{"metadata":5}}'), payloads)).toBe(INVALID);
  expect(Event.create('raw').id).toBe(before + 1);
});
