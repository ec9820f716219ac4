import type { PipeTransform } from '@nestjs/common';
import type { Model, ParseOptions, ParseResult } from '../index';
import { toBadRequest } from './bad-request';

/** A class with the library's `safeParse`: a payload class, or a tool data class (its instances are `T`). */
export type ParsableClass<T extends Model> = (new () => T) & {
  safeParse(input: unknown, options?: ParseOptions): ParseResult<Model>;
};

/**
 * Parses a request body into an instance of one payload class (unknown keys kept in
 * `extra`); invalid input answers 400 with the issues:
 * `@Body(new ParsePayloadPipe(ToolUsePayload)) payload: ToolUsePayload`. Used as an instance
 * (it takes the class), so it is not an injectable.
 */
export class ParsePayloadPipe<T extends Model> implements PipeTransform<unknown, T> {
  constructor(
    private readonly payloadClass: ParsableClass<T>,
    private readonly options: ParseOptions = {},
  ) {}

  transform(value: unknown): T {
    const result = this.payloadClass.safeParse(value, this.options);
    if (!result.success) throw toBadRequest(result.error);
    return result.data as T; // safeParse of a class answers instances of that class
  }
}
