import { ModelClass, INVALID, ParseContext, Parsed, expectObject, readJson, splitExtra } from './context';
import { FieldSpec, fieldIssue, fieldsOf, normalize } from './field';
import { IssueCode, IssuePath, typeName } from './issue';
import { setOwn } from './json';
import { PreciseDate } from './precise-date';

/** Parses one field value that `normalize` has already prepared. */
type FieldCheck = (spec: FieldSpec, value: unknown, path: IssuePath, ctx: ParseContext) => unknown;

/** Parses a nested payload, given the class the registry picked. */
type PayloadParse = (cls: ModelClass, input: unknown, path: IssuePath, ctx: ParseContext) => Parsed<object>;

function fail(ctx: ParseContext, code: IssueCode, spec: FieldSpec, value: unknown, path: IssuePath): typeof INVALID {
  ctx.issues.push(fieldIssue(code, spec, value, [...path, spec.key]));
  return INVALID;
}

function checkNumber(spec: FieldSpec, value: unknown, path: IssuePath, ctx: ParseContext, integer: boolean): unknown {
  if (typeof value !== 'number' || !(integer ? Number.isInteger(value) : Number.isFinite(value))) {
    return fail(ctx, 'invalid_type', spec, value, path);
  }
  if (value < (spec.min ?? 0)) return fail(ctx, 'too_small', spec, value, path);
  if (integer && value > Number.MAX_SAFE_INTEGER) return fail(ctx, 'too_big', spec, value, path);
  return value;
}

/** The fast path's own checks, one per field type; the class-validator decorators say the same in their terms. */
const CHECKS: Record<Exclude<FieldSpec['type'], 'payload'>, FieldCheck> = {
  text: (spec, value, path, ctx) => (typeof value === 'string' ? value : fail(ctx, 'invalid_type', spec, value, path)),
  trimmed: (spec, value, path, ctx) => {
    if (typeof value !== 'string') return fail(ctx, 'invalid_type', spec, value, path);
    return spec.required && value === '' ? fail(ctx, 'required', spec, value, path) : value;
  },
  int: (spec, value, path, ctx) => checkNumber(spec, value, path, ctx, true),
  number: (spec, value, path, ctx) => checkNumber(spec, value, path, ctx, false),
  bool: (spec, value, path, ctx) => (typeof value === 'boolean' ? value : fail(ctx, 'invalid_type', spec, value, path)),
  enum: (spec, value, path, ctx) =>
    (spec.values as readonly unknown[]).includes(value) ? value : fail(ctx, 'invalid_enum', spec, value, path),
  object: (spec, value, path, ctx) =>
    (typeof value === 'object' || typeof value === 'function') && !Array.isArray(value)
      ? readJson(value, [...path, spec.key], ctx)
      : fail(ctx, 'invalid_type', spec, value, path),
  array: (spec, value, path, ctx) =>
    Array.isArray(value) ? readJson(value, [...path, spec.key], ctx) : fail(ctx, 'invalid_type', spec, value, path),
  any: (spec, value, path, ctx) => readJson(value, [...path, spec.key], ctx),
  string_list: (spec, value, path, ctx) => {
    if (!Array.isArray(value)) return fail(ctx, 'invalid_type', spec, value, path);
    const bad = firstNonString(value);
    if (bad < 0) return value;
    ctx.issues.push(itemIssue(value[bad], [...path, spec.key, bad]));
    return INVALID;
  },
  timestamp: (spec, value, path, ctx) =>
    value instanceof PreciseDate ? value : fail(ctx, 'invalid_date', spec, value, path),
};

/** Index of the first item that is not a string, or -1. */
export function firstNonString(items: unknown[]): number {
  return items.findIndex((item) => typeof item !== 'string');
}

/** The issue for a bad item of a string list. */
export function itemIssue(item: unknown, path: IssuePath) {
  return { code: 'invalid_type' as const, message: `expected string, got ${typeName(item)}`, path };
}

/**
 * An event's payload: missing or null builds the kind's default payload; an instance of the
 * kind's class passes through; an instance of any other class is refused; a plain object is parsed.
 */
