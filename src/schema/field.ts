import { Issue, IssueCode, IssuePath, preview, typeName } from './issue';
import { toPreciseDate } from './precise-date';

/** The value shapes a field can have; each convention decorator picks one. */
export type FieldType =
  | 'text'
  | 'trimmed'
  | 'int'
  | 'number'
  | 'bool'
  | 'enum'
  | 'object'
  | 'array'
  | 'any'
  | 'string_list'
  | 'timestamp'
  | 'payload';

/** What a convention decorator records about one field; both parse paths and the JSON Schema read it. */
export interface FieldSpec {
  /** Property name, which is also the JSON key. */
  readonly key: string;
  readonly type: FieldType;
  /** Fresh default for a missing or null input; absent on required fields. */
  readonly default?: () => unknown;
  /** The default is generated per value (ids, now), not a constant: the JSON Schema names none and never calls it. */
  readonly generated?: boolean;
  /** Missing, null or (for strings) blank input is an error. */
  readonly required: boolean;
  /** Null is a legal stored value (the default is null). */
  readonly nullable: boolean;
  /** Lower bound for `int` and `number`. */
  readonly min?: number;
  /** Allowed values for `enum`. */
  readonly values?: readonly string[];
  /** Sorted after all other fields (the `metadata` bag closes every payload, as on the wire). */
  readonly trailing?: boolean;
}

const OWN_FIELDS = new WeakMap<object, FieldSpec[]>();
const ALL_FIELDS = new WeakMap<object, readonly FieldSpec[]>();

/** Records a field spec for a class (called by the convention decorators). */
export function recordField(target: object, spec: FieldSpec): void {
  const ctor = (target as { constructor: object }).constructor;
  const own = OWN_FIELDS.get(ctor) ?? [];
  OWN_FIELDS.set(ctor, [...own.filter((f) => f.key !== spec.key), spec]);
}

/** All field specs of a class, base-class fields first and trailing fields last; a subclass may redeclare a field. */
export function fieldsOf(cls: object): readonly FieldSpec[] {
  let fields = ALL_FIELDS.get(cls);
  if (fields) return fields;
  const chain: object[] = [];
  for (let c: object | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  const byKey = new Map<string, FieldSpec>();
  for (const c of chain) for (const spec of OWN_FIELDS.get(c) ?? []) byKey.set(spec.key, spec);
  const all = [...byKey.values()];
  fields = [...all.filter((f) => !f.trailing), ...all.filter((f) => f.trailing)];
  ALL_FIELDS.set(cls, fields);
  return fields;
}

/** Sets every defaulted field of a fresh instance (what `new X()` gives, as NestJS and class-transformer build it). */
export function applyDefaults(instance: object, cls: object): void {
  const target = instance as Record<string, unknown>;
  for (const spec of fieldsOf(cls)) if (spec.default) target[spec.key] = spec.default();
  target.extra = {};
}

/**
 * Input normalization shared by the fast path and the class-transformer `@Transform`:
 * missing or null takes the default, trimmed strings and enum names are trimmed,
 * timestamps are read. Never validates; a value it cannot read is returned unchanged.
 */
export function normalize(spec: FieldSpec, raw: unknown): unknown {
  if (raw === undefined || raw === null) return spec.default ? spec.default() : undefined;
  switch (spec.type) {
    case 'trimmed':
    case 'enum':
      return typeof raw === 'string' ? raw.trim() : raw;
    case 'string_list':
      return Array.isArray(raw) ? raw.map((item) => (typeof item === 'string' ? item.trim() : item)) : raw;
    case 'timestamp':
      // A Date it cannot take (outside the years 0000-9999) becomes an invalid Date, which IsDate refuses too.
      return toPreciseDate(raw) ?? (raw instanceof Date ? new Date(NaN) : raw);
    default:
      return raw;
  }
}

const EXPECTED: Record<FieldType, string> = {
  text: 'string',
  trimmed: 'string',
  int: 'integer',
  number: 'finite number',
  bool: 'boolean',
  enum: 'string',
  object: 'object',
  array: 'array',
  any: 'JSON value',
  string_list: 'array of strings',
  timestamp: 'timestamp',
  payload: 'object',
};

/** The one place issue messages are worded, so both parse paths say the same thing. */
export function fieldIssue(code: IssueCode, spec: FieldSpec, value: unknown, path: IssuePath): Issue {
  return { code, message: fieldMessage(code, spec, value), path };
}

function fieldMessage(code: IssueCode, spec: FieldSpec, value: unknown): string {
  switch (code) {
    case 'required':
      return spec.type === 'trimmed' && typeof value === 'string' ? 'required: must not be blank' : 'required';
    case 'invalid_type':
      return `expected ${EXPECTED[spec.type]}, got ${typeName(value)}`;
    case 'too_small':
      return `too small: must be at least ${spec.min ?? 0}`;
    case 'too_big':
      return `too big: must be at most ${Number.MAX_SAFE_INTEGER}`;
    case 'invalid_enum':
      return `expected one of ${(spec.values ?? []).map((v) => JSON.stringify(v)).join(', ')}; got ${preview(value)}`;
    case 'invalid_date':
      return `expected an ISO 8601 timestamp, a Date or epoch milliseconds; got ${preview(value)}`;
    default:
      return `invalid: ${preview(value)}`;
  }
}
