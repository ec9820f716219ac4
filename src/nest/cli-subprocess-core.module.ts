import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { CliRunner } from './cli-runner.service';
import { EventParser } from './event-parser.service';
import { CLI_SUBPROCESS_CORE_OPTIONS, type CliSubprocessCoreOptions } from './options';
import { ParseEventPipe } from './parse-event.pipe';
import { SchemaErrorFilter } from './schema-error.filter';

/** `APP_FILTER` of `@nestjs/core`, by value: this entry point needs only `@nestjs/common`. */
const APP_FILTER = 'APP_FILTER';

/**
 * Provides `EventParser` (and the options `ParseEventPipe` reads) with one registry, and
 * `CliRunner`, which runs agent CLIs: `imports: [CliSubprocessCoreModule.forRoot({ registry, isGlobal: true })]`.
 */
@Module({})
export class CliSubprocessCoreModule {
  /**
   * The module configured with `options.registry` (default `Registry.default`); it also installs
   * `SchemaErrorFilter` app-wide unless `schemaErrorFilter: false`.
   */
  static forRoot(options: CliSubprocessCoreOptions = {}): DynamicModule {
    return {
      module: CliSubprocessCoreModule,
      global: options.isGlobal ?? false,
      providers: [
        { provide: CLI_SUBPROCESS_CORE_OPTIONS, useValue: options },
        EventParser,
        ParseEventPipe,
        CliRunner,
        ...(options.schemaErrorFilter === false ? [] : [{ provide: APP_FILTER, useClass: SchemaErrorFilter } satisfies Provider]),
      ],
      exports: [CLI_SUBPROCESS_CORE_OPTIONS, EventParser, ParseEventPipe, CliRunner],
    };
  }
}
