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
 * Parses `input` as an instance of `cls`. Bad input is answered, never thrown: a failure to
 * read it (a throwing getter, a revoked Proxy) is an `unreadable` issue. Any other error is
 * a bug in the library and is thrown as it is. `trusted` input came straight out of
 * JSON.parse (JSON by construction and fresh), so its values are neither walked nor copied.
 */
export function safeParseAs<T extends object>(
  cls: ModelClass<T>,
  input: unknown,
  options: ParseOptions | undefined,
  setup: ParseSetup,
  trusted = false,
): ParseResult<T> {
  const ctx: ParseContext = { issues: [], trusted, payloadClass: setup.payloadClass };
  let value: unknown;
  try {
    value = options?.mode === 'reference' ? referenceParse(cls, input, [], ctx) : codecOf(cls).parse(input, [], ctx);
  } catch (thrown) {
    if (!(thrown instanceof UnreadableInput)) throw thrown;
    ctx.issues.push({ code: 'unreadable', message: `could not read input: ${preview(describeThrown(thrown.cause))}`, path: [] });
    value = INVALID;
  }
  if (value === INVALID || ctx.issues.length) return { success: false, error: setup.toError(ctx.issues, ctx, cls) };
  return { success: true, data: value as T };
}

/** Parses one line of JSON text; bad JSON is an issue with code `json`, never a raw SyntaxError. */
export function safeParseJsonAs<T extends object>(
  cls: ModelClass<T>,
  text: string,
  options: ParseOptions | undefined,
  setup: ParseSetup,
): ParseResult<T> {
  let input: unknown;
  try {
    // Only text is JSON: a number, Buffer or object would otherwise be coerced by JSON.parse.
    if (typeof text !== 'string') throw new TypeError(`expected a string, got ${typeName(text)}`);
    input = JSON.parse(text);
  } catch (cause) {
    const message = `invalid JSON: ${preview(cause instanceof Error ? cause.message : describeThrown(cause))}`;
    const ctx: ParseContext = { issues: [{ code: 'json', message, path: [] }], trusted: true };
    return { success: false, error: setup.toError(ctx.issues, ctx, cls) };
  }
  // JSON.parse output is trusted: not copied, and only checked for what JSON.parse can still produce.
  return safeParseAs(cls, input, options, setup, true);
}

/** The data of a result, or its error thrown. */
export function unwrap<T>(result: ParseResult<T>): T {
  if (result.success) return result.data;
  throw result.error;
}

/** The plain snake_case object of an instance (`json`: with timestamps as text). */
export function toPlain(instance: object, json: boolean): Record<string, unknown> {
  return codecOf(instance.constructor as ModelClass).toMap(instance, json);
}

