import { KINDS, type SchemaError } from '../index';

const KNOWN_KINDS: ReadonlySet<string> = new Set(KINDS);

/**
 * The kind an invalid line names, whenever it can be read: the error's own kind (payload errors),
 * else the line's `kind` field when it is a known kind. An envelope error (a bad `sequence`, say)
 * carries no kind, yet its line's kind is plain to read: counting it under `(no kind)` misled.
 * Only invalid lines that are JSON get here a second parse.
 */
export function readableKind(line: string, error: SchemaError): string | undefined {
  if (error.kind !== undefined) return error.kind;
  if (error.issues.some((issue) => issue.code === 'json')) return undefined;
  let kind: unknown;
  try {
    kind = (JSON.parse(line) as { kind?: unknown } | null)?.kind;
  } catch {
    return undefined;
  }
  return typeof kind === 'string' && KNOWN_KINDS.has(kind) ? kind : undefined;
}
