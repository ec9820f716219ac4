import { CLIS } from '../clis';
import type { SessionProvider } from '../sessions/types';

/** The CLIs offered, one numbered line each (`current`, when given, marked). */
export function cliOffer(installed: readonly SessionProvider[], current?: SessionProvider): string[] {
  return installed.map((id, i) => `  ${String(i + 1).padStart(2)}  ${CLIS[id].name} (${id})${id === current ? ' · current' : ''}`);
}

/**
 * The CLI an answer picks among `installed` (as `cliOffer` numbers them): its number, its id or its
 * name (any case); an empty answer picks `fallback` when given. Null: none of them.
 */
export function parseCliChoice(answer: string, installed: readonly SessionProvider[], fallback?: SessionProvider): SessionProvider | null {
  const text = answer.trim().toLowerCase();
  if (text === '') return fallback ?? null;
  if (/^\d+$/.test(text)) return installed[Number(text) - 1] ?? null;
  return installed.find((id) => id === text || CLIS[id].name.toLowerCase() === text) ?? null;
}
