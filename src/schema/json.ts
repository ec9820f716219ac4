import { getInput, isArrayInput, keysOfInput, prototypeOfInput } from './input';
import { Invalid, Issue, IssuePath, NonJsonType } from './issue';
import { hasOwn, setOwn } from './json-value';

export { EMPTY_ARRAY, EMPTY_OBJECT, hasOwn, setOwn, type JsonObject, type JsonPrimitive, type JsonValue } from './json-value';

/** True for `{}`-style objects: not arrays, not class instances. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || isArrayInput(value)) return false;
  const proto = prototypeOfInput(value);
  return proto === Object.prototype || proto === null;
}

function nonJsonType(value: unknown): NonJsonType | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : 'non_finite';
    case 'object':
      return value === null || isArrayInput(value) || isPlainObject(value) ? undefined : 'instance';
    default:
      return typeof value as NonJsonType;
  }
}

/**
 * Deepest nesting of arrays and objects accepted in one JSON value. Deeper data parses (this
 * walk is iterative) but `JSON.stringify` overflows the stack on it (near 4,000 levels on Node 20),
 * so an event holding it could never be written out again: it is rejected instead.
 */
export const MAX_JSON_DEPTH = 1000;

function serializableIssue(path: IssuePath, type: NonJsonType): Issue {
  const why = type === 'too_deep' ? `nested deeper than ${MAX_JSON_DEPTH} levels` : type.replace('_', '-');
  return { code: 'serializable', message: `not JSON-serializable: ${why}`, path, type };
}

interface Frame {
  source: Record<string, unknown> | unknown[];
  copy: Record<string, unknown> | unknown[];
  keys: string[] | null;
  index: number;
  /** This frame's key in its parent; paths are only built when an issue is found. */
  key: string | number;
}

/**
 * Walks a value and returns the first place that is not JSON, or undefined.
 * With `copy` set, also returns a deep copy (so later changes to the input cannot reach a parsed value).
 * Iterative, so 10,000-deep documents do not overflow the stack: they are reported as `too_deep`.
 */
export function walkJson(value: unknown, path: IssuePath, copy: boolean): { issue?: Issue; value?: unknown } {
  const rootType = nonJsonType(value);
  if (rootType) return { issue: serializableIssue(path, rootType) };
  if (typeof value !== 'object' || value === null) return { value };
  const ancestors = new Set<object>();
  const open = (source: Record<string, unknown> | unknown[], key: string | number): Frame => {
    ancestors.add(source);
    const isArray = isArrayInput(source);
    return {
      source,
      copy: copy ? (isArray ? new Array(getInput(source, 'length') as number) : {}) : source,
      keys: isArray ? null : keysOfInput(source),
      index: 0,
      key,
    };
  };
  const root = open(value as Record<string, unknown>, '');
  const stack: Frame[] = [root];
  const pathTo = (key: string | number): IssuePath => [...path, ...stack.slice(1).map((f) => f.key), key];
  while (stack.length) {
    const frame = stack[stack.length - 1];
    const size = frame.keys ? frame.keys.length : (getInput(frame.source, 'length') as number);
    if (frame.index >= size) {
      ancestors.delete(frame.source);
      stack.pop();
      continue;
    }
    const key = frame.keys ? frame.keys[frame.index] : frame.index;
    frame.index++;
    const child = getInput(frame.source, key);
    const type = nonJsonType(child);
    if (type) return { issue: serializableIssue(pathTo(key), type) };
    let childCopy = child;
    if (typeof child === 'object' && child !== null) {
      if (ancestors.has(child)) return { issue: serializableIssue(pathTo(key), 'cycle') };
      if (stack.length >= MAX_JSON_DEPTH) return { issue: serializableIssue(pathTo(key), 'too_deep') };
      const childFrame = open(child as Record<string, unknown>, key);
      stack.push(childFrame);
      childCopy = childFrame.copy;
    }
    if (copy) {
      if (frame.keys) setOwn(frame.copy as Record<string, unknown>, key as string, childCopy);
      else (frame.copy as unknown[])[key as number] = childCopy;
    }
  }
  return { value: root.copy };
}

