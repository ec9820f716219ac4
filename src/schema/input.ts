/*
 * Reads of the caller's input. A getter can throw and a Proxy trap can throw or be revoked; only
 * such a failure becomes an `unreadable` issue. Everything else thrown during a parse is a bug in
 * the library (or a runtime refusing something) and surfaces as the error it is.
 * JSON.parse output has no getters or traps, so the trusted path reads it directly.
 */

import { isBuilt } from './built';

/**
 * A failure to read the caller's input, carrying what was thrown. A parse turns it into an
 * `unreadable` issue; where it escapes a parse (validateSerializable, a class-transformer
 * `@Transform` in a NestJS pipe) it is a well-formed Error whose `cause` is the original throw.
 */
export class UnreadableInput extends Error {
  override readonly name = 'UnreadableInput';

  constructor(override readonly cause: unknown) {
    super('could not read input');
  }
}

/** `source[key]`, with a throw reported as unreadable input. */
export function getInput(source: object, key: string | number): unknown {
  try {
    return (source as Record<string | number, unknown>)[key];
  } catch (cause) {
    throw new UnreadableInput(cause);
  }
}

/** The own enumerable string keys of `source`. */
export function keysOfInput(source: object): string[] {
  try {
    return Object.keys(source);
  } catch (cause) {
    throw new UnreadableInput(cause);
  }
}

/** `{ ...attrs, ...fields }` (Event.create's attributes and kind), reading `attrs` as a guarded input. */
export function withFields(attrs: unknown, fields: Record<string, unknown>): Record<string, unknown> {
  try {
    return { ...(attrs as object), ...fields };
  } catch (cause) {
    throw new UnreadableInput(cause);
  }
}

/** `Array.isArray(value)` (a revoked Proxy throws). */
export function isArrayInput(value: unknown): value is unknown[] {
  try {
    return Array.isArray(value);
  } catch (cause) {
    throw new UnreadableInput(cause);
  }
}

/** The prototype of an object (a Proxy's trap may throw). */
export function prototypeOfInput(value: object): object | null {
  try {
    return Object.getPrototypeOf(value) as object | null;
  } catch (cause) {
    throw new UnreadableInput(cause);
  }
}

/**
 * `value` is an instance of `cls` the library built (see built.ts), which a parse returns as
 * it is. A Proxy or an object merely given the class's prototype is not: it is parsed as input.
 */
export function isInstanceInput(value: unknown, cls: { prototype: object }): boolean {
  if (!isBuilt(value)) return false;
  try {
    return value instanceof (cls as unknown as new () => object);
  } catch (cause) {
    throw new UnreadableInput(cause);
  }
}
