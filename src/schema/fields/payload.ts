import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { INVALID, ModelClass, ParseContext, Parsed, addIssue } from '../context';
import { FieldRule } from '../field';
import { isArrayInput, isInstanceInput, prototypeOfInput } from '../input';
import { IssuePath } from '../issue';
import { defineField } from './define';

/** Parses a nested payload, given the class the registry picked. */
export type NestedParse = (cls: ModelClass, input: unknown, path: IssuePath, ctx: ParseContext) => Parsed<object>;

/**
 * An event's payload, whose class depends on the sibling `kind` (and the registry in force),
 * so the parser reads it with `readPayload` instead of `read`.
 */
export const payloadRule: FieldRule = {
  type: 'payload',
  read: (value) => value,
  schema: () => ({ description: "The kind's payload; default: the kind's default payload", type: ['object', 'null'] }),
  validators: () => [],
};

/**
 * An event's payload: missing or null builds the kind's default payload; an instance of the
 * kind's class passes through; an instance of any other class is refused; a plain object is parsed.
 */
export function readPayload(raw: unknown, at: IssuePath, ctx: ParseContext, kind: unknown, parse: NestedParse): unknown {
  if (typeof kind !== 'string') return INVALID; // the kind's own issue is already recorded
  const cls = ctx.payloadClass?.(kind);
  if (!cls) return INVALID;
  ctx.kind = kind;
  if (raw === undefined || raw === null) return parse(cls, {}, at, ctx);
  if (ctx.trusted) return parse(cls, raw, at, ctx); // JSON.parse output holds no instances
  if (isInstanceInput(raw, cls)) return raw;
  if (typeof raw === 'object' && !isArrayInput(raw)) {
    const proto = prototypeOfInput(raw);
    if (proto !== Object.prototype && proto !== null) {
      addIssue(ctx, {
        code: 'invalid_payload_class',
        message: `expected a ${cls.name} for kind "${kind}", got ${classNameOf(proto)}${proto === cls.prototype ? ' not built by the library' : ''}`,
        path: [...at],
      });
      return INVALID;
    }
  }
  return parse(cls, raw, at, ctx);
}

/** The class name a prototype names, for messages: 'object' when it names none (or a getter throws). */
function classNameOf(proto: object): string {
  try {
    const got = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof got === 'string' && got ? got.slice(0, 40) : 'object';
  } catch {
    return 'object';
  }
}

/**
 * The event's payload, whose class depends on the sibling `kind`. `resolve` names the
 * class for class-transformer (NestJS pipes); the library's own parse uses the registry in force.
 */
export const PayloadField = (resolve: (kind: unknown) => (new () => object) | undefined): PropertyDecorator => {
  const nested = [ValidateNested(), Type((help) => resolve((help?.object as { kind?: unknown } | undefined)?.kind) ?? Object)];
  return defineField({ ...payloadRule, validators: () => nested });
};
