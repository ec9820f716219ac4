import type { ProviderProfile } from './profile';

// PLACEHOLDER until the Amp profile lands: recognises nothing, so every line decodes as raw.
export const ampProfile: ProviderProfile<null> = {
  id: 'amp',
  detect: () => false,
  newState: () => null,
  sessionId: () => null,
  timestamp: () => null,
  decode: () => [],
};
