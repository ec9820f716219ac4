import type { PayloadParsers } from './accelerate';
import { codecOf } from './codec';
import { INVALID, ModelClass, ParseContext, addIssue, issuesOf } from './context';
import { UnreadableInput, withFields } from './input';
import { isPlainObject, readJsonData } from './json';
import { describeJsonError } from './json-error';
import { Invalid, Issue, ParseResult, SchemaError, preview, typeName } from './issue';
import { referenceParse } from './reference';

/** Options every `parse`, `safeParse`, `create` and `fromJSON` accepts. */
export interface ParseOptions {
  /**
   * `'fast'` (default): the parser composed from the field rules. `'reference'`: class-transformer
   * `plainToInstance` + class-validator `validateSync`, as NestJS's ValidationPipe does.
   * Both accept and reject the same inputs, with the same issues, and build the same instance.
   */
  mode?: 'fast' | 'reference';
}

/** How a class family turns issues into its error (tag, kind). */
export type ErrorFactory = (issues: Issue[], ctx: ParseContext, cls: ModelClass) => SchemaError;

/** What one parse call needs beyond the input. */
export interface ParseSetup {
  readonly toError: ErrorFactory;
  readonly payloadClass?: ParseContext['payloadClass'];
  /** A context of this setup for parsing JSON text, idle between calls (see `borrowContext`). */
  spare?: ParseContext;
  /** The fast paths of the payload classes, by kind (see `fastParse`), made on first use. */
  payloadParsers?: PayloadParsers;
}

/** A thrown value as short text; never throws itself (a value's `toString` can). */
export function describeThrown(cause: unknown): string {
  try {
    return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  } catch {
    return `a thrown ${typeName(cause)}`;
  }
}

/**
 * Parses `input` as an instance of `cls` into `ctx`: the instance, or INVALID with the issues in
 * `ctx`. Bad input is answered, never thrown: a failure to read it (a throwing getter, a revoked
 * Proxy) is an `unreadable` issue. Any other error is a bug in the library and is thrown as it is.
 * `fields` (Event.create's kind) are set over `input`'s own keys, read inside the same guard.
 */
function run(
  cls: ModelClass,
  input: unknown,
  options: ParseOptions | undefined,
  ctx: ParseContext,
  fields?: Record<string, unknown>,
): unknown {
  try {
    if (fields) input = withFields(input, fields);
    return options?.mode === 'reference' ? referenceParse(cls, input, [], ctx) : codecOf(cls).parse(input, [], ctx);
  } catch (thrown) {
    if (!(thrown instanceof UnreadableInput)) throw thrown;
    addIssue(ctx, { code: 'unreadable', message: `could not read input: ${preview(describeThrown(thrown.cause))}`, path: [] });
    return INVALID;
  }
}

function newContext(setup: ParseSetup, trusted: boolean): ParseContext {
  return { issues: [], trusted, payloadClass: setup.payloadClass };
}

/*
 * A stream of lines parses one after another, and a parse that succeeds leaves its context
 * as it found it (no issues): the next line reuses it instead of allocating a context and an
 * issues array per line (lines reach a context where there is no fast path: code generation
 * banned). Taken while in use (a registry that parses from inside `classFor`), a fresh one is
 * made; one that collected issues is never given back.
 */
function borrowContext(setup: ParseSetup): ParseContext {
  const spare = setup.spare;
  if (spare === undefined) return newContext(setup, true);
  setup.spare = undefined;
  return spare;
}

function giveBack(setup: ParseSetup, ctx: ParseContext): void {
  ctx.kind = undefined;
  setup.spare = ctx;
}

/**
 * `input` as an instance of `cls`, or the `SchemaError` (returned, not thrown: `parseAs` throws it,
 * `safeParseAs` wraps it). `fields` are set over the input's own keys (see `run`).
 */
