import { canGenerateCode } from './accelerate';

/*
 * Which objects the library built: every instance a parse builds (both paths, `fromJSON` too)
 * and every `new X()`. "An instance passed in is returned as is" holds for these only: a Proxy
 * claiming a model's prototype, or `Object.create(Event.prototype)`, has the prototype but not
 * the mark, and is parsed (and refused) like any other object.
 *
 * The mark is a private class field added to the instance (a constructor that returns another
 * object initializes its subclass's private fields on that object). `#built in value` cannot be
 * forged, copied or answered by a Proxy's traps. Its cost, counted with callgrind on the
 * fromJSON round trip (20,000 events): ~3,000 instructions per event (two instances), about 5%;
 * a WeakSet costs about ten times as much per add (~250 ns against ~25 ns in a loop), and a
 * mark per class (one shape per site) measured no cheaper. The TypeScript target here compiles `#` fields
 * to WeakMaps, so the class is written as source; where code generation is banned the WeakSet
 * stands in, with the same meaning.
 */

interface Mark {
  add(instance: object): void;
  has(value: object): boolean;
}

function privateFieldMark(): Mark | null {
  if (!canGenerateCode()) return null;
  return new Function(`
    class Returns { constructor(target) { return target; } }
    class Built extends Returns { #built; static has(value) { return #built in value; } }
    return { add: (instance) => { new Built(instance); }, has: (value) => Built.has(value) };
  `)() as Mark;
}

function weakSetMark(): Mark {
  const built = new WeakSet<object>();
  return { add: (instance) => void built.add(instance), has: (value) => built.has(value) };
}

const MARK = privateFieldMark() ?? weakSetMark();

/** Marks an instance the library built (its constructor or a parse's builder). */
export const markBuilt: (instance: object) => void = MARK.add;

/** Whether `value` is an object the library built; never runs the caller's code (a Proxy's traps included). */
export function isBuilt(value: unknown): boolean {
  return typeof value === 'object' && value !== null && MARK.has(value);
}
