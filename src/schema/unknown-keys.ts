import { Expose, Transform } from 'class-transformer';
import { Allow, ValidateBy } from 'class-validator';
import { codecOf } from './codec';
import { ModelClass, ParseContext } from './context';
import { replaceExtra } from './engine';
import { UNKNOWN_KEYS, heldValue } from './extra';
import { Issue } from './issue';

/*
 * The `extra` accessor of models and events, as class-transformer and class-validator see it.
 *
 * `extra` is not a wire key: the unknown keys of the input are. An incoming key named `extra` is
 * an ordinary unknown key, kept where extra.ts decides (it is held, and the instance shows it as
 * an own `extra`), on every path. So:
 *
 * - `plainToInstance` must not hand that key to the setter as the instance's new unknown keys.
 *   Its transform gives the setter the whole source object instead, and a hidden member, visited
 *   after every key of the source, does the same last: the unknown keys are read from the source
 *   exactly as `parse` reads them (every unknown key, `extra` included, each checked as JSON
 *   data, whatever their order in the source) and attached by extra.ts. A refused value becomes
 *   a class-validator error on `extra` (400 under NestJS's ValidationPipe), since a setter
 *   cannot answer with issues.
 * - `instanceToPlain` (ClassSerializerInterceptor) visits `extra` only on an instance that was
 *   given such a key (the accessor is otherwise not an own key, so nothing nests), and writes
 *   the key's value, as `JSON.stringify` does.
 * - class-validator's whitelist allows `extra`, so `whitelist` and `forbidNonWhitelisted` keep an
 *   incoming `extra` key, as parse does, and treat the other unknown keys as they would without it.
 */

/** What class-transformer hands the `extra` setter: the plain object the instance is made from. */
class UnknownKeysOf {
  constructor(readonly source: unknown) {}
}

/**
 * The hidden member through which `plainToInstance` reads the unknown keys last: exposed (so
 * visited after every key of the source) under a name no JSON body uses (a NUL character).
 */
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
 * counts an incoming `extra` key as unknown), the class-transformer wiring above, and a check
 * that the source's unknown keys were JSON data. It also defines the hidden member that reads
 * the unknown keys after every key of the source, on the same prototype.
 */
export function UnknownKeys(): PropertyDecorator {
  const toClass = Transform(({ obj }) => new UnknownKeysOf(obj), { toClassOnly: true });
  const decorators = [
    Allow(),
    toClass,
    // Only an instance given an incoming `extra` key has `extra` as an own key: write that key's value.
    Transform(({ obj, value }) => (typeof obj === 'object' && obj !== null ? (heldValue(obj, UNKNOWN_KEYS) ?? value) : value), {
      toPlainOnly: true,
    }),
    ValidateBy({
      name: 'unknownKeysAreJson',
      validator: {
        validate: (_value, args) => !(args?.object && REFUSED.has(args.object)),
        defaultMessage: (args) => {
          const [issue] = (args?.object && REFUSED.get(args.object)) || [];
          return issue
            ? `unknown key ${JSON.stringify(issue.path.join('.')).slice(0, 60)}: ${issue.message}`
            : 'unknown keys must be JSON data';
        },
      },
    }),
  ];
  return (target, key) => {
    for (const decorate of decorators) decorate(target, key);
    // The member `plainToInstance` visits after every key of the source (exposed names come
    // last), so the unknown keys it reads win over the own keys class-transformer set before.
    // Not `extra` itself: class-transformer would write an exposed name in instanceToPlain too.
    Object.defineProperty(target, AFTER_EVERY_KEY, {
      set(this: object, value: unknown) {
        if (value instanceof UnknownKeysOf) assignExtra(this, value);
      },
      configurable: true,
    });
    Expose({ toClassOnly: true })(target, AFTER_EVERY_KEY);
    toClass(target, AFTER_EVERY_KEY);
  };
}
