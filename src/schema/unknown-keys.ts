import { Expose, Transform } from 'class-transformer';
import { Allow, ValidateBy } from 'class-validator';
import { codecOf } from './codec';
import { ModelClass, ParseContext } from './context';
import { replaceExtra } from './engine';
import { Issue } from './issue';

/*
 * The `extra` accessor of models and events, as class-transformer and class-validator see it.
 *
 * `extra` is not a wire key: the unknown keys of the input are. `parse` keeps an incoming key
 * named `extra` as an ordinary unknown key (see extra.ts), so class-transformer must not hand
 * that key to the setter as the instance's new unknown keys. Instead `plainToInstance` always
 * visits `extra` (exposed) and its transform gives the setter the whole source object, from
 * which the unknown keys are read exactly as `parse` reads them: every unknown key, `extra`
 * included, each checked as JSON data, whatever their order in the source. A refused value
 * becomes a class-validator error on `extra` (400 under NestJS's ValidationPipe), since a
 * setter cannot answer with issues.
 */

/** What class-transformer hands the `extra` setter: the plain object the instance is made from. */
class UnknownKeysOf {
  constructor(readonly source: unknown) {}
}

/** The source key `extra` is exposed under: one no JSON body uses (a NUL character). */
const AFTER_EVERY_KEY = '\u0000unknown keys';

/** Instances whose source had unknown keys that are not JSON data, with those issues. */
const REFUSED = new WeakMap<object, Issue[]>();

/**
 * The `extra` setter: a plain JSON object replaces the unknown keys (a TypeError otherwise); from
 * class-transformer, the unknown keys of the source object are read as `parse` reads them.
 */
export function assignExtra(instance: object, value: unknown): void {
  if (!(value instanceof UnknownKeysOf)) {
    replaceExtra(instance, value);
    REFUSED.delete(instance);
    return;
  }
  const source = value.source;
  if (typeof source !== 'object' || source === null) return;
  const codec = codecOf(instance.constructor as ModelClass);
  const ctx: ParseContext = { issues: [], trusted: false };
  const extra = codec.readExtra(source as Record<string, unknown>, [], ctx);
  if (ctx.issues.length) {
    REFUSED.set(instance, ctx.issues);
    return;
  }
  REFUSED.delete(instance);
  codec.replaceExtra(instance, extra ?? {});
}

/**
 * The decorators of the `extra` accessor: `@Allow()` (class-validator's `whitelist` then never
 * counts it as unknown), the class-transformer wiring above (`plainToInstance` only; in
 * `instanceToPlain` the accessor is not an own key, so nothing nests), and a check that the
 * source's unknown keys were JSON data.
 */
export function UnknownKeys(): PropertyDecorator {
  const decorators = [
    Allow(),
    // Under a name no body has, so it is visited after every key of the source (exposed names come
    // last) and the unknown keys it reads win over the own keys class-transformer set before.
    Expose({ name: AFTER_EVERY_KEY, toClassOnly: true }),
    Transform(({ obj }) => new UnknownKeysOf(obj), { toClassOnly: true }),
    ValidateBy({
      name: 'unknownKeysAreJson',
      validator: {
        validate: (_value, args) => !(args?.object && REFUSED.has(args.object)),
        defaultMessage: (args) => {
          const [issue] = (args?.object && REFUSED.get(args.object)) || [];
          return issue ? `unknown key ${JSON.stringify(issue.path.join('.')).slice(0, 60)}: ${issue.message}` : 'unknown keys must be JSON data';
        },
      },
    }),
  ];
  return (target, key) => {
    for (const decorate of decorators) decorate(target, key);
  };
}
