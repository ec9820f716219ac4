import {
  Catch,
  createParamDecorator,
  HttpException,
  Inject,
  Injectable,
  type ArgumentsHost,
  type CanActivate,
  type ExceptionFilter,
  type ExecutionContext,
} from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessCheck, type AccessOptions } from '../http/access';
import { HttpError } from '../http/http-error';

/** Injection token of the `AccessOptions` that `AccessGuard` checks requests with. */
export const RUNS_ACCESS = Symbol('RUNS_ACCESS');

/** A request that passed `AccessGuard`: its principal's name. */
type GuardedRequest = IncomingMessage & { principal?: string };

/**
 * The runs API's rules for a Nest app's own routes, from the same code as `createRunsHandler`:
 * a `Host` of this server's and no foreign `Origin` (403), a POST sent as `application/json` (415),
 * and a principal (`Authorization: Bearer <token>` by default, or `authenticate`: 401 with
 * `WWW-Authenticate: Bearer`). The principal is read with `@Principal()`.
 *
 * ```ts
 * providers: [{ provide: RUNS_ACCESS, useValue: { token: process.env.RUNS_TOKEN } }, { provide: APP_GUARD, useClass: AccessGuard }]
 * ```
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly check: (request: IncomingMessage) => Promise<string>;

  constructor(@Inject(RUNS_ACCESS) options: AccessOptions) {
    this.check = accessCheck(options);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    try {
      request.principal = await this.check(request);
      return true;
    } catch (error) {
      throw toHttpException(error, context.switchToHttp().getResponse<ServerResponse>());
    }
  }
}

/** The principal `AccessGuard` found for the request. */
export const Principal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined => context.switchToHttp().getRequest<GuardedRequest>().principal,
);

/** An `HttpError` (the runs API's refusals: 400, 403, 404, 413, 429…) as Nest's exception, its headers set on `response`. */
function toHttpException(error: unknown, response: ServerResponse): unknown {
  if (!(error instanceof HttpError)) return error;
  setHeaders(response, error);
  return new HttpException({ statusCode: error.status, error: error.message }, error.status);
}

/**
 * Answers an `HttpError` thrown by a route (`queueRequestedRun`'s refusals) with its status, headers
 * and message, as the runs API does: `@UseFilters(HttpErrorFilter)` or `APP_FILTER`.
 */
@Catch(HttpError)
export class HttpErrorFilter implements ExceptionFilter<HttpError> {
  catch(error: HttpError, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const response = host.switchToHttp().getResponse<ServerResponse>();
    setHeaders(response, error);
    response.writeHead(error.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ statusCode: error.status, error: error.message }));
  }
}

/** The headers an `HttpError` answers with (`WWW-Authenticate`, `Retry-After`). */
function setHeaders(response: ServerResponse, error: HttpError): void {
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
}
