import type { ProviderProfile } from './profile';

// PLACEHOLDER until the Cursor profile lands: recognises nothing, so every line decodes as raw.
export const cursorProfile: ProviderProfile<null> = {
  id: 'cursor',
  detect: () => false,
  newState: () => null,
  sessionId: () => null,
  timestamp: () => null,
  decode: () => [],
};