function parseOrError(
  cls: ModelClass,
  input: unknown,
  options: ParseOptions | undefined,
  setup: ParseSetup,
  fields?: Record<string, unknown>,
): unknown {
  const ctx = newContext(setup, false);
  const value = run(cls, input, options, ctx, fields);
  return value === INVALID || ctx.issues.length ? setup.toError(issuesOf(ctx), ctx, cls) : value;
}

/** `{ success, data | error }` for `input` as an instance of `cls`; never throws on bad input. */
export function safeParseAs<T extends object>(
  cls: ModelClass<T>,
  input: unknown,
  options: ParseOptions | undefined,
  setup: ParseSetup,
): ParseResult<T> {
  return asResult(parseOrError(cls, input, options, setup));
}

/**
 * Like `safeParseAs`, but answers the instance and throws the `SchemaError` (no result object on
 * the way). `fields` are set over the input's own keys (see `run`).
 */
export function parseAs<T extends object>(
  cls: ModelClass<T>,
  input: unknown,
  options: ParseOptions | undefined,
  setup: ParseSetup,
  fields?: Record<string, unknown>,
): T {
  return orThrow(parseOrError(cls, input, options, setup, fields));
}

/** An answer of `parseOrError` or `parseJsonOrError` as a result object. A built instance is never a SchemaError. */
function asResult<T>(answer: unknown): ParseResult<T> {
  return answer instanceof SchemaError ? { success: false, error: answer } : { success: true, data: answer as T };
}

/** An answer of `parseOrError` or `parseJsonOrError`, its error thrown. */
function orThrow<T>(answer: unknown): T {
  if (answer instanceof SchemaError) throw answer;
  return answer as T;
}

/** Why a text is not JSON: what `readJsonText` answers instead of a value. */
class BadJson {
  constructor(readonly message: string) {}
}

/** JSON.parse of one line, or a `BadJson`; never a raw SyntaxError. */
function readJsonText(text: string): unknown {
  try {
    // Only text is JSON: a number, Buffer or object would otherwise be coerced by JSON.parse.
    if (typeof text !== 'string') throw new TypeError(`expected a string, got ${typeName(text)}`);
    return JSON.parse(text);
  } catch (cause) {
    if (typeof text === 'string' && cause instanceof Error) return new BadJson(describeJsonError(text, cause.message));
    return new BadJson(`invalid JSON: ${preview(cause instanceof Error ? cause.message : describeThrown(cause))}`);
  }
}

/** The `SchemaError` (issue code `json`) that bad JSON gets. */
function jsonError(cls: ModelClass, bad: BadJson, setup: ParseSetup): SchemaError {
  const ctx: ParseContext = { issues: [{ code: 'json', message: bad.message, path: [] }], trusted: true };
  return setup.toError(ctx.issues, ctx, cls);
}

/** The payload fast paths of a setup's registry, looked up once per kind (a registry never changes). */
function payloadParsersOf(setup: ParseSetup): PayloadParsers {
  const byKind = new Map<string, ReturnType<PayloadParsers>>();
  return (kind) => {
    let found = byKind.get(kind);
    if (found === undefined) {
      const cls = setup.payloadClass?.(kind);
      found = cls && codecOf(cls).tryParse;
      if (found) byKind.set(kind, found);
    }
    return found;
  };
}

/**
 * The fast path for JSON.parse output: the instance, or INVALID when the input has a problem
 * (or code generation is banned), for the full parse to name. No context is made for a valid line.
 */
function fastParse(cls: ModelClass, input: unknown, options: ParseOptions | undefined, setup: ParseSetup): unknown {
  const tryParse = options?.mode === 'reference' ? undefined : codecOf(cls).tryParse;
  return tryParse ? tryParse(input, (setup.payloadParsers ??= payloadParsersOf(setup))) : INVALID;
}

/**
 * One line of JSON text as an instance of `cls`, or the `SchemaError` (returned, not thrown).
 * JSON.parse output is trusted: JSON by construction and fresh, so it is neither walked nor
 * copied, only checked for what JSON.parse can still produce. The fast path answers a valid
 * line; the full parse names the issues of any other.
 */
