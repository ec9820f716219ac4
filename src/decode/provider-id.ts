import { DECODE_CLI_IDS, isCliId, type DecodeCli } from '../clis';

/** The provider CLIs the decoders understand, in the order `detectProvider` asks them: the registry's (`src/clis`). */
export const PROVIDERS = DECODE_CLI_IDS;

/** One of `PROVIDERS`. */
export type ProviderId = DecodeCli;

/** True when `value` names a provider in `PROVIDERS`. */
export function isProviderId(value: unknown): value is ProviderId {
  return isCliId(value, PROVIDERS);
}

/** Checks a provider id from a caller; an unknown one is a TypeError that lists the known ids. */
export function assertProviderId(value: unknown, allowAuto = false): ProviderId | 'auto' {
  if (isProviderId(value) || (allowAuto && value === 'auto')) return value;
  const known = allowAuto ? [...PROVIDERS, 'auto'] : PROVIDERS;
  throw new TypeError(`unknown provider ${JSON.stringify(String(value))}: expected one of ${known.join(', ')}`);
}
