import type { ModelClass, ParseContext, Parsed } from './context';
import type { IssuePath } from './issue';

/*
 * An optional accelerator for the codec. Composed closures read and store fields by computed
 * keys and call each field's rule through one shared call site, which V8 cannot specialize;
 * a function generated once per class names its keys and its rules' `read` functions
 * directly, and runs markedly faster. It holds no rule of its own: it only wires the same
 * rules, defaults and issue reporting as the closures, in an unrolled form. It also makes the
 * fast path for JSON text (`tryParse`, which keeps no issues). Where code generation from strings
 * is banned (`node --disallow-code-generation-from-strings`, a strict Content-Security-Policy,
 * Cloudflare Workers) the closures run instead, and JSON text goes straight to them, unnoticed.
 */

let allowed: boolean | undefined;

/** Whether `new Function` works here; asked once. */
export function canGenerateCode(): boolean {
  if (allowed === undefined) {
    try {
      allowed = new Function('return true')() === true;
    } catch {
      allowed = false;
    }
  }
  return allowed;
}

/** How a parsed instance fills a missing or null value (see `parsedDefault` in codec.ts). */
export type Missing = 'required' | 'constant' | 'made';

/** What the generated parse of one class is wired to (see `makeCodec`). */
export interface ParseWiring {
  readonly cls: ModelClass;
  readonly keys: readonly string[];
  /** Per field: 'payload', or how a missing value is filled. */
  readonly how: readonly (Missing | 'payload')[];
  /** The environment the generated code reads: rules' read functions, specs, defaults, helpers. */
  readonly env: Record<string, unknown>;
  /** Holds the last object built (see KEPT). */
  readonly kept: Kept;
}

/**
 * The last input read and the last instance and output object built, held on purpose. Optimized
 * code refers weakly to the hidden classes (maps) of the objects it builds; in a stream whose
 * events are all garbage, a full GC collects those maps and deoptimizes the parser (measured:
 * the next events ran about 2× slower). One live object of each shape keeps its map alive.
 */
export interface Kept {
  input?: object;
  instance?: object;
  output?: object;
}

export type ParseFn = (input: unknown, path: IssuePath, ctx: ParseContext) => Parsed<object>;
export type ToMapFn = (instance: object, json: boolean) => Record<string, unknown>;

const quote = JSON.stringify;

/** The trusted fast path of one class (see `Codec.tryParse`). */
export type TryParseFn = (input: unknown, payloads: PayloadParsers) => Parsed<object>;

/** The fast path of the payload class an event kind names (in the registry in force), if any. */
export type PayloadParsers = (kind: string) => TryParseFn | undefined;

/** The two generated parses of a class, which build the same instances, and their constructor. */
export interface GeneratedParses {
  parse: ParseFn;
  tryParse: TryParseFn;
  /** The instance of one stored value per field, in field order (no unknown keys), as both parses build it. */
  build: (values: readonly unknown[]) => object;
}

/**
 * The generated parses: per field, one named read, the missing-value convention, one direct
 * call of the field's reader, and the instance built by a generated constructor with named
 * stores. `parse` records every issue in its context; `tryParse`, for JSON.parse output only,
 * carries no context and answers INVALID at the first bad value, so a line that is valid (most
 * lines) pays for no issue bookkeeping; the caller then runs `parse` to name the issues.
 * `tryParse` keeps nothing in `kept`: measured without it, the events right after a forced full
 * GC ran no slower than the floor's (`npm run bench`, 0.55×). Null when code generation is banned.
 */