function parseJsonOrError(cls: ModelClass, text: string, options: ParseOptions | undefined, setup: ParseSetup): unknown {
  const input = readJsonText(text);
  if (input instanceof BadJson) return jsonError(cls, input, setup);
  const fast = fastParse(cls, input, options, setup);
  if (fast !== INVALID) return fast;
  const ctx = borrowContext(setup);
  const value = run(cls, input, options, ctx);
  if (value === INVALID || ctx.issues.length) return setup.toError(issuesOf(ctx), ctx, cls);
  giveBack(setup, ctx);
  return value;
}

/** The trusted build of one class (see `trustedParserOf`): the instance, or INVALID. */
export type TrustedParse = (input: unknown) => unknown;

/**
 * @internal The trusted build of `cls`, for input whose values are JSON facts owned by nobody else:
 * JSON.parse output, or what the library's own code made of it (a provider profile's drafts). Nothing
 * is copied or read through guards; the field conventions apply as in any parse. The function answers
 * the instance, or INVALID (no issue kept: the caller runs the full parse, which names the issues
 * and decides any input the fast path declines). It is the generated fast path `fromJSON` runs;
 * where code generation is banned, the closure parse on a trusted context borrowed as for JSON text.
 * Anything thrown (input that is not what it was said to be: a getter, a revoked Proxy) is INVALID
 * too: the full parse answers it.
 */
export function trustedParserOf(cls: ModelClass, setup: ParseSetup): TrustedParse {
  const codec = codecOf(cls);
  const tryParse = codec.tryParse;
  if (tryParse) {
    const payloads = (setup.payloadParsers ??= payloadParsersOf(setup));
    return (input) => {
      try {
        return tryParse(input, payloads);
      } catch {
        return INVALID;
      }
    };
  }
  return (input) => {
    try {
      const ctx = borrowContext(setup);
      const value = codec.parse(input, [], ctx);
      if (value === INVALID || ctx.issues.length) return INVALID;
      giveBack(setup, ctx);
      return value;
    } catch {
      return INVALID;
    }
  };
}

/** Parses one line of JSON text into `{ success, data | error }`. */
export function safeParseJsonAs<T extends object>(
  cls: ModelClass<T>,
  text: string,
  options: ParseOptions | undefined,
  setup: ParseSetup,
): ParseResult<T> {
  return asResult(parseJsonOrError(cls, text, options, setup));
}

/** Parses one line of JSON text; throws the `SchemaError`. */
export function parseJsonAs<T extends object>(cls: ModelClass<T>, text: string, options: ParseOptions | undefined, setup: ParseSetup): T {
  return orThrow(parseJsonOrError(cls, text, options, setup));
}

/** The plain snake_case object of an instance (`json`: with timestamps as text). */
export function toPlain(instance: object, json: boolean): Record<string, unknown> {
  return codecOf(instance.constructor as ModelClass).toMap(instance, json);
}

/** The unknown keys of an instance (the `extra` accessor): a frozen snapshot. */
export function extraOf(instance: object): Record<string, unknown> {
  return codecOf(instance.constructor as ModelClass).extraOf(instance);
}

/**
 * Replaces the unknown keys of an instance (the `extra` setter). They must be a plain object of
 * JSON data naming no declared field; anything else is a TypeError, since a setter cannot answer
 * with issues. The value is copied: a later change to it does not reach the instance.
 */
export function replaceExtra(instance: object, value: unknown): void {
  if (!isPlainObject(value)) throw new TypeError(`extra must be a plain object of JSON data, got ${typeName(value)}`);
  const copy = readJsonData(value, false);
  if (copy instanceof Invalid) throw new TypeError(`extra must be a plain object of JSON data: ${copy.message}`);
  codecOf(instance.constructor as ModelClass).replaceExtra(instance, copy as Record<string, unknown>);
}
