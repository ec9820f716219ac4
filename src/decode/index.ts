/*
 * The provider decoders' public API: what the package root exports from src/providers.
 * Profiles and the shared draft helpers stay internal.
 */
export { createDecoder, type Decoder, type DecoderOptions, type ExitInfo } from './decoder';
export { decodeLines } from './decode-lines';
export { detectProvider } from './detect';
export type { LineSource } from '../providers/lines';
export type { EventDraft, ProviderProfile } from '../providers/profile';
export { PROVIDERS, type ProviderId } from './provider-id';
export { ERROR_CODES, type ErrorCode } from '../providers/error-codes';
export { readUsage, UsageTotals, type UsageAggregation, type UsageFigures, type UsageState } from '../providers/usage';
