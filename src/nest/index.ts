/**
 * NestJS integration: `cli-subprocess-core/nest`. Needs `@nestjs/common` (an optional
 * peer dependency of the package; the root entry never loads it).
 *
 * @packageDocumentation
 */
export { toBadRequest, type SchemaErrorBody } from './bad-request';
export { EventBody, PayloadBody } from './body-decorators';
export { CliRunner } from './cli-runner.service';
export { CliSubprocessCoreModule } from './cli-subprocess-core.module';
export { EventParser } from './event-parser.service';
export { CLI_SUBPROCESS_CORE_OPTIONS, type AnyRegistry, type CliSubprocessCoreOptions } from './options';
export { ParseEventPipe, type ParseEventPipeOptions } from './parse-event.pipe';
export { ParsePayloadPipe, type ParsableClass } from './parse-payload.pipe';
export { SchemaErrorFilter } from './schema-error.filter';
export { pipeUIMessageStreamToResponse } from '../projections/ui-message-stream/node-response';
export { runEvents$ } from './run-events';
export { AccessGuard, HttpErrorFilter, Principal, RUNS_ACCESS } from './access.guard';
