import { INVALID, ModelClass, ParseContext, Parsed, expectObject, readJson } from './context';
import { FieldSpec, fieldIssue } from './field';
import { IssueCode, IssuePath, typeName } from './issue';
import { EMPTY_ARRAY, EMPTY_OBJECT, hasOwn, setOwn } from './json';
import { toPreciseDate } from './precise-date';

/*
 * The fast path: from a class's field specs, generate once a specialised parse
 * (validate + default + trim + split extra + construct) and a specialised toMap.
 * Generated code has no per-call metadata lookups, no per-field closures and
 * builds every instance with one fixed shape, which keeps V8's inline caches
 * monomorphic. The reference path (class-validator) is kept to check it against.
 */

/** Parses a nested payload, given the class the registry picked. */
export type PayloadParse = (cls: ModelClass, input: unknown, path: IssuePath, ctx: ParseContext) => Parsed<object>;

/** Parses the payload field of an event (see codec.ts). */
export type PayloadField = (
  raw: unknown,
  at: IssuePath,
  ctx: ParseContext,
  kind: unknown,
) => unknown;

export type CompiledParse = (input: unknown, path: IssuePath, ctx: ParseContext) => Parsed<object>;
export type CompiledToMap = (instance: object, json: boolean) => Record<string, unknown>;

function fail(ctx: ParseContext, code: IssueCode, spec: FieldSpec, value: unknown, path: IssuePath): typeof INVALID {
  ctx.issues.push(fieldIssue(code, spec, value, [...path, spec.key]));
  return INVALID;
}

/** Index of the first item that is not a string, or -1. */
export function firstNonString(items: unknown[]): number {
  return items.findIndex((item) => typeof item !== 'string');
}

/** The issue for a bad item of a string list. */
export function itemIssue(item: unknown, path: IssuePath) {
  return { code: 'invalid_type' as const, message: `expected string, got ${typeName(item)}`, path };
}

function stringList(items: unknown[], spec: FieldSpec, path: IssuePath, ctx: ParseContext): unknown {
  const bad = firstNonString(items);
  if (bad < 0) return items.map((item) => trim(item as string));
  ctx.issues.push(itemIssue(items[bad], [...path, spec.key, bad]));
  return INVALID;
}

const quote = JSON.stringify;

/**
 * `text.trim()`, skipping the builtin call when both ends are printable ASCII, which
 * String.prototype.trim never removes: most wire strings need no trimming.
 */
function trim(text: string): string {
  const n = text.length;
  if (n === 0) return text;
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(n - 1);
  return first > 32 && first < 127 && last > 32 && last < 127 ? text : text.trim();
}

/** Source of an expression for a field's default: a literal for constant primitives, a factory call otherwise. */
function defaultSource(spec: FieldSpec, i: number): string {
  if (spec.generated) return `D[${i}]()`; // ids and "now" are made per value
  const sample = spec.default!();
  if (sample === null || typeof sample !== 'object') return quote(sample);
  if (Array.isArray(sample) && sample.length === 0) return 'EMPTY_ARRAY';
  return Object.keys(sample).length === 0 ? 'EMPTY_OBJECT' : `D[${i}]()`;
}

/** Source that reads `r` (the raw value, not null) into local `f<i>`. */
function checkSource(spec: FieldSpec, i: number): string {
  const set = (expr: string) => `f${i} = ${expr};`;
  const failWith = (code: IssueCode, value = 'r') => `f${i} = fail(ctx, ${quote(code)}, S[${i}], ${value}, path);`;
  const json = set(`readJson(r, path, ${quote(spec.key)}, ctx)`);
  switch (spec.type) {
    case 'text':
      return `if (typeof r === 'string') ${set('r')} else ${failWith('invalid_type')}`;
    case 'trimmed':
      return spec.required
        ? `if (typeof r !== 'string') ${failWith('invalid_type')} else { v = trim(r); if (v === '') ${failWith('required')} else ${set('v')} }`
        : `if (typeof r === 'string') ${set('trim(r)')} else ${failWith('invalid_type')}`;
    case 'int':
    case 'number': {
      const isType = spec.type === 'int' ? 'Number.isInteger(r)' : 'Number.isFinite(r)';
      const max = spec.type === 'int' ? `else if (r > ${Number.MAX_SAFE_INTEGER}) ${failWith('too_big')} ` : '';
      return `if (typeof r !== 'number' || !${isType}) ${failWith('invalid_type')} else if (r < ${spec.min ?? 0}) ${failWith('too_small')} ${max}else ${set('r')}`;
    }
    case 'bool':
      return `if (typeof r === 'boolean') ${set('r')} else ${failWith('invalid_type')}`;
    case 'enum':
      // A switch over the declared values stores the declared constant (an internalized string, so
      // later lookups by it, such as the registry's, need no hashing of a fresh parsed string).
      return `v = typeof r === 'string' ? trim(r) : r; switch (v) { ${(spec.values ?? [])
        .map((value) => `case ${quote(value)}: ${set(quote(value))} break;`)
        .join(' ')} default: ${failWith('invalid_enum', 'v')} }`;
    case 'object':
      return `if ((typeof r === 'object' && !Array.isArray(r)) || typeof r === 'function') ${json} else ${failWith('invalid_type')}`;
    case 'array':
      return `if (Array.isArray(r)) ${json} else ${failWith('invalid_type')}`;
    case 'any':
      return json;
    case 'string_list':
      return `if (Array.isArray(r)) ${set(`stringList(r, S[${i}], path, ctx)`)} else ${failWith('invalid_type')}`;
    case 'timestamp':
      return `v = toPreciseDate(r); if (v !== undefined) ${set('v')} else ${failWith('invalid_date')}`;
    case 'payload':
      return '';
  }
}

