import { codecOf } from './codec';
import { INVALID, ModelClass, ParseContext } from './context';
import { Issue, ParseResult, SchemaError, preview, typeName } from './issue';
import { referenceParse } from './reference';

/** Options every `parse`, `safeParse`, `create` and `fromJSON` accepts. */
export interface ParseOptions {
  /**
   * `'fast'` (default): the compiled parser. `'reference'`: class-transformer
   * `plainToInstance` + class-validator `validateSync`, as NestJS's ValidationPipe does.
   * Both accept and reject the same inputs with the same issues.
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

/**
 * Parses `input` as an instance of `cls`; never throws. `trusted` input came straight
 * out of JSON.parse (JSON by construction and fresh), so its values are neither walked nor copied.
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
  } catch (cause) {
    // Throwing getters, revoked proxies and the like: reported, never let through.
    ctx.issues.push({ code: 'unreadable', message: `could not read input: ${preview(String(cause))}`, path: [] });
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
    const message = `invalid JSON: ${preview(cause instanceof Error ? cause.message : String(cause))}`;
    const ctx: ParseContext = { issues: [{ code: 'json', message, path: [] }], trusted: true };
    return { success: false, error: setup.toError(ctx.issues, ctx, cls) };
  }
  // JSON.parse output is trusted: not copied, and only checked for what JSON.parse can still produce (see readJson).
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
