import { hasOwn, setOwn } from './json-value';

/** Where a problem sits, from the root of what was parsed: keys and array indices. */
export type IssuePath = (string | number)[];

/** The closed set of problem codes; switch on these, not on messages. */
export type IssueCode =
  | 'required'
  | 'invalid_type'
  | 'too_small'
  | 'too_big'
  | 'invalid_enum'
  | 'invalid_date'
  | 'invalid_payload_class'
  | 'serializable'
  | 'json'
  | 'unreadable'
  | 'too_many_issues';

/** Why a value is not JSON: the `type` of a `serializable` issue. */
export type NonJsonType = 'function' | 'symbol' | 'bigint' | 'undefined' | 'non_finite' | 'cycle' | 'instance' | 'too_deep';

/** One problem found in an input. */
export interface Issue {
  code: IssueCode;
  message: string;
  path: IssuePath;
  /** Set on `serializable` issues: what kind of non-JSON value was found. */
  type?: NonJsonType;
}

/** Which boundary rejected the input. */
export type SchemaErrorTag = 'invalid_event' | 'invalid_event_payload' | 'invalid_payload' | 'invalid_tool';

/** Nested view of the issues: `{ payload: { index: ['too small: must be at least 0'] } }`. */
export interface ErrorTree {
  [key: string]: ErrorTree | string[];
}

/** `text` cut to `max` characters, with `…` when cut (never between the halves of a surrogate pair). */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = text.charCodeAt(max - 1) >= 0xd800 && text.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/** The issue that closes a parse's issues when it kept only some: the count of the rest, first in its message. */
export function tooManyIssues(dropped: number): Issue {
  return { code: 'too_many_issues', message: `${dropped} more issues not listed`, path: [] };
}

/**
 * The issues a parse listed, and how many it found: a parse keeps at most 100 and closes them with
 * one `too_many_issues` issue (`tooManyIssues`) whose message starts with the count of the rest;
 * that issue is a count, not a problem of its own.
 */
export function countedIssues(issues: readonly Issue[]): { listed: readonly Issue[]; total: number } {
  const last = issues[issues.length - 1];
  if (last?.code !== 'too_many_issues') return { listed: issues, total: issues.length };
  const dropped = Number(/^\d+/.exec(last.message)?.[0]);
  // Should the message ever lose its count, the closing issue stays listed, as the library wrote it.
  return Number.isSafeInteger(dropped)
    ? { listed: issues.slice(0, -1), total: issues.length - 1 + dropped }
    : { listed: issues, total: issues.length };
}

/** Messages are built from at most this many characters of an offending value. */
const PREVIEW_LIMIT = 40;

/** A short, bounded rendering of a value for messages; never echoes a large value whole. */
export function preview(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value.length > PREVIEW_LIMIT ? value.slice(0, PREVIEW_LIMIT) : value);
  // A function's or symbol's String() runs or refuses caller code: named by type instead.
  else if (typeof value === 'function' || typeof value === 'symbol') text = typeof value;
  else if (value === null || typeof value !== 'object') text = String(value);
  else text = isArraySafe(value) ? 'array' : 'object';
  return text.length > PREVIEW_LIMIT + 2 ? `${text.slice(0, PREVIEW_LIMIT)}…` : text;
}

/** The JSON-ish type name of a value, for "expected X, got Y" messages. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (isArraySafe(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

/** `Array.isArray`, false for a revoked Proxy (which throws): a message about bad input must not throw. */
function isArraySafe(value: unknown): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

function buildTree(issues: readonly Issue[]): ErrorTree {
  const tree: ErrorTree = {};
  for (const issue of issues) {
    const keys = issue.path.map(String);
    let node = tree;
    for (const key of keys.slice(0, -1)) node = childTree(node, key);
    addMessage(node, keys.length ? keys[keys.length - 1] : '_errors', issue.message);
  }
  return tree;
}

/** A key holding both its own messages and children keeps its messages under `_errors`. */
function childTree(node: ErrorTree, key: string): ErrorTree {
  const existing = own(node, key);
  if (existing && !Array.isArray(existing)) return existing;
  const child: ErrorTree = {};
  if (existing) child._errors = existing;
  setOwn(node, key, child);
  return child;
}

