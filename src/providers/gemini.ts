import type { ProviderProfile } from './profile';

// PLACEHOLDER until the Gemini profile lands: recognises nothing, so every line decodes as raw.
export const geminiProfile: ProviderProfile<null> = {
  id: 'gemini',
  detect: () => false,
  newState: () => null,
  sessionId: () => null,
  timestamp: () => null,
  decode: () => [],
};
