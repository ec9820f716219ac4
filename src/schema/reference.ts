import { plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';
import { knownKeys, parsePayload } from './codec';
import { firstNonString, itemIssue } from './compile';
import { INVALID, ModelClass, ParseContext, Parsed, expectObject, splitExtra } from './context';
import { FieldSpec, FieldType, fieldIssue, fieldsOf, normalize } from './field';
import { Issue, IssueCode, IssuePath, preview } from './issue';
import { IS_JSON_VALUE } from './is-json-value';
import { hasOwn, walkJson } from './json';

/** Field types holding arbitrary JSON data, which class-transformer has nothing to convert in. */
const OPAQUE = new Set<FieldType>(['object', 'array', 'any']);

/**
 * Whether class-transformer is given this field's value. It copies objects recursively (a
 * 10,000-deep array overflows the stack), so JSON data, and any object a single-value field
 * or string list refuses anyway, is set directly; a Date and an array of scalars go through.
 */
function throughTransformer(spec: FieldSpec, value: unknown): boolean {
  if (OPAQUE.has(spec.type)) return false;
  if (typeof value !== 'object' || value === null || value instanceof Date) return true;
  return Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null);
}

/**
 * The reference path: what NestJS's ValidationPipe does with the same classes —
 * class-transformer `plainToInstance`, then class-validator `validateSync` —
 * plus the library's extra split. Slower; kept to check the fast path against.
 */
export function referenceParse(cls: ModelClass, input: unknown, path: IssuePath, ctx: ParseContext): Parsed<object> {
  if (input instanceof cls) return input;
  if (!expectObject(input, path, ctx)) return INVALID;
  const fields = fieldsOf(cls);
  const before = ctx.issues.length;
  const extra = splitExtra(input, knownKeys(fields), path, ctx);
  const payloadSpec = fields.find((spec) => spec.type === 'payload');
  const given = fields.filter((spec) => spec !== payloadSpec && hasOwn(input, spec.key));

  let instance: Record<string, unknown>;
  try {
    const plain: Record<string, unknown> = {};
    const direct = new Map<FieldSpec, unknown>();
    for (const spec of given) {
      const value = input[spec.key];
      if (throughTransformer(spec, value)) plain[spec.key] = value;
      else direct.set(spec, value);
    }
    instance = plainToInstance(cls, plain) as Record<string, unknown>;
    // Set with the same normalization the field's @Transform applies, because class-transformer's
    // recursive copy breaks on data keys such as `constructor` and `__proto__`, and on deep nesting.
    for (const [spec, value] of direct) instance[spec.key] = normalize(spec, value);
    const errors = validateSync(instance, { forbidUnknownValues: false });
    for (const error of errors) {
      const spec = fields.find((f) => f.key === error.property);
      if (spec && spec !== payloadSpec) ctx.issues.push(toIssue(error, spec, path));
    }
    for (const spec of given) if (!errors.some((error) => error.property === spec.key)) rejectBoxed(spec, instance[spec.key], path, ctx);
    // As the fast path does, keep a copy of JSON data from an object input, never the caller's objects.
    if (!ctx.trusted) for (const spec of given) if (OPAQUE.has(spec.type)) instance[spec.key] = walkJson(instance[spec.key], [], true).value;
  } catch (cause) {
    ctx.issues.push({ code: 'unreadable', message: `could not read input: ${preview(String(cause))}`, path });
    return INVALID;
  }
  if (payloadSpec) {
    instance[payloadSpec.key] = parsePayload(input[payloadSpec.key], [...path, payloadSpec.key], ctx, instance.kind, referenceParse);
  }
  instance.extra = extra;
  return ctx.issues.length === before ? instance : INVALID;
}

/**
 * What class-validator lets through and the fast path does not: IsString and IsBoolean pass
 * boxed `new String()` / `new Boolean()` objects, and `each` skips the holes of a sparse array
 * (`[, 'a']`, written out as `[null,"a"]`). JSON has neither, so they are refused here too.
 */
function rejectBoxed(spec: FieldSpec, value: unknown, path: IssuePath, ctx: ParseContext): void {
  if ((spec.type === 'text' || spec.type === 'trimmed' || spec.type === 'bool') && (value instanceof String || value instanceof Boolean)) {
    ctx.issues.push(fieldIssue('invalid_type', spec, value, [...path, spec.key]));
  } else if (spec.type === 'string_list' && Array.isArray(value)) {
    const bad = firstNonString(value); // findIndex visits holes
    if (bad >= 0) ctx.issues.push(itemIssue(value[bad], [...path, spec.key, bad]));
  }
}

/** class-validator constraint names, most basic first: a field reports only its first failure, as the fast path does. */
const CONSTRAINT_CODES: [string, IssueCode][] = [
  ['isDefined', 'required'],
  ['isString', 'invalid_type'],
  ['isInt', 'invalid_type'],
  ['isNumber', 'invalid_type'],
  ['isBoolean', 'invalid_type'],
  ['isObject', 'invalid_type'],
  ['isArray', 'invalid_type'],
  ['isDate', 'invalid_date'],
  ['isIn', 'invalid_enum'],
  ['isNotEmpty', 'required'],
  ['min', 'too_small'],
  ['max', 'too_big'],
  [IS_JSON_VALUE, 'serializable'],
];

/** The one adapter from a class-validator error to the library's issue shape. */
export function toIssue(error: ValidationError, spec: FieldSpec, path: IssuePath): Issue {
  const failed = error.constraints ?? {};
  const [name, code] = CONSTRAINT_CODES.find(([constraint]) => constraint in failed) ?? ['', 'invalid_type'];
  const at = [...path, spec.key];
  const value: unknown = error.value;
  if (code === 'serializable') return walkJson(value, at, false).issue ?? fieldIssue(code, spec, value, path);
  if (name === 'isString' && spec.type === 'string_list' && Array.isArray(value)) {
    const bad = firstNonString(value);
    return itemIssue(value[bad], [...at, bad]);
  }
  return fieldIssue(code, spec, value, at);
}