function addMessage(node: ErrorTree, key: string, message: string): void {
  const existing = own(node, key);
  if (existing === undefined) setOwn(node, key, [message]);
  else if (Array.isArray(existing)) existing.push(message);
  else ((existing._errors as string[] | undefined) ??= []).push(message);
}

/**
 * The one error type for events, payloads and tools: a tag, the payload kind
 * where there is one, flat `issues` and the same issues as a nested `errors` tree.
 * A parse keeps at most 100 issues (a last `too_many_issues` one counts the rest); the
 * message names at most 10 and the tree is built on first access, so each issue is held once.
 */
export class SchemaError extends Error {
  override readonly name = 'SchemaError';

  constructor(
    readonly tag: SchemaErrorTag,
    readonly issues: Issue[],
    readonly kind?: string,
  ) {
    // A parse that dropped issues closes them with one `too_many_issues` issue: always shown.
    const closing = issues.length > 0 && issues[issues.length - 1].code === 'too_many_issues' ? issues[issues.length - 1] : undefined;
    const counted = closing ? issues.length - 1 : issues.length;
    const listed = issues.slice(0, Math.min(counted, MESSAGE_ISSUES)).map(formatIssue);
    if (counted > MESSAGE_ISSUES) listed.push(`… ${counted - MESSAGE_ISSUES} more`);
    if (closing) listed.push(closing.message);
    super(`${tag}${kind ? ` (${kind})` : ''}: ${listed.join('; ')}`);
  }

  /** The issues nested by path; built on first access and then kept as an own property (unless the error was frozen). */
  get errors(): ErrorTree {
    const tree = buildTree(this.issues);
    if (Object.isExtensible(this)) Object.defineProperty(this, 'errors', { value: tree, enumerable: true });
    return tree;
  }
}

/** A node's own entry: a path key such as "__proto__" is data, never the prototype. */
function own(node: ErrorTree, key: string): ErrorTree | string[] | undefined {
  return hasOwn(node, key) ? node[key] : undefined;
}

/**
 * The message names at most this many issues, and of each path at most this many keys, each cut
 * to PREVIEW_LIMIT characters: its length is bounded whatever the input. `issues` and `errors`
 * keep every issue and the exact, full paths.
 */
const MESSAGE_ISSUES = 10;
const MESSAGE_PATH_KEYS = 8;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * An issue path as bounded text, `payload.args[1]` or `payload["a b"]` ('' for the root): at most
 * MESSAGE_PATH_KEYS keys (the middle ones elided) and each key cut to PREVIEW_LIMIT characters.
 * The one rendering of a path, for error messages and the CLI's reports alike.
 */
export function formatPath(path: IssuePath): string {
  const half = MESSAGE_PATH_KEYS / 2;
  const keys = path.length > MESSAGE_PATH_KEYS ? [...path.slice(0, half), null, ...path.slice(-half)] : path;
  let text = '';
  for (const key of keys) {
    if (key === null) text += '…';
    else if (typeof key === 'number') text += `[${key}]`;
    else {
      const shown = cut(key, PREVIEW_LIMIT);
      text += IDENTIFIER.test(key) ? (text ? `.${shown}` : shown) : `[${JSON.stringify(shown)}]`;
    }
  }
  return text;
}

function formatIssue(issue: Issue): string {
  return issue.path.length ? `${formatPath(issue.path)}: ${issue.message}` : issue.message;
}

/**
 * A value a field rule refused: the issue it gets, without its position. `at` is the path
 * inside the value (a string list's bad item). Rules answer with this instead of throwing,
 * and only on failure, so a valid parse allocates none.
 */
export class Invalid {
  constructor(
    readonly code: IssueCode,
    readonly message: string,
    readonly at: IssuePath = [],
    readonly type?: NonJsonType,
  ) {}

  /** The issue at `path`, on a path array of its own (issues never share one). */
  issueAt(path: readonly (string | number)[]): Issue {
    const issue: Issue = { code: this.code, message: this.message, path: [...path, ...this.at] };
    if (this.type) issue.type = this.type;
    return issue;
  }
}

/** `safeParse` answers with this instead of throwing. */
export type ParseResult<T> = { success: true; data: T } | { success: false; error: SchemaError };
