import { Issue, IssuePath, typeName } from './issue';
import { isPlainObject } from './json';

/** A class the engine can build: payloads, events and tool data. */
export interface ModelClass<T = object> {
  new (): T;
  readonly prototype: T;
  readonly name: string;
}

/** Marks a value that failed; its issue is already in the context. */
export const INVALID: unique symbol = Symbol('invalid');
export type Parsed<T> = T | typeof INVALID;

/** State of one parse call. */
export interface ParseContext {
  readonly issues: Issue[];
  /** The input came straight out of JSON.parse: it is JSON by construction and fresh, so it is neither walked nor copied. */
  readonly trusted: boolean;
  /** Picks the payload class for an event kind (the registry in force). */
  readonly payloadClass?: (kind: string) => ModelClass | undefined;
  /** Set when an event's kind was understood, for error reporting. */
  kind?: string;
}

/** The input must be a plain object; records an issue otherwise. */
export function expectObject(input: unknown, path: IssuePath, ctx: ParseContext): input is Record<string, unknown> {
  // JSON.parse makes no class instances, so trusted input needs no prototype check.
  if (ctx.trusted ? typeof input === 'object' && input !== null && !Array.isArray(input) : isPlainObject(input)) return true;
  ctx.issues.push({ code: 'invalid_type', message: `expected object, got ${typeName(input)}`, path: [...path] });
  return false;
}
