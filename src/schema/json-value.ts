/*
 * The floor every module stands on: JSON's types and the own-key helpers. No imports, so that it can
 * never be part of an import cycle (json.ts, a walker that reports issues, re-exports it).
 */

/** A JSON scalar. */
export type JsonPrimitive = string | number | boolean | null;
/** Any JSON value. */
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * The shared, frozen empty containers that parsed instances hold where the input had
 * no value (missing `metadata`, no unknown keys, …), as protobuf.js and Elixir do:
 * a stream of events does not pay for four empty objects each. Changing one throws.
 */
export const EMPTY_OBJECT: JsonObject = Object.freeze({}) as JsonObject;
export const EMPTY_ARRAY: JsonValue[] = Object.freeze([]) as unknown as JsonValue[];

/** Own-key test (for-in and `in` also see inherited keys such as "constructor"). */
export function hasOwn(target: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(target, key);
}

/** Assigns an own property, so that a key named `__proto__` stays data instead of changing a prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
