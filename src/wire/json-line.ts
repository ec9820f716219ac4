import type { JsonValue } from '../schema/json';

/**
 * One line of a JSON-lines stream, parsed (once: the peer and the decoder share the value); undefined
 * when it is not JSON. Never throws.
 */
export function parseLine(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
