import { Issue, IssuePath, typeName } from './issue';
import { checkParsedJson, isPlainObject, setOwn, walkJson } from './json';

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

/**
 * Checks a JSON value at `path` + `key`, recording the first non-JSON place. Untrusted
 * input is walked and copied; trusted input (straight out of JSON.parse) is only checked
 * for what JSON.parse can still produce (overflowed numbers, excessive depth).
 */
export function readJson(value: unknown, path: IssuePath, key: string | number | undefined, ctx: ParseContext): unknown {
  if (ctx.trusted) {
    if ((typeof value !== 'object' || value === null) && (typeof value !== 'number' || Number.isFinite(value))) return value;
    const issue = checkParsedJson(value, path, key);
    if (!issue) return value;
    ctx.issues.push(issue);
    return INVALID;
  }
  const result = walkJson(value, key === undefined ? path : [...path, key], true);
  if (result.issue) {
    ctx.issues.push(result.issue);
    return INVALID;
  }
  return result.value;
}

/** The input must be a plain object; records an issue otherwise. */
export function expectObject(input: unknown, path: IssuePath, ctx: ParseContext): input is Record<string, unknown> {
  // JSON.parse makes no class instances, so trusted input needs no prototype check.
  if (ctx.trusted ? typeof input === 'object' && input !== null && !Array.isArray(input) : isPlainObject(input)) return true;
  ctx.issues.push({ code: 'invalid_type', message: `expected object, got ${typeName(input)}`, path });
  return false;
}

/** Unknown keys, kept exactly (checked to be JSON unless trusted). */
export function splitExtra(
  input: Record<string, unknown>,
  known: Readonly<Record<string, true>>,
  path: IssuePath,
  ctx: ParseContext,
): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (known[key] === true) continue;
    const value = readJson(input[key], path, key, ctx);
    if (value !== INVALID) setOwn(extra, key, value);
  }
  return extra;
}
