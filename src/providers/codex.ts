import type { ProviderProfile } from './profile';

// PLACEHOLDER until the Codex profile lands: recognises nothing, so every line decodes as raw.
export const codexProfile: ProviderProfile<null> = {
  id: 'codex',
  detect: () => false,
  newState: () => null,
  sessionId: () => null,
  timestamp: () => null,
  decode: () => [],
};
