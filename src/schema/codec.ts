import { CompiledParse, CompiledToMap, PayloadParse, compileParse, compileToMap } from './compile';
import { INVALID, ModelClass, ParseContext } from './context';
import { FieldSpec, fieldsOf } from './field';
import { IssuePath } from './issue';

/**
 * An event's payload: missing or null builds the kind's default payload; an instance of the
 * kind's class passes through; an instance of any other class is refused; a plain object is parsed.
 */
export function parsePayload(
  raw: unknown,
  at: IssuePath,
  ctx: ParseContext,
  kind: unknown,
  parse: PayloadParse,
): unknown {
  if (typeof kind !== 'string') return INVALID; // the kind's own issue is already recorded
  const cls = ctx.payloadClass?.(kind);
  if (!cls) return INVALID;
  ctx.kind = kind;
  if (raw === undefined || raw === null) return parse(cls, {}, at, ctx);
  if (raw instanceof cls) return raw;
  if (typeof raw === 'object' && !Array.isArray(raw) && Object.getPrototypeOf(raw) !== Object.prototype && Object.getPrototypeOf(raw) !== null) {
    const got = (raw as object).constructor?.name ?? 'object';
    ctx.issues.push({
      code: 'invalid_payload_class',
      message: `expected a ${cls.name} for kind "${kind}", got ${got}`,
      path: [...at],
    });
    return INVALID;
  }
  return parse(cls, raw, at, ctx);
}

/** The compiled form of a class: everything the fast path needs, looked up once. */
export interface Codec {
  readonly cls: ModelClass;
  readonly fields: readonly FieldSpec[];
  /** Declared keys (null-prototype map, so `__proto__` is never "known"). */
  readonly known: Readonly<Record<string, true>>;
  readonly parse: CompiledParse;
  readonly toMap: CompiledToMap;
}

/** Where a class keeps its codec: a symbol-keyed static, checked against `cls` because subclasses inherit statics. */
const CODEC = Symbol('codec');

/** The codec of a class, compiled on first use. */
export function codecOf(cls: ModelClass): Codec {
  let codec = (cls as unknown as { [CODEC]?: Codec })[CODEC];
  if (codec?.cls === cls) return codec;
  codec = compile(cls);
  Object.defineProperty(cls, CODEC, { value: codec });
  return codec;
}

/** The known-key map of a set of fields. */
export function knownKeys(fields: readonly FieldSpec[]): Record<string, true> {
  const known: Record<string, true> = Object.create(null);
  for (const spec of fields) known[spec.key] = true;
  return known;
}

const fastPayload: PayloadParse = (cls, input, path, ctx) => codecOf(cls).parse(input, path, ctx);

const mapNested: CompiledToMap = (instance, json) => codecOf(instance.constructor as ModelClass).toMap(instance, json);

function compile(cls: ModelClass): Codec {
  const fields = fieldsOf(cls);
  return {
    cls,
    fields,
    known: knownKeys(fields),
    parse: compileParse(cls, fields, (raw, at, ctx, kind) => parsePayload(raw, at, ctx, kind, fastPayload)),
    toMap: compileToMap(fields, mapNested),
  };
}
