import { ampProfile } from './amp';
import { claudeProfile } from './claude';
import { codexProfile } from './codex';
import { cursorProfile } from './cursor';
import { geminiProfile } from './gemini';
import { opencodeProfile } from './opencode';
import { qwenProfile } from './qwen';
import type { ProviderProfile } from './profile';
import { PROVIDERS, type ProviderId } from './provider-id';
import type { JsonObject } from '../schema/json';

/** The profile of each provider; `satisfies` makes a missing provider a compile error. */
const PROFILES = {
  claude: claudeProfile,
  codex: codexProfile,
  gemini: geminiProfile,
  cursor: cursorProfile,
  opencode: opencodeProfile,
  amp: ampProfile,
  qwen: qwenProfile,
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each profile has its own state type
} satisfies Record<ProviderId, ProviderProfile<any>>;

/** The profile of a known provider id. */
export function profileFor(id: ProviderId): ProviderProfile {
  return PROFILES[id] as ProviderProfile;
}

/**
 * Whether `profile` is one of the package's own provider profiles: pure mappings with a fresh state
 * per decoder (a session protocol's profile wraps one with shared state and writes to the CLI).
 */
export function isProviderProfile(profile: ProviderProfile): boolean {
  return (Object.values(PROFILES) as ProviderProfile[]).includes(profile);
}

/** The first profile, in `PROVIDERS` order, that recognises the line; null when none does. */
export function detectProfile(line: JsonObject): ProviderProfile | null {
  for (const id of PROVIDERS) {
    const profile = profileFor(id);
    try {
      if (profile.detect(line)) return profile;
    } catch {
      // A detector that trips on an odd line simply does not recognise it.
    }
  }
  return null;
}
