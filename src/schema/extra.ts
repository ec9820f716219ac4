import { EMPTY_OBJECT, setOwn } from './json';

/*
 * Where an instance keeps its unknown keys: as its own enumerable properties, after the declared
 * fields. The instance's own keys are then exactly its wire keys, in wire order, so
 * `JSON.stringify(instance)` writes the wire form as it stands: no `toJSON`, no copy into a plain
 * object (half of the round trip's cost over JSON.parse + JSON.stringify went there), and
 * class-transformer sees the same keys JSON does.
 *
 * One exception: an unknown key that an inherited member already names (`constructor`, `toMap`,
 * `extra`, `__proto__`, `toString`, …) would shadow that member. An instance with such a key keeps
 * all of its unknown keys in a symbol-keyed slot instead, and gets an own, non-enumerable `toJSON`
 * that merges them back after the fields.
 */
export const EXTRA: unique symbol = Symbol('extra');

/** An instance as the engine sees it: fields and unknown keys by name, and the slot of the exception. */
export type Instance = Record<string, unknown> & { [EXTRA]?: Record<string, unknown> };

/**
 * Adds the unknown keys `keys` of `source`, with their values as they are, to an instance that has
 * none (`toJSON`: the merging writer, for the exception). `source` is the checked unknown keys, or
 * the JSON.parse output they came in (the fast path, which makes no object for them).
 */
export function attachExtra(instance: object, source: Record<string, unknown>, keys: readonly string[], toJSON: () => unknown): void {
  const target = instance as Instance;
  for (const key of keys) {
    if (key in target) {
      const slot: Record<string, unknown> = {};
      for (const each of keys) setOwn(slot, each, source[each]);
      Object.defineProperty(target, EXTRA, { value: Object.freeze(slot), configurable: true });
      Object.defineProperty(target, 'toJSON', { value: toJSON, configurable: true, writable: true });
      return;
    }
  }
  for (const key of keys) target[key] = source[key];
}

/** Copies the unknown keys of an instance into `out` (after what it holds); answers how many there were. */
export function copyExtra(instance: object, known: ReadonlySet<string>, out: Record<string, unknown>): number {
  const target = instance as Instance;
  const slot = target[EXTRA];
  if (slot) {
    for (const key of Object.keys(slot)) setOwn(out, key, slot[key]);
    return Object.keys(slot).length;
  }
  let count = 0;
  for (const key of Object.keys(target)) {
    if (known.has(key)) continue;
    setOwn(out, key, target[key]);
    count++;
  }
  return count;
}

/** The unknown keys of an instance, as a frozen object (a snapshot: assign `extra` to change them). */
export function extraOf(instance: object, known: ReadonlySet<string>): Record<string, unknown> {
  const slot = (instance as Instance)[EXTRA];
  if (slot) return slot;
  const extra: Record<string, unknown> = {};
  return copyExtra(instance, known, extra) ? Object.freeze(extra) : EMPTY_OBJECT;
}

/** Removes every unknown key of an instance (before new ones are attached). */
export function detachExtra(instance: object, known: ReadonlySet<string>): void {
  const target = instance as Instance;
  if (target[EXTRA]) {
    delete target[EXTRA];
    delete target.toJSON;
  }
  for (const key of Object.keys(target)) if (!known.has(key)) delete target[key];
}
