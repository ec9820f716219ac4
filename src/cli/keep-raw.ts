import type { DecoderOptions } from '../decode/decoder';
import { UsageError } from './usage-error';

/** Which events carry the native line in `raw` (the decoder's option, for decode and run). */
export type KeepRaw = NonNullable<DecoderOptions['keepRaw']>;

const KEEP_RAW: readonly KeepRaw[] = ['all', 'unmapped', 'none'];

/** The `--keep-raw` value (default `all`); anything else is a usage error. */
export function keepRawOption(value: string | undefined): KeepRaw {
  if (value === undefined) return 'all';
  if (!(KEEP_RAW as readonly string[]).includes(value))
    throw new UsageError(`--keep-raw must be one of ${KEEP_RAW.join(', ')}; got ${JSON.stringify(value)}`);
  return value as KeepRaw;
}
