/** The provider CLIs the decoders understand, in the order `detectProvider` asks them. */
export const PROVIDERS = ['claude', 'codex', 'gemini', 'cursor', 'opencode', 'amp', 'qwen'] as const;

/** One of `PROVIDERS`. */
export type ProviderId = (typeof PROVIDERS)[number];

/** True when `value` names a provider in `PROVIDERS`. */
export function isProviderId(value: unknown): value is ProviderId {
  return (PROVIDERS as readonly unknown[]).includes(value);
}

/** Checks a provider id from a caller; an unknown one is a TypeError that lists the known ids. */
export function assertProviderId(value: unknown, allowAuto = false): ProviderId | 'auto' {
  if (isProviderId(value) || (allowAuto && value === 'auto')) return value;
  const known = allowAuto ? [...PROVIDERS, 'auto'] : PROVIDERS;
  throw new TypeError(`unknown provider ${JSON.stringify(String(value))}: expected one of ${known.join(', ')}`);
}
