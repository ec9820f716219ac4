import { Payload } from '../payloads/payload';
import { ModelClass } from '../schema/context';
import { EventKind, KINDS, isEventKind } from './kinds';
import { DefaultPayloadClasses, PAYLOAD_CLASSES } from './payload-classes';

/** A map from every kind to a payload class. */
export type PayloadClassMap = { readonly [K in EventKind]: ModelClass<Payload> };

/** `M` with kind `K` mapped to class `C`. */
export type WithClass<M extends PayloadClassMap, K extends EventKind, C> = {
  readonly [P in EventKind]: P extends K ? C : M[P];
};

/**
 * Which payload class parses each kind. `Registry.default` holds the fourteen
 * default classes; `with` derives a registry in which one kind is parsed by a
 * subclass of its default class (for provider packages with richer payloads).
 * Registries are immutable.
 */
export class Registry<M extends PayloadClassMap = DefaultPayloadClasses> {
  /** The registry of the fourteen default payload classes. */
  static readonly default: Registry = new Registry(PAYLOAD_CLASSES);

  /** The classes as given, and as a Map for the per-event lookup (no key such as `constructor` can match). */
  private readonly classes: M;
  private readonly byKind: ReadonlyMap<string, M[EventKind]>;

  private constructor(classes: M) {
    this.classes = Object.freeze({ ...classes });
    this.byKind = new Map(KINDS.map((kind) => [kind, classes[kind]]));
    Object.freeze(this);
  }

  /** The kinds, in their stable order. */
  kinds(): readonly EventKind[] {
    return KINDS;
  }

  /** The payload class for `kind`. */
  classFor<K extends EventKind>(kind: K): M[K];
  classFor(kind: string): M[EventKind] | undefined;
  classFor(kind: string): M[EventKind] | undefined {
    return this.byKind.get(kind);
  }

  /**
   * A new registry in which `kind` is parsed by `cls`, which must be the kind's
   * default class or a subclass of it; anything else throws a TypeError.
   */
  with<K extends EventKind, C extends DefaultPayloadClasses[K]>(kind: K, cls: C): Registry<WithClass<M, K, C>> {
    if (!isEventKind(kind)) throw new TypeError(`unknown event kind: ${String(kind)}`);
    const base = PAYLOAD_CLASSES[kind] as unknown as ModelClass;
    if (typeof cls !== 'function' || (cls !== base && !(cls.prototype instanceof base))) {
      throw new TypeError(`payload class for "${kind}" must be ${base.name} or a subclass of it`);
    }
    return new Registry({ ...this.classes, [kind]: cls } as unknown as WithClass<M, K, C>);
  }
}

/** Any registry: `Registry.default` or one derived with `with` (`Registry<M>` does not widen to a common type). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each registry has its own payload class map
export type AnyRegistry = Registry<any>;
