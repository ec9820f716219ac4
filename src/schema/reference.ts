import { plainToClassFromExist } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';
import { codecOf } from './codec';
import { INVALID, ModelClass, ParseContext, Parsed, addIssue, expectObject } from './context';
import { FieldSpec, fieldsOf } from './field';
import { MISSING } from './fields/define';
import { readPayload } from './fields/payload';
import { getInput, isInstanceInput } from './input';
import { Invalid, Issue, IssuePath, preview } from './issue';

/** Field types holding arbitrary JSON data, which class-transformer has nothing to convert in. */
const OPAQUE = new Set(['object', 'array', 'any']);

/**
 * How a field whose input is `raw` reaches the instance: `plain`, given to class-transformer, or
 * `direct`, set on it. A scalar goes through as it came (the `@Transform` reads it with the rule).
 * An object is read once, by the rule, into a snapshot (a fresh Date, a fresh string list, a
 * copy of JSON data): the caller's object is never read again, whatever a getter answers the
 * second time, and the rule's bounded reads decide about a sparse array before anything walks
 * it. A refused object (an Invalid) and JSON data are set directly; class-transformer copies
 * objects recursively (a 10,000-deep array overflows the stack). class-validator checks all.
 */
function readOnce(spec: FieldSpec, raw: unknown, trusted: boolean): { plain: unknown } | { direct: unknown } {
  const scalar = typeof raw !== 'object' && typeof raw !== 'function';
  if (scalar && !OPAQUE.has(spec.type)) return { plain: raw };
  const value = spec.rule.read(raw, spec, trusted);
  return OPAQUE.has(spec.type) || value instanceof Invalid ? { direct: value } : { plain: value };
}

/**
 * The reference path: what NestJS's ValidationPipe does with the same classes, class-transformer
 * (whose `@Transform` reads each value with the field's rule) and then class-validator
 * `validateSync`, which decides. The instance returned is built by the same builder as the
 * fast path's, so both modes give the same instance; the issues are the rules' own.
 */
export function referenceParse(cls: ModelClass, input: unknown, path: IssuePath, ctx: ParseContext): Parsed<object> {
  if (!ctx.trusted && isInstanceInput(input, cls)) return input as object;
  if (!expectObject(input, path, ctx)) return INVALID;
  const fields = fieldsOf(cls);
  const before = ctx.issues.length;
  const raw = fields.map((spec) => (ctx.trusted ? input[spec.key] : getInput(input, spec.key)));
  const given = fields.map((spec, i) => spec.type !== 'payload' && raw[i] !== undefined && raw[i] !== null);

  const codec = codecOf(cls);
  // Into an instance made without its constructor (which would use up an id), as the fast path does.
  const target = Object.create(cls.prototype) as Record<string, unknown>;
  const plain: Record<string, unknown> = {};
  fields.forEach((spec, i) => {
    if (!given[i]) {
      target[spec.key] = spec.type === 'payload' ? undefined : codec.missingValue(i);
      return;
    }
    const read = readOnce(spec, raw[i], ctx.trusted);
    if ('plain' in read) plain[spec.key] = read.plain;
    else target[spec.key] = read.direct;
  });
  plainToClassFromExist(target, plain);
  const errors = validateSync(target, { forbidUnknownValues: false });

  const values = fields.map((spec, i) => {
    if (spec.type === 'payload') return readPayload(raw[i], [...path, spec.key], ctx, target.kind, referenceParse);
    const error = errors.find((e) => e.property === spec.key);
    if (error) addIssue(ctx, issueOf(error, spec, target[spec.key], raw[i], [...path, spec.key], ctx.trusted));
    return target[spec.key];
  });
  const extra = codec.readExtra(input, path, ctx);
  if (values.includes(INVALID) || ctx.issues.length !== before) return INVALID;
  return codec.build(values, extra);
}

/**
 * The issue of a field class-validator refused, as its rule words it: the `Invalid` the
 * `@Transform` left, or the rule's verdict on the value as it came (a bad scalar is handed to
 * class-validator unchanged), or `required` for a missing value. A value the rule accepts
 * means class-validator and the rule disagree, a bug the differential tests look for: it is
 * still reported, never let through.
 */
function issueOf(error: ValidationError, spec: FieldSpec, value: unknown, raw: unknown, path: IssuePath, trusted: boolean): Issue {
  if (value instanceof Invalid) return value.issueAt(path);
  if (raw === undefined || raw === null) return MISSING.issueAt(path);
  // A scalar is the one value read again (it has no getters); an object was read once, into `value`.
  const verdict = typeof raw === 'object' || typeof raw === 'function' ? value : spec.rule.read(raw, spec, trusted);
  if (verdict instanceof Invalid) return verdict.issueAt(path);
  const constraints = Object.keys(error.constraints ?? {}).join(', ');
  return { code: 'invalid_type', message: `refused by ${constraints || 'class-validator'}: ${preview(value)}`, path: [...path] };
}
