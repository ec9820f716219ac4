import { CLIS } from '../clis';
import type { JsonObject } from '../schema/json';
import type { ProviderProfile } from '../providers/profile';
import { PROVIDERS, type ProviderId } from './provider-id';

/** The profile of a known provider id (its registry file's `decode`). */
export function profileFor(id: ProviderId): ProviderProfile {
  return CLIS[id].decode as ProviderProfile;
}

/**
 * Whether `profile` is one of the package's own provider profiles (a registry file's `decode`): pure
 * mappings with a fresh state per decoder (a session protocol's profile wraps one with shared state).
 */
export function isProviderProfile(profile: ProviderProfile): boolean {
  return PROVIDERS.some((id) => profileFor(id) === profile);
}

/** The first provider, in `PROVIDERS` order, whose profile recognises the line; null when none does. */
export function detectProviderId(line: JsonObject): ProviderId | null {
  for (const id of PROVIDERS) {
    try {
      if (profileFor(id).detect(line)) return id;
    } catch {
      // A detector that trips on an odd line simply does not recognise it.
    }
  }
  return null;
}

/** The profile of the first provider that recognises the line; null when none does. */
export function detectProfile(line: JsonObject): ProviderProfile | null {
  const id = detectProviderId(line);
  return id === null ? null : profileFor(id);
}
