import type { ProviderProfile } from './profile';

// PLACEHOLDER until the Claude profile lands: recognises nothing, so every line decodes as raw.
export const claudeProfile: ProviderProfile<null> = {
  id: 'claude',
  detect: () => false,
  newState: () => null,
  sessionId: () => null,
  timestamp: () => null,
  decode: () => [],
};
