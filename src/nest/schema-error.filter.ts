import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { SchemaError } from '../index';
import { toBadRequest } from './bad-request';

/** The parts of an Express or Fastify response the filter uses. */
interface HttpResponse {
  status?(code: number): { json(body: unknown): unknown };
  code?(code: number): { send(body: unknown): unknown };
}

/**
 * Answers a `SchemaError` thrown anywhere in an HTTP route (for example `EventParser.fromJSON` on a
 * bad line) with 400 and the body the pipes use (`SchemaErrorBody`), instead of Nest's 500.
 * `CliSubprocessCoreModule.forRoot()` installs it globally unless `schemaErrorFilter: false`.
 * Other contexts (microservices, websockets) get the error as it was thrown.
 */
@Catch(SchemaError)
export class SchemaErrorFilter implements ExceptionFilter<SchemaError> {
  catch(error: SchemaError, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const exception = toBadRequest(error);
    const response = host.switchToHttp().getResponse<HttpResponse>();
    // Express has status().json(), Fastify code().send(); the filter needs neither platform's types.
    if (response.status) response.status(exception.getStatus()).json(exception.getResponse());
    else if (response.code) response.code(exception.getStatus()).send(exception.getResponse());
    else throw exception;
  }
}
