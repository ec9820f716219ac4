import { codecOf } from './codec';
import { INVALID, ModelClass, ParseContext } from './context';
import { UnreadableInput } from './input';
import { Issue, ParseResult, SchemaError, preview, typeName } from './issue';
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
 */
function run(cls: ModelClass, input: unknown, options: ParseOptions | undefined, ctx: ParseContext): unknown {
  try {
    return options?.mode === 'reference' ? referenceParse(cls, input, [], ctx) : codecOf(cls).parse(input, [], ctx);
  } catch (thrown) {
    if (!(thrown instanceof UnreadableInput)) throw thrown;
    ctx.issues.push({ code: 'unreadable', message: `could not read input: ${preview(describeThrown(thrown.cause))}`, path: [] });
    return INVALID;
  }
}

function newContext(setup: ParseSetup, trusted: boolean): ParseContext {
  return { issues: [], trusted, payloadClass: setup.payloadClass };
}

/**
 * `{ success, data | error }` for `input` as an instance of `cls`; never throws on bad input.
 * `trusted` input came straight out of JSON.parse (JSON by construction and fresh), so its
 * values are neither walked nor copied.
 */
export function safeParseAs<T extends object>(
  cls: ModelClass<T>,
  input: unknown,
  options: ParseOptions | undefined,
  setup: ParseSetup,
  trusted = false,
): ParseResult<T> {
  const ctx = newContext(setup, trusted);
  const value = run(cls, input, options, ctx);
  if (value === INVALID || ctx.issues.length) return { success: false, error: setup.toError(ctx.issues, ctx, cls) };
  return { success: true, data: value as T };
}

/** Like `safeParseAs`, but answers the instance and throws the `SchemaError` (no result object on the way). */
export function parseAs<T extends object>(cls: ModelClass<T>, input: unknown, options: ParseOptions | undefined, setup: ParseSetup, trusted = false): T {
  const ctx = newContext(setup, trusted);
  const value = run(cls, input, options, ctx);
  if (value === INVALID || ctx.issues.length) throw setup.toError(ctx.issues, ctx, cls);
  return value as T;
}

/** JSON.parse of one line, or the `SchemaError` (issue code `json`) that bad JSON gets; never a raw SyntaxError. */
function readJsonText(cls: ModelClass, text: string, setup: ParseSetup): { input: unknown } | { error: SchemaError } {
  try {
    // Only text is JSON: a number, Buffer or object would otherwise be coerced by JSON.parse.
    if (typeof text !== 'string') throw new TypeError(`expected a string, got ${typeName(text)}`);
    return { input: JSON.parse(text) };
  } catch (cause) {
    const message = `invalid JSON: ${preview(cause instanceof Error ? cause.message : describeThrown(cause))}`;
    const ctx: ParseContext = { issues: [{ code: 'json', message, path: [] }], trusted: true };
    return { error: setup.toError(ctx.issues, ctx, cls) };
  }
}

/** Parses one line of JSON text into `{ success, data | error }`. */
export function safeParseJsonAs<T extends object>(cls: ModelClass<T>, text: string, options: ParseOptions | undefined, setup: ParseSetup): ParseResult<T> {
  const read = readJsonText(cls, text, setup);
  // JSON.parse output is trusted: not copied, and only checked for what JSON.parse can still produce.
  return 'error' in read ? { success: false, error: read.error } : safeParseAs(cls, read.input, options, setup, true);
}

/** Parses one line of JSON text; throws the `SchemaError`. */
export function parseJsonAs<T extends object>(cls: ModelClass<T>, text: string, options: ParseOptions | undefined, setup: ParseSetup): T {
  const read = readJsonText(cls, text, setup);
  if ('error' in read) throw read.error;
  return parseAs(cls, read.input, options, setup, true);
}

/** The plain snake_case object of an instance (`json`: with timestamps as text). */
export function toPlain(instance: object, json: boolean): Record<string, unknown> {
  return codecOf(instance.constructor as ModelClass).toMap(instance, json);
}

