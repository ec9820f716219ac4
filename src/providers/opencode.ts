import type { ProviderProfile } from './profile';

// PLACEHOLDER until the Opencode profile lands: recognises nothing, so every line decodes as raw.
export const opencodeProfile: ProviderProfile<null> = {
  id: 'opencode',
  detect: () => false,
  newState: () => null,
  sessionId: () => null,
  timestamp: () => null,
  decode: () => [],
};
