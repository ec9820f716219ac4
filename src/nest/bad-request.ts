import { BadRequestException } from '@nestjs/common';
import { countedIssues, cut } from '../schema/issue';
import type { Issue, SchemaError } from '../index';

/** The JSON body of a 400 answer to an invalid event or payload. */
export interface SchemaErrorBody {
  statusCode: 400;
  error: 'Bad Request';
  /** A short summary with the full count, e.g. `invalid_event_payload (assistant_delta): 1 issue`. */
  message: string;
  tag: SchemaError['tag'];
  /** The payload kind, for payload errors. */
  kind?: string;
  /** The first BODY_ISSUES problems, each with its path from the root of the request body (bounded: see `boundedPath`). */
  issues: Pick<Issue, 'code' | 'message' | 'path'>[];
  /** How many problems `issues` leaves out; absent when it lists them all. */
  more_issues?: number;
}

/**
 * Bounds of the body, whatever the request: a 95 KB body of 9,000 bad numbers used to get a 594 KB
 * answer listing every issue, and a path echoed its keys whole. Programs that need every issue
 * can parse with the library themselves.
 */
const BODY_ISSUES = 100;
const MESSAGE_CHARS = 200;
const PATH_KEY_CHARS = 40;
/** A longer path keeps its first and last PATH_KEYS / 2 keys, with '…' between. */
const PATH_KEYS = 10;

/** A path of at most PATH_KEYS keys, each string key cut to PATH_KEY_CHARS characters (ending in `…`). */
function boundedPath(path: readonly (string | number)[]): (string | number)[] {
  const half = PATH_KEYS / 2;
  const keys = path.length > PATH_KEYS ? [...path.slice(0, half), '…', ...path.slice(-half)] : path;
  return keys.map((key) => (typeof key === 'string' ? cut(key, PATH_KEY_CHARS) : key));
}

/** Turns a `SchemaError` into a `BadRequestException` whose body lists the issues (at most BODY_ISSUES of them). */
export function toBadRequest(error: SchemaError): BadRequestException {
  // A parse that stopped collecting closes its issues with a count of the rest: that count goes into `more_issues`.
  const { listed: found, total: count } = countedIssues(error.issues);
  const listed = found.slice(0, BODY_ISSUES);
  const body: SchemaErrorBody = {
    statusCode: 400,
    error: 'Bad Request',
    message: `${error.tag}${error.kind ? ` (${error.kind})` : ''}: ${count} ${count === 1 ? 'issue' : 'issues'}`,
    tag: error.tag,
    ...(error.kind ? { kind: error.kind } : {}),
    issues: listed.map(({ code, message, path }) => ({ code, message: cut(message, MESSAGE_CHARS), path: boundedPath(path) })),
    ...(count > listed.length ? { more_issues: count - listed.length } : {}),
  };
  return new BadRequestException(body);
}