export function parsePayload(
  spec: FieldSpec,
  raw: unknown,
  path: IssuePath,
  ctx: ParseContext,
  kind: unknown,
  parse: PayloadParse,
): unknown {
  if (typeof kind !== 'string') return INVALID; // the kind's own issue is already recorded
  const cls = ctx.payloadClass?.(kind);
  if (!cls) return INVALID;
  ctx.kind = kind;
  if (raw === undefined || raw === null) return parse(cls, {}, [...path, spec.key], ctx);
  if (raw instanceof cls) return raw;
  if (typeof raw === 'object' && !Array.isArray(raw) && Object.getPrototypeOf(raw) !== Object.prototype && Object.getPrototypeOf(raw) !== null) {
    const got = (raw as object).constructor?.name ?? 'object';
    ctx.issues.push({
      code: 'invalid_payload_class',
      message: `expected a ${cls.name} for kind "${kind}", got ${got}`,
      path: [...path, spec.key],
    });
    return INVALID;
  }
  return parse(cls, raw, [...path, spec.key], ctx);
}

/** The compiled form of a class: everything the fast path needs, looked up once. */
export interface Codec {
  readonly fields: readonly FieldSpec[];
  /** Declared keys (null-prototype map, so `__proto__` is never "known"). */
  readonly known: Readonly<Record<string, true>>;
  parse(input: unknown, path: IssuePath, ctx: ParseContext): Parsed<object>;
  toMap(instance: object, json: boolean): Record<string, unknown>;
}

const CODECS = new WeakMap<object, Codec>();

/** The codec of a class, compiled on first use. */
export function codecOf(cls: ModelClass): Codec {
  let codec = CODECS.get(cls);
  if (!codec) CODECS.set(cls, (codec = compile(cls)));
  return codec;
}

/** The known-key map of a set of fields. */
export function knownKeys(fields: readonly FieldSpec[]): Record<string, true> {
  const known: Record<string, true> = Object.create(null);
  for (const spec of fields) known[spec.key] = true;
  known.extra = true; // never a wire key of its own: `extra` is where unknown keys live
  return known;
}

const fastPayload: PayloadParse = (cls, input, path, ctx) => codecOf(cls).parse(input, path, ctx);

function compile(cls: ModelClass): Codec {
  const fields = fieldsOf(cls);
  const known = knownKeys(fields);
  const readers = fields.map((spec) => {
    if (spec.type === 'payload') {
      return (raw: unknown, path: IssuePath, ctx: ParseContext, target: Record<string, unknown>) =>
        parsePayload(spec, raw, path, ctx, target.kind, fastPayload);
    }
    const check = CHECKS[spec.type];
    return (raw: unknown, path: IssuePath, ctx: ParseContext) => {
      const value = normalize(spec, raw);
      return value === undefined ? fail(ctx, 'required', spec, raw, path) : value === null && spec.nullable ? null : check(spec, value, path, ctx);
    };
  });

  return {
    fields,
    known,
    parse(input, path, ctx) {
      if (input instanceof cls) return input;
      if (!expectObject(input, path, ctx)) return INVALID;
      const before = ctx.issues.length;
      // Built without running the constructor: every field is assigned below.
      const out = Object.create(cls.prototype) as Record<string, unknown>;
      for (let i = 0; i < fields.length; i++) {
        out[fields[i].key] = readers[i](input[fields[i].key], path, ctx, out);
      }
      out.extra = splitExtra(input, known, path, ctx);
      return ctx.issues.length === before ? out : INVALID;
    },
    toMap(instance, json) {
      const source = instance as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const spec of fields) {
        let value = source[spec.key];
        if (value !== null && typeof value === 'object') {
          if (spec.type === 'payload') value = codecOf(value.constructor as ModelClass).toMap(value, json);
          else if (json && value instanceof Date) value = value.toJSON();
        }
        out[spec.key] = value;
      }
      const extra = source.extra as Record<string, unknown> | undefined;
      if (extra) for (const key of Object.keys(extra)) if (known[key] !== true) setOwn(out, key, extra[key]);
      return out;
    },
  };
}