/**
 * The check for trusted values: straight out of JSON.parse, or made by the library's own code from
 * such values (a decoder's drafts). JSON.parse output is JSON by construction except for two
 * things: numbers too large for a double (`1e400` is Infinity, which JSON.stringify would write as
 * `null`) and nesting deeper than MAX_JSON_DEPTH. Code can also put in what JSON has no word for
 * (`undefined`, a function, a class instance, a cycle, which shows as nesting too deep): refused
 * as `walkJson` refuses them, so a trusted value is accepted exactly when a caller's would be.
 * Recursion is bounded by that depth; nothing is copied. Answers the first issue or undefined.
 */
export function checkParsedJson(value: unknown, path: IssuePath, key?: string | number): Issue | undefined {
  const found = unwritable(value, 0);
  if (!found) return undefined;
  const at = key === undefined ? path : [...path, key];
  return serializableIssue([...at, ...found.keys.reverse()], found.type);
}

/** Where a trusted value cannot be written back as JSON: its type, and the keys to it innermost first. */
interface Unwritable {
  type: NonJsonType;
  keys: (string | number)[];
}

/** A string, boolean, null or finite number: JSON as it is, with nothing inside to check. */
function isJsonScalar(value: unknown): boolean {
  return typeof value === 'string' || value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * Where a trusted value cannot be written back as JSON; allocates only when something is found.
 * A child that is a JSON scalar, the most common value, is passed over without a call.
 */
function unwritable(node: unknown, depth: number): Unwritable | undefined {
  if (typeof node !== 'object')
    return isJsonScalar(node) ? undefined : { type: typeof node === 'number' ? 'non_finite' : (typeof node as NonJsonType), keys: [] };
  if (node === null) return undefined;
  if (depth >= MAX_JSON_DEPTH) return { type: 'too_deep', keys: [] };
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (isJsonScalar(child)) continue;
      const found = unwritable(child, depth + 1);
      if (found) return (found.keys.push(i), found);
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(node) as unknown;
  if (proto !== Object.prototype && proto !== null) return { type: 'instance', keys: [] };
  for (const k in node) {
    const child: unknown = (node as Record<string, unknown>)[k];
    if (isJsonScalar(child)) continue;
    const found = unwritable(child, depth + 1);
    // for-in also lists keys a polluted Object.prototype makes enumerable: only own values count.
    if (found && hasOwn(node, k)) return (found.keys.push(k), found);
  }
  return undefined;
}

/**
 * Checks that a value is plain JSON data (`null`, booleans, finite numbers, strings,
 * arrays and plain objects of those) and returns the issues found: at most one, with its path.
 * Rejects functions, symbols, bigint, `undefined`, NaN/Infinity, cycles, class instances
 * and nesting deeper than `MAX_JSON_DEPTH`.
 */
export function validateSerializable(value: unknown, path: IssuePath = []): Issue[] {
  const { issue } = walkJson(value, path, false);
  return issue ? [issue] : [];
}

/**
 * A field's JSON data, read once: untrusted input is checked and deep-copied (a later change
 * to the caller's object cannot reach the parsed value); trusted input (straight out of
 * JSON.parse, or the library's own drafts of it) is only checked (`checkParsedJson`), not copied.
 * Invalid when it is not JSON.
 */
export function readJsonData(value: unknown, trusted: boolean): unknown {
  let issue: Issue | undefined;
  if (trusted) {
    if (isJsonScalar(value)) return value;
    issue = checkParsedJson(value, []);
    if (!issue) return value;
  } else {
    const walked = walkJson(value, [], true);
    if (!walked.issue) return walked.value;
    issue = walked.issue;
  }
  return new Invalid(issue.code, issue.message, issue.path, issue.type);
}
