import { Kept, Missing, TryParseFn, generateParse, generateToMap } from './accelerate';
import { INVALID, ModelClass, ParseContext, Parsed, addIssue, expectObject } from './context';
import { markBuilt } from './built';
import { Instance, attachExtra, copyExtra, detachExtra, extraOf } from './extra';
import { FieldSpec, fieldsOf } from './field';
import { MISSING } from './fields/define';
import { NestedParse, readPayload } from './fields/payload';
import { getInput, isInstanceInput, keysOfInput } from './input';
import { Invalid, IssuePath } from './issue';
import { EMPTY_ARRAY, EMPTY_OBJECT, hasOwn, readJsonData, setOwn } from './json';

/*
 * The fast path: per class, once, a parse and a toMap composed from closures over the field
 * specs (no code generated from strings, so it runs where `eval` is banned). A parse reads each
 * value once, asks the field's rule for the stored value or an `Invalid`, and builds the
 * instance with one fixed shape without running constructors. The rules decide every issue.
 */

/** The parse and toMap of one class. */
export interface Codec {
  readonly cls: ModelClass;
  /** Parses a plain object (or passes an instance of the class through). */
  parse(input: unknown, path: IssuePath, ctx: ParseContext): Parsed<object>;
  /**
   * The fast path for JSON.parse output (the accelerator's; undefined where code generation is
   * banned): the same instance `parse` builds, or INVALID with no issue recorded, after which
   * `parse` is run to name the issues.
   */
  readonly tryParse?: TryParseFn;
  /** The unknown keys of an input, each checked as JSON data (issues go to `ctx`); undefined when there are none. */
  readExtra(input: Record<string, unknown>, path: IssuePath, ctx: ParseContext, present?: number): Record<string, unknown> | undefined;
  /** The value a parsed instance holds for field `index` when the input has none (undefined for a required field). */
  missingValue(index: number): unknown;
  /**
   * Builds an instance from one stored value per field (in field order) and the unknown keys, with
   * the parses' own constructor (the generated one where code generation is allowed).
   */
  build(values: readonly unknown[], extra: Record<string, unknown> | undefined): object;
  /** The unknown keys of an instance (a frozen snapshot). */
  extraOf(instance: object): Record<string, unknown>;
  /** Replaces the unknown keys of an instance with those of `extra` (already checked as JSON data). */
  replaceExtra(instance: object, extra: Record<string, unknown>): void;
  /** The plain object: declared fields in order, then the unknown keys (`json`: timestamps as text). */
  toMap(instance: object, json: boolean): Record<string, unknown>;
}

/** Where a class keeps its codec: a symbol-keyed static, checked against `cls` because subclasses inherit statics. */
const CODEC = Symbol('codec');

/** The codec of a class, built on first use. */
export function codecOf(cls: ModelClass): Codec {
  const codec = (cls as unknown as { [CODEC]?: Codec })[CODEC];
  if (codec?.cls === cls) return codec;
  const built = makeCodec(cls, fieldsOf(cls));
  Object.defineProperty(cls, CODEC, { value: built });
  return built;
}

/** How many keys for-in lists (own and inherited enumerable): with an enum cache, no lookup per key. */
function countKeys(input: object): number {
  let count = 0;
  for (const _ in input) count++;
  return count;
}

const fastNested: NestedParse = (cls, input, path, ctx) => codecOf(cls).parse(input, path, ctx);

/**
 * The default a parsed instance holds for a missing or null value: `required` (an issue),
 * a `constant` (a primitive, or the shared frozen empty container) or `made` fresh per instance
 * (ids, now, non-empty container defaults). Missing containers are one shared frozen `{}`/`[]`
 * (as protobuf.js does), so a stream of events does not pay for empty objects; changing one
 * throws instead of silently touching every event. `new X()` gives fresh ones.
 */
function parsedDefault(spec: FieldSpec): [Missing, unknown] {
  if (!spec.default) return ['required', undefined];
  if (spec.generated) return ['made', spec.default];
  const sample = spec.default();
  if (sample === null || typeof sample !== 'object') return ['constant', sample];
  if (Array.isArray(sample) && sample.length === 0) return ['constant', EMPTY_ARRAY];
  return Object.keys(sample).length === 0 ? ['constant', EMPTY_OBJECT] : ['made', spec.default];
}

