import type { JsonObject } from '../schema/json';
import { obj } from '../providers/drafts';
import { detectProviderId } from './profiles';
import type { ProviderId } from './provider-id';

/**
 * The provider whose CLI printed `line` (one stdout line, as text or already parsed), or null
 * when no provider recognises it (text that is not a JSON object, an unknown format).
 * Providers are asked in `PROVIDERS` order.
 */
export function detectProvider(line: string | object): ProviderId | null {
  const value = typeof line === 'string' ? parse(line) : line;
  const object = obj(value);
  return object ? detectProviderId(object as JsonObject) : null;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
