import { Module, type DynamicModule } from '@nestjs/common';
import { CliRunner } from './cli-runner.service';
import { EventParser } from './event-parser.service';
import { CLI_SUBPROCESS_CORE_OPTIONS, type CliSubprocessCoreOptions } from './options';
import { ParseEventPipe } from './parse-event.pipe';

/**
 * Provides `EventParser` (and the options `ParseEventPipe` reads) with one registry, and
 * `CliRunner`, which runs agent CLIs: `imports: [CliSubprocessCoreModule.forRoot({ registry, isGlobal: true })]`.
 */
@Module({})
export class CliSubprocessCoreModule {
  /** The module configured with `options.registry` (default `Registry.default`). */
  static forRoot(options: CliSubprocessCoreOptions = {}): DynamicModule {
    return {
      module: CliSubprocessCoreModule,
      global: options.isGlobal ?? false,
      providers: [{ provide: CLI_SUBPROCESS_CORE_OPTIONS, useValue: options }, EventParser, ParseEventPipe, CliRunner],
      exports: [CLI_SUBPROCESS_CORE_OPTIONS, EventParser, ParseEventPipe, CliRunner],
    };
  }
}
