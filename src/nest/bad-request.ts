import { BadRequestException } from '@nestjs/common';
import type { Issue, SchemaError } from '../index';

/** The JSON body of a 400 answer to an invalid event or payload. */
export interface SchemaErrorBody {
  statusCode: 400;
  error: 'Bad Request';
  /** A short summary, e.g. `invalid_event_payload (assistant_delta): 1 issue`. */
  message: string;
  tag: SchemaError['tag'];
  /** The payload kind, for payload errors. */
  kind?: string;
  /** Every problem, with its path from the root of the request body. */
  issues: Pick<Issue, 'code' | 'message' | 'path'>[];
}

/** Turns a `SchemaError` into a `BadRequestException` whose body lists the issues. */
export function toBadRequest(error: SchemaError): BadRequestException {
  const count = error.issues.length;
  const body: SchemaErrorBody = {
    statusCode: 400,
    error: 'Bad Request',
    message: `${error.tag}${error.kind ? ` (${error.kind})` : ''}: ${count} ${count === 1 ? 'issue' : 'issues'}`,
    tag: error.tag,
    ...(error.kind ? { kind: error.kind } : {}),
    issues: error.issues.map(({ code, message, path }) => ({ code, message, path })),
  };
  return new BadRequestException(body);
}
