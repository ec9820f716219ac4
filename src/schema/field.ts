import { markBuilt } from './built';
import { assertAssignSemantics } from './define-semantics';
import type { JsonSchema } from './json-schema';

/** The value shapes a field can have; each has one rule module in `src/schema/fields/`. */
export type FieldType =
  'text' | 'trimmed' | 'int' | 'number' | 'bool' | 'enum' | 'object' | 'array' | 'any' | 'string_list' | 'timestamp' | 'payload';

/**
 * Everything about one field type, in one module per type: how a value is read and
 * normalized, which issue a bad value gets, its JSON Schema and its class-validator
 * decorators. The parser, the reference path, the schema and the decorators all read it.
 */
export interface FieldRule {
  readonly type: FieldType;
  /** Its stored values are strings, numbers or booleans: `toMap` writes them as they are. */
  readonly scalar?: boolean;
  /**
   * Reads a present, non-null input value: what the instance stores, or an `Invalid` naming
   * the issue. `trusted`: the value came straight out of JSON.parse (no copy needed).
   */
  read(value: unknown, spec: FieldSpec, trusted: boolean): unknown;
  /** The JSON Schema of the field's accepted input. */
  schema(spec: FieldSpec): JsonSchema;
  /** class-validator (and class-transformer) decorators with the same meaning, for NestJS pipes and the reference path. */
  validators(spec: FieldSpec): PropertyDecorator[];
}

/** What a convention decorator records about one field. */
export interface FieldSpec {
  /** Property name, which is also the JSON key. */
  readonly key: string;
  readonly type: FieldType;
  readonly rule: FieldRule;
  /** Fresh default for a missing or null input; absent on required fields. */
  readonly default?: () => unknown;
  /** The default is generated per value (ids, now), not a constant: the JSON Schema names none and never calls it. */
  readonly generated?: boolean;
  /** Missing, null or (for strings) blank input is an error. */
  readonly required: boolean;
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
  assertAssignSemantics(ctor, spec.key);
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

/**
 * What the constructor of every model and of `Event` does (`new X()`, as NestJS and
 * class-transformer build instances): sets every field, defaults as fresh values and required
 * fields as undefined, so that every instance holds its fields in wire order (and no unknown
 * keys), and marks the instance as built by the library.
 */
export function initInstance(instance: object, cls: object): void {
  const target = instance as Record<string, unknown>;
  for (const spec of fieldsOf(cls)) target[spec.key] = spec.default ? spec.default() : undefined;
  markBuilt(instance);
}
