import { Transform } from 'class-transformer';
import { FieldRule, FieldSpec, recordField } from '../field';
import { Invalid, typeName } from '../issue';

/** What a convention decorator says about its field, beyond its rule. */
export type FieldOptions = Omit<FieldSpec, 'key' | 'type' | 'rule' | 'required'> & { required?: boolean };

/**
 * The decorator of a field: records its spec (read by the parser and the JSON Schema) and
 * applies the rule's class-validator decorators plus a class-transformer `@Transform` that
 * reads the value with the same rule, so NestJS pipes and the reference path normalize
 * exactly as the parser does.
 */
export function defineField(rule: FieldRule, options: FieldOptions = {}): PropertyDecorator {
  return (target, property) => {
    const key = String(property);
    const spec = fieldSpec(key, rule, options);
    recordField(target, spec);
    if (rule.type !== 'payload') {
      // Reads the source value itself (`obj`), not class-transformer's recursive copy,
      // which would drop `__proto__` keys and turn JSON data into other shapes.
      Transform(({ obj }) => transformValue(spec, (obj as Record<string, unknown>)[key]), { toClassOnly: true })(target, property);
    }
    for (const decorate of rule.validators(spec)) decorate(target, property);
  };
}

/** Every option, unset; the type makes a new option of FieldSpec be listed here. */
const UNSET: { readonly [K in keyof Required<FieldOptions>]: undefined } = {
  default: undefined,
  generated: undefined,
  required: undefined,
  min: undefined,
  values: undefined,
  trailing: undefined,
};

/**
 * Every spec has the same properties in the same order, absent ones undefined: the rules' `read`
 * functions, shared by every field, then read `spec.min` or `spec.values` from objects of one
 * hidden class (a monomorphic load) instead of one per combination of options (a megamorphic one).
 */
function fieldSpec(key: string, rule: FieldRule, options: FieldOptions): FieldSpec {
  return { key, type: rule.type, rule, ...UNSET, ...options, required: options.required ?? false };
}

function transformValue(spec: FieldSpec, raw: unknown): unknown {
  if (raw === undefined || raw === null) return spec.default ? spec.default() : raw;
  const value = spec.rule.read(raw, spec, false);
  if (!(value instanceof Invalid)) return value;
  // A bad scalar is handed to class-validator as it came, so a NestJS client reads
  // class-validator's own precise message ("index must not be less than 0"). An object is
  // handed over as the Invalid, which every validator refuses: class-validator would let some
  // through (a boxed `new String()`, a sparse string list, a Date subclass).
  return typeof raw === 'object' || typeof raw === 'function' ? value : raw;
}

/** A default factory that hands out a fresh copy of `value` each time. */
export function fresh(value: unknown): () => unknown {
  if (Array.isArray(value) && value.length === 0) return () => [];
  if (typeof value === 'object' && value !== null) {
    return Object.keys(value).length === 0 ? () => ({}) : () => structuredClone(value);
  }
  return () => value;
}

/** True when null is a stored value (the default is null): class-validator then needs `IsOptional`. */
export function defaultsToNull(spec: FieldSpec): boolean {
  return spec.default !== undefined && !spec.generated && spec.default() === null;
}

/** The issue of a value of the wrong type: `expected <what>, got <type>`. */
export function wrongType(expected: string, value: unknown): Invalid {
  return new Invalid('invalid_type', `expected ${expected}, got ${typeName(value)}`);
}

/** The issue of a missing required field. */
export const MISSING = new Invalid('required', 'required');

/**
 * `text.trim()`, skipping the builtin call when both ends are printable ASCII, which
 * String.prototype.trim never removes: most wire strings need no trimming.
 */
export function trim(text: string): string {
  const n = text.length;
  if (n === 0) return text;
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(n - 1);
  return first > 32 && first < 127 && last > 32 && last < 127 ? text : text.trim();
}
