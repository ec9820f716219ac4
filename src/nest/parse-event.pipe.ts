import { Inject, Injectable, Optional, type PipeTransform } from '@nestjs/common';
import { Event, Registry, type AnyEvent, type ParseOptions } from '../index';
import { toBadRequest } from './bad-request';
import { CLI_SUBPROCESS_CORE_OPTIONS, type AnyRegistry, type CliSubprocessCoreOptions } from './options';

/** Options of a standalone `new ParseEventPipe(options)`. */
export interface ParseEventPipeOptions extends ParseOptions {
  /** Which payload class parses each kind; `Registry.default` unless given. */
  registry?: AnyRegistry;
}

/**
 * Parses a request body into an `Event` (unknown keys kept in `extra`); invalid input
 * answers 400 with the issues. Use `@Body(ParseEventPipe)` to pick up the registry of
 * `CliSubprocessCoreModule.forRoot`, or `@Body(new ParseEventPipe({ registry }))` standalone.
 */
@Injectable()
export class ParseEventPipe implements PipeTransform<unknown, AnyEvent> {
  private readonly options: ParseEventPipeOptions;

  constructor(@Optional() @Inject(CLI_SUBPROCESS_CORE_OPTIONS) options?: ParseEventPipeOptions | CliSubprocessCoreOptions) {
    const { registry, mode } = (options ?? {}) as ParseEventPipeOptions;
    this.options = { registry: registry ?? Registry.default, mode };
  }

  transform(value: unknown): AnyEvent {
    const result = Event.safeParse(value, this.options);
    if (!result.success) throw toBadRequest(result.error);
    return result.data as AnyEvent;
  }
}