export function generateParse(wiring: ParseWiring): GeneratedParses | null {
  if (!canGenerateCode()) return null;
  const { keys, how } = wiring;
  const v = keys.map((_, i) => `v${i}`);
  const kind = keys.indexOf('kind') >= 0 ? `v${keys.indexOf('kind')}` : 'undefined';
  /**
   * A non-payload field's code in either parse: the missing-value convention, else one call of its
   * reader. `fail(issue)`: what a missing required value or a refused one does (record the issue,
   * or give up); `made`: how a missing value with a made default is filled.
   */
  const ruleField = (i: number, trusted: string, fail: (issue: string) => string, made: string): string => {
    const missing =
      how[i] === 'required' ? fail(`MISSING.issueAt(childPath(path, ${i}))`) : how[i] === 'constant' ? `v${i} = D[${i}];` : made;
    return `if (r === undefined || r === null) { ${missing} } else { v${i} = R${i}(r, S${i}, ${trusted}); if (v${i} instanceof Invalid) ${fail(`v${i}.issueAt(childPath(path, ${i}))`)} }`;
  };
  const field = (key: string, i: number): string => {
    const read = `r = trusted ? input[${quote(key)}] : getInput(input, ${quote(key)}); if (r !== undefined) p++;`;
    if (how[i] === 'payload') {
      return `${read} v${i} = readPayload(r, childPath(path, ${i}), ctx, ${kind}, nested); if (v${i} === INVALID) pf = true;`;
    }
    return `${read} ${ruleField(i, 'trusted', (issue) => `addIssue(ctx, ${issue});`, `v${i} = D[${i}]();`)}`;
  };
  const tryField = (key: string, i: number): string => {
    const read = `r = input[${quote(key)}]; if (r !== undefined) p++;`;
    if (how[i] === 'payload') {
      return `${read} tp = typeof ${kind} === 'string' ? payloads(${kind}) : undefined; if (tp === undefined) return INVALID; v${i} = tp(r === undefined || r === null ? EMPTY_OBJECT : r, payloads); if (v${i} === INVALID) return INVALID;`;
    }
    // A made default (an id, now) is made only once the whole input is known to be valid.
    return `${read} ${ruleField(i, 'true', () => 'return INVALID;', `v${i} = UNMADE;`)}`;
  };
  const make = keys.map((_, i) => (how[i] === 'made' ? `if (v${i} === UNMADE) v${i} = D[${i}]();` : '')).join(' ');
  const shape = `function Shape(${v.join(', ')}) { ${keys.map((key, i) => `this[${quote(key)}] = v${i};`).join(' ')} markBuilt(this); }
    Shape.prototype = cls.prototype;`;
  const source = `${shape}
    const UNMADE = Symbol('unmade');
    function parse(input, path, ctx) {
      const trusted = ctx.trusted;
      if (!trusted && isInstanceInput(input, cls)) return input;
      if (!expectObject(input, path, ctx)) return INVALID;
      kept.input = input;
      const before = ctx.issues.length;
      let r, p = 0, pf = false, ${v.join(', ')};
      ${keys.map(field).join('\n      ')}
      const x = readExtra(input, path, ctx, p);
      if (pf || ctx.issues.length !== before) return INVALID;
      const instance = new Shape(${v.join(', ')});
      if (x !== undefined) attach(instance, x);
      return (kept.instance = instance);
    }
    function tryParse(input, payloads) {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) return INVALID;
      let r, tp, p = 0, ${v.join(', ')};
      ${keys.map(tryField).join('\n      ')}
      const x = countKeys(input) === p ? undefined : checkExtra(input);
      if (x === INVALID) return INVALID;
      ${make}
      const instance = new Shape(${v.join(', ')});
      if (x !== undefined) attachKeys(instance, input, x);
      return instance;
    }
    function build(values) {
      return new Shape(${v.map((_, i) => `values[${i}]`).join(', ')});
    }
    return { parse, tryParse, build };`;
  const env = { ...wiring.env, cls: wiring.cls, kept: wiring.kept };
  return new Function(...Object.keys(env), source)(...Object.values(env)) as GeneratedParses;
}

/** The generated toMap: one named read per field (and a write call for non-scalars), then the unknown keys. Null when banned. */
export function generateToMap(
  keys: readonly string[],
  payloadAt: number,
  scalar: readonly boolean[],
  kept: Kept,
  env: Record<string, unknown>,
): ToMapFn | null {
  if (!canGenerateCode()) return null;
  const entry = (key: string, i: number): string =>
    scalar[i] ? `${quote(key)}: e[${quote(key)}]` : `${quote(key)}: ${i === payloadAt ? 'writePayload' : 'write'}(e[${quote(key)}], json)`;
  const source = `return function toMap(e, json) {
      const out = { ${keys.map(entry).join(', ')} };
      return writeExtra(e, (kept.output = out));
    };`;
  const wired = { ...env, kept };
  return new Function(...Object.keys(wired), source)(...Object.values(wired)) as ToMapFn;
}
