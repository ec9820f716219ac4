import { EMPTY_OBJECT, hasOwn, setOwn } from './json';

/*
 * Where an instance keeps its unknown keys: as its own enumerable properties, after the declared
 * fields. The instance's own keys are then exactly its wire keys, in wire order, so
 * `JSON.stringify(instance)` writes the wire form as it stands: no `toJSON`, no copy into a plain
 * object (half of the round trip's cost over JSON.parse + JSON.stringify went there), and
 * class-transformer and class-validator see the same keys JSON does.
 *
 * One exception: an unknown key that an inherited member already names (`constructor`, `toMap`,
 * `extra`, `__proto__`, `toString`, …) would shadow that member. Such a key is held: its value
 * sits in a symbol-keyed slot instead, and the instance gets an own, non-enumerable `toJSON` that
 * writes every unknown key back after the fields, in wire order. Its other unknown keys stay own
 * properties, so a held key changes nothing about them.
 *
 * This module is the one place that decides how an incoming key named `extra` is kept: parse
 * (both modes), fromJSON and class-transformer's plainToInstance (see unknown-keys.ts) all
 * attach unknown keys here. `extra` names the accessor of the unknown keys themselves, so it is
 * held like any key naming an inherited member; the instance also gets an own enumerable `extra`
 * that is that same accessor, where the key came. The readers that go by own keys then see the
 * key as they see any other unknown key: class-validator's whitelist (which allows `extra`), and
 * class-transformer's instanceToPlain (ClassSerializerInterceptor), which writes the held value
 * (`heldValue`, read by unknown-keys.ts).
 */
export const EXTRA: unique symbol = Symbol('extra');

/** The name of the accessor through which models and events give their unknown keys. */
export const UNKNOWN_KEYS = 'extra';

/** The unknown keys of an instance with held keys. */
interface Held {
  /** Every unknown key attached, in wire order. */
  readonly order: readonly string[];
  /** The values of the held keys: those that name an inherited member (and `toJSON`, the writer's own name). */
  readonly values: Readonly<Record<string, unknown>>;
}

/** An instance as the engine sees it: fields and unknown keys by name, and the slot of the exception. */
export type Instance = Record<string, unknown> & { [EXTRA]?: Held };

/** Gives `target` an own enumerable `extra` that is the accessor it inherits (reads the unknown keys, assigning replaces them). */
function showAccessor(target: object): void {
  for (let proto = Object.getPrototypeOf(target) as object | null; proto; proto = Object.getPrototypeOf(proto) as object | null) {
    const inherited = Object.getOwnPropertyDescriptor(proto, UNKNOWN_KEYS);
    if (!inherited) continue;
    if (inherited.get)
      Object.defineProperty(target, UNKNOWN_KEYS, { get: inherited.get, set: inherited.set, enumerable: true, configurable: true });
    return;
  }
}

/**
 * Adds the unknown keys `keys` of `source`, with their values as they are, to an instance that has
 * none (`toJSON`: the merging writer, for held keys). `source` is the checked unknown keys, or
 * the JSON.parse output they came in (the fast path, which makes no object for them).
 */
export function attachExtra(instance: object, source: Record<string, unknown>, keys: readonly string[], toJSON: () => unknown): void {
  const target = instance as Instance;
  let holds = false;
  for (const key of keys) {
    if (key in target) {
      holds = true;
      break;
    }
  }
  if (!holds) {
    for (const key of keys) target[key] = source[key];
    return;
  }
  const values: Record<string, unknown> = {};
  for (const key of keys) if (key in target || key === 'toJSON') setOwn(values, key, source[key]);
  Object.defineProperty(target, EXTRA, {
    value: Object.freeze({ order: Object.freeze([...keys]), values: Object.freeze(values) }),
    configurable: true,
  });
  Object.defineProperty(target, 'toJSON', { value: toJSON, configurable: true, writable: true });
  for (const key of keys) {
    if (!hasOwn(values, key)) target[key] = source[key];
    else if (key === UNKNOWN_KEYS) showAccessor(target);
  }
}

/**
 * The value of the held unknown key `key` of an instance (what its JSON writes for that key);
 * undefined when the instance holds no such key (a held value is JSON data, never undefined).
 */
export function heldValue(instance: object, key: string): unknown {
  const held = (instance as Instance)[EXTRA];
  return held && hasOwn(held.values, key) ? held.values[key] : undefined;
}

/** Copies the unknown keys of an instance into `out` (after what it holds), in wire order; answers how many there were. */
export function copyExtra(instance: object, known: ReadonlySet<string>, out: Record<string, unknown>): number {
  const target = instance as Instance;
  const held = target[EXTRA];
  let count = 0;
  if (held) {
    // Held values, and the others as the instance now has them (a whitelist may have deleted some).
    for (const key of held.order) {
      if (hasOwn(held.values, key)) setOwn(out, key, held.values[key]);
      else if (hasOwn(target, key)) setOwn(out, key, target[key]);
      else continue;
      count++;
    }
  }
  for (const key of Object.keys(target)) {
    if (known.has(key) || (held && hasOwn(out, key))) continue;
    setOwn(out, key, target[key]);
    count++;
  }
  return count;
}

/** The unknown keys of an instance, as a frozen object (a snapshot: assign `extra` to change them). */
export function extraOf(instance: object, known: ReadonlySet<string>): Record<string, unknown> {
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
