/*
 * Fields and `useDefineForClassFields`. With it (the default for a TypeScript target of ES2022 or
 * later, as in the NestJS 11 starter), a declared field without initializer is defined as
 * `undefined` on the instance after the base constructor has set its default: `new Subclass()`
 * would hold `undefined` and `JSON.stringify` would leave the field out. The compiled class shows
 * it: a bare `key;` in the class body (native class fields) or `defineProperty(this, "key", … void 0)`
 * (TypeScript's, Babel's or SWC's downlevel form). A decorated field of that shape is refused
 * when the class is defined, with the fix in the message.
 */

const escape = (key: string): string => key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** True when the compiled class `ctor` defines `key` as undefined on every instance. */
function definesAsUndefined(ctor: object, key: string): boolean {
  let source: string;
  try {
    source = Function.prototype.toString.call(ctor);
  } catch {
    return false;
  }
  if (!source.startsWith('class') && !source.includes('(this,')) return false;
  const k = escape(key);
  return (
    new RegExp(`^\\s*${k};\\s*$`, 'm').test(source) ||
    new RegExp(`\\(this,\\s*["']${k}["'],\\s*(\\{[^}]*value:\\s*void 0[^}]*\\}|void 0|undefined)\\s*\\)`).test(source)
  );
}

/** Throws a TypeError that says how to fix it when `key` of `ctor` is compiled with define semantics. */
export function assertAssignSemantics(ctor: object, key: string): void {
  if (!definesAsUndefined(ctor, key)) return;
  const name = (ctor as { name?: string }).name || 'a class';
  throw new TypeError(
    `${name}.${key}: compiled with useDefineForClassFields, which resets the field to undefined after the constructor sets its default. ` +
      'Set "useDefineForClassFields": false (with "experimentalDecorators": true) in tsconfig.json, as NestJS projects do.',
  );
}
