import { toPlain } from '../schema/engine';
import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  Event,
  Registry,
  type AnyEvent,
  type DefaultPayloadClasses,
  type ParseOptions,
  type ParseResult,
  type PayloadClassMap,
} from '../index';
import { CLI_SUBPROCESS_CORE_OPTIONS, type CliSubprocessCoreOptions } from './options';

/**
 * Parses and serializes events with the registry configured by
 * `CliSubprocessCoreModule.forRoot` (`Registry.default` when none is configured).
 */
@Injectable()
export class EventParser<M extends PayloadClassMap = DefaultPayloadClasses> {
  /** The registry every method parses with. */
  readonly registry: Registry<M>;

  constructor(@Optional() @Inject(CLI_SUBPROCESS_CORE_OPTIONS) options?: CliSubprocessCoreOptions) {
    this.registry = (options?.registry ?? Registry.default) as Registry<M>;
  }

  /** `Event.parse` with the configured registry; throws `SchemaError`. */
  parse(input: unknown, options?: ParseOptions): AnyEvent<M> {
    return Event.parse(input, { ...options, registry: this.registry });
  }

  /** `Event.safeParse` with the configured registry; never throws. */
  safeParse(input: unknown, options?: ParseOptions): ParseResult<AnyEvent<M>> {
    return Event.safeParse(input, { ...options, registry: this.registry });
  }

  /** Parses one JSON line with the configured registry; throws `SchemaError`. */
  fromJSON(text: string, options?: ParseOptions): AnyEvent<M> {
    return Event.fromJSON(text, { ...options, registry: this.registry });
  }

  /** The JSON-ready form of an event (what `JSON.stringify` writes). */
  toJSON(event: AnyEvent<M> | Event): Record<string, unknown> {
    return toPlain(event, true);
  }
}