function fieldSource(spec: FieldSpec, i: number, fields: readonly FieldSpec[]): string {
  const read = `r = input[${quote(spec.key)}];`;
  if (spec.type === 'payload') {
    const kind = fields.findIndex((f) => f.key === 'kind');
    // At the root the payload's path is always [key]: one array (P[i]) serves every event.
    const at = `path.length === 0 ? P[${i}] : [...path, ${quote(spec.key)}]`;
    return `${read} f${i} = payloadField(r, ${at}, ctx, ${kind >= 0 ? `f${kind}` : 'undefined'});`;
  }
  const missing = spec.required ? `f${i} = fail(ctx, 'required', S[${i}], r, path);` : `f${i} = ${defaultSource(spec, i)};`;
  return `${read} if (r === undefined || r === null) ${missing} else { ${checkSource(spec, i)} }`;
}

/** `case "a": case "b":` for the declared keys, so unknown keys fall through to `extra`. */
function knownCases(fields: readonly FieldSpec[]): string {
  return fields.map((f) => `case ${quote(f.key)}:`).join(' ');
}

/** Generates the parse function of a class. */
export function compileParse(cls: ModelClass, fields: readonly FieldSpec[], payloadField: PayloadField): CompiledParse {
  const locals = fields.map((_, i) => `f${i}`);
  const shape = new Function(
    ...locals,
    'x',
    `${fields.map((f, i) => `this[${quote(f.key)}] = f${i};`).join(' ')} this.extra = x;`,
  ) as unknown as { prototype: object };
  // Instances get the class's prototype (methods, instanceof) and one fixed shape.
  shape.prototype = cls.prototype;
  const source = `
    return function parse(input, path, ctx) {
      if (input instanceof cls) return input;
      if (!expectObject(input, path, ctx)) return INVALID;
      const before = ctx.issues.length;
      let r, v, ${locals.join(', ')};
      ${fields.map((spec, i) => fieldSource(spec, i, fields)).join('\n      ')}
      let x;
      for (const key in input) {
        switch (key) { ${knownCases(fields)} continue; }
        if (!hasOwn(input, key)) continue;
        v = readJson(input[key], path, key, ctx);
        if (v === INVALID) continue;
        if (x === undefined) x = {};
        setOwn(x, key, v);
      }
      if (ctx.issues.length !== before) return INVALID;
      return new Shape(${[...locals, 'x === undefined ? EMPTY_OBJECT : x'].join(', ')});
    };`;
  const env = {
    cls,
    Shape: shape,
    S: fields,
    P: fields.map((f) => [f.key]),
    D: fields.map((f) => f.default),
    INVALID,
    EMPTY_OBJECT,
    EMPTY_ARRAY,
    expectObject,
    readJson,
    fail,
    stringList,
    trim,
    toPreciseDate,
    payloadField,
    setOwn,
    hasOwn,
  };
  return new Function(...Object.keys(env), source)(...Object.values(env)) as CompiledParse;
}

/** Generates the toMap function of a class: declared fields in order, then `extra` keys. */
export function compileToMap(fields: readonly FieldSpec[], mapNested: CompiledToMap): CompiledToMap {
  const entry = (spec: FieldSpec): string => {
    const get = `e[${quote(spec.key)}]`;
    if (spec.type === 'payload') return `${quote(spec.key)}: (v = ${get}) !== null && typeof v === 'object' ? mapNested(v, json) : v`;
    if (spec.type === 'timestamp') return `${quote(spec.key)}: (v = ${get}, json && v instanceof Date ? v.toJSON() : v)`;
    // toMap hands out fresh containers for the shared frozen empties; toJSON need not.
    if (spec.type === 'object' || spec.type === 'array' || spec.type === 'string_list') {
      return `${quote(spec.key)}: (v = ${get}, json ? v : v === EMPTY_OBJECT ? {} : v === EMPTY_ARRAY ? [] : v)`;
    }
    return `${quote(spec.key)}: ${get}`;
  };
  const source = `
    return function toMap(e, json) {
      let v;
      const out = { ${fields.map(entry).join(', ')} };
      const x = e.extra;
      if (x !== EMPTY_OBJECT && x !== null && typeof x === 'object') {
        for (const key in x) {
          switch (key) { ${knownCases(fields)} continue; }
          if (hasOwn(x, key)) setOwn(out, key, x[key]);
        }
      }
      return out;
    };`;
  const env = { mapNested, setOwn, EMPTY_OBJECT, EMPTY_ARRAY, hasOwn };
  return new Function(...Object.keys(env), source)(...Object.values(env)) as CompiledToMap;
}