/** A field value as `toMap` writes it: timestamps as text for JSON, fresh containers for the shared frozen empties. */
function write(value: unknown, json: boolean): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (json) return value instanceof Date ? value.toJSON() : value;
  return value === EMPTY_OBJECT ? {} : value === EMPTY_ARRAY ? [] : value;
}

/** The payload as `toMap` writes it: mapped by its own class. */
function writePayload(value: unknown, json: boolean): unknown {
  return value !== null && typeof value === 'object' ? codecOf(value.constructor as ModelClass).toMap(value, json) : value;
}

function makeCodec(cls: ModelClass, fields: readonly FieldSpec[]): Codec {
  const n = fields.length;
  const keys = fields.map((spec) => spec.key);
  const defaults = fields.map(parsedDefault);
  const missing = defaults.map(([how]) => how);
  const fallback = defaults.map(([, value]) => value);
  const missingValue = (i: number): unknown => (missing[i] === 'made' ? (fallback[i] as () => unknown)() : fallback[i]);
  const payloadAt = fields.findIndex((spec) => spec.type === 'payload');
  const kindAt = keys.indexOf('kind');
  const known = new Set(keys);
  const scalar = fields.map((spec) => spec.rule.scalar === true);
  const kept: Kept = {};
  // At the root a field's path is always [key]: one array per field serves every parse, since
  // every issue copies the path it is given.
  const rootPaths = keys.map((key) => [key]);
  const childPath = (path: IssuePath, i: number): IssuePath => (path.length === 0 ? rootPaths[i] : [...path, keys[i]]);

  // Instances get the class's prototype (methods, instanceof) and one fixed shape, with no
  // constructor run: the parse decides every field, in either mode (see docs/event-model.md, Parse modes).
  const Shape = function Shape(this: Instance) {
    markBuilt(this);
  } as unknown as new () => Instance;
  Shape.prototype = cls.prototype as Instance;

  // for-in also lists keys a polluted Object.prototype makes enumerable; a `__proto__` key is own.
  const isUnknownOwn = (input: object, key: string): boolean => !known.has(key) && hasOwn(input, key);

  /**
   * The unknown keys of an input, each value checked as JSON data; undefined when there are none.
   * `present`: how many declared keys the input had; when it has no more keys than that, there is
   * nothing to look up (most lines), which counting its keys tells without a lookup per key.
   */
  function readExtra(
    input: Record<string, unknown>,
    path: IssuePath,
    ctx: ParseContext,
    present = -1,
  ): Record<string, unknown> | undefined {
    if (ctx.trusted && present >= 0 && countKeys(input) === present) return undefined;
    let extra: Record<string, unknown> | undefined;
    const add = (key: string, raw: unknown): void => {
      const value = readJsonData(raw, ctx.trusted);
      if (value instanceof Invalid) addIssue(ctx, value.issueAt([...path, key]));
      else setOwn((extra ??= {}), key, value);
    };
    if (ctx.trusted) {
      for (const key in input) if (isUnknownOwn(input, key)) add(key, input[key]);
    } else {
      for (const key of keysOfInput(input)) if (!known.has(key)) add(key, getInput(input, key));
    }
    return extra;
  }

  /**
   * `readExtra` for the fast path: the unknown keys of JSON.parse output, each checked as writable
   * JSON (INVALID if one is not), for `attachKeys` to set from the input itself, so that no object
   * is built for them.
   */
  function checkExtra(input: Record<string, unknown>): Parsed<string[]> {
    const unknown: string[] = [];
    for (const key in input) {
      if (!isUnknownOwn(input, key)) continue;
      if (readJsonData(input[key], true) instanceof Invalid) return INVALID;
      unknown.push(key);
    }
    return unknown;
  }

  function parse(input: unknown, path: IssuePath, ctx: ParseContext): Parsed<object> {
    const trusted = ctx.trusted;
    if (!trusted && isInstanceInput(input, cls)) return input as object;
    if (!expectObject(input, path, ctx)) return INVALID;
    kept.input = input;
    const before = ctx.issues.length;
    const instance = new Shape();
    let payloadFailed = false;
    let present = 0;
    for (let i = 0; i < n; i++) {
      const spec = fields[i];
      const raw = trusted ? input[keys[i]] : getInput(input, keys[i]);
      if (raw !== undefined) present++;
      let value: unknown;
      if (i === payloadAt) {
        value = readPayload(raw, childPath(path, i), ctx, kindAt >= 0 ? instance[keys[kindAt]] : undefined, fastNested);
        payloadFailed = value === INVALID;
      } else if (raw === undefined || raw === null) {
        if (missing[i] === 'required') addIssue(ctx, MISSING.issueAt(childPath(path, i)));
        else value = missingValue(i);
      } else {
        value = spec.rule.read(raw, spec, trusted);
        if (value instanceof Invalid) addIssue(ctx, value.issueAt(childPath(path, i)));
      }
      instance[keys[i]] = value;
    }
    const extra = readExtra(input, path, ctx, present);
    if (payloadFailed || ctx.issues.length !== before) return INVALID;
    if (extra) attach(instance, extra);
    return (kept.instance = instance);
  }

  function build(values: readonly unknown[], extra: Record<string, unknown> | undefined): object {
    let instance: Instance;
    if (generatedBuild) {
      instance = generatedBuild(values) as Instance;
    } else {
      instance = new Shape();
      for (let i = 0; i < n; i++) instance[keys[i]] = values[i];
    }
    if (extra) attach(instance, extra);
    return instance;
  }

  /** The writer of an instance whose unknown keys sit in the slot (see extra.ts). */
  function mergedToJSON(this: object): Record<string, unknown> {
    return toMapOf(this, true);
  }
  const attachKeys = (instance: object, source: Record<string, unknown>, keys: readonly string[]): void =>
    attachExtra(instance, source, keys, mergedToJSON);
  const attach = (instance: object, extra: Record<string, unknown>): void => attachKeys(instance, extra, Object.keys(extra));

  function replaceExtra(instance: object, extra: Record<string, unknown>): void {
    for (const key of Object.keys(extra))
      if (known.has(key)) throw new TypeError(`extra: "${key.slice(0, 40)}" is a declared field of ${cls.name}`);
    detachExtra(instance, known);
    attach(instance, extra);
  }

  /** Merges the unknown keys back after the declared fields. */
  function writeExtra(instance: object, out: Record<string, unknown>): Record<string, unknown> {
    copyExtra(instance, known, out);
    return out;
  }

  function toMap(instance: object, json: boolean): Record<string, unknown> {
    const source = instance as Instance;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const value = source[keys[i]];
      out[keys[i]] = scalar[i] ? value : i === payloadAt ? writePayload(value, json) : write(value, json);
    }
    return writeExtra(instance, (kept.output = out));
  }

  const generated = generateParse({
    cls,
    keys,
    how: missing.map((how, i) => (i === payloadAt ? 'payload' : how)),
    kept,
    env: {
      ...Object.fromEntries(
        fields.flatMap((spec, i) => [
          [`R${i}`, spec.rule.read],
          [`S${i}`, spec],
        ]),
      ),
      D: fallback,
      INVALID,
      EMPTY_OBJECT,
      countKeys,
      checkExtra,
      attachKeys,
      MISSING,
      Invalid,
      addIssue,
      markBuilt,
      attach,
      getInput,
      isInstanceInput,
      expectObject,
      readPayload,
      readExtra,
      childPath,
      nested: fastNested,
    },
  });
  const generatedBuild = generated?.build;
  const generatedToMap = generateToMap(keys, payloadAt, scalar, kept, { write, writePayload, writeExtra });
  const toMapOf = generatedToMap ?? toMap;
  return {
    cls,
    parse: generated?.parse ?? parse,
    tryParse: generated?.tryParse,
    readExtra,
    missingValue,
    build,
    toMap: toMapOf,
    extraOf: (instance) => extraOf(instance, known),
    replaceExtra,
  };
}
