import { Issue, IssuePath, tooManyIssues, typeName } from './issue';
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

/**
 * At most this many issues are kept per parse; the rest are only counted (`dropped`). One line
 * with millions of bad keys would otherwise hold millions of issues.
 */
export const MAX_ISSUES = 100;

/** State of one parse call. */
export interface ParseContext {
  /** The issues found so far, at most MAX_ISSUES (add them with `addIssue`). */
  readonly issues: Issue[];
  /**
   * How many issues were found past MAX_ISSUES and not kept. A parse that fails only by dropped
   * issues still fails: by then MAX_ISSUES issues are kept, so the whole parse does.
   */
  dropped?: number;
  /** The input came straight out of JSON.parse: it is JSON by construction and fresh, so it is neither walked nor copied. */
  readonly trusted: boolean;
  /** Picks the payload class for an event kind (the registry in force). */
  readonly payloadClass?: (kind: string) => ModelClass | undefined;
  /** Set when an event's kind was understood, for error reporting. */
  kind?: string;
}

/** Records an issue, or only counts it once MAX_ISSUES are kept. */
export function addIssue(ctx: ParseContext, issue: Issue): void {
  if (ctx.issues.length < MAX_ISSUES) ctx.issues.push(issue);
  else ctx.dropped = (ctx.dropped ?? 0) + 1;
}

/** The kept issues, closed by one `too_many_issues` issue when some were dropped. */
export function issuesOf(ctx: ParseContext): Issue[] {
  if (!ctx.dropped) return ctx.issues;
  return [...ctx.issues, tooManyIssues(ctx.dropped)];
}

/** The input must be a plain object; records an issue otherwise. */
export function expectObject(input: unknown, path: IssuePath, ctx: ParseContext): input is Record<string, unknown> {
  // JSON.parse makes no class instances, so trusted input needs no prototype check.
  if (ctx.trusted ? typeof input === 'object' && input !== null && !Array.isArray(input) : isPlainObject(input)) return true;
  addIssue(ctx, { code: 'invalid_type', message: `expected object, got ${typeName(input)}`, path: [...path] });
  return false;
}
