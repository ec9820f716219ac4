import { HISTORY_CLI_IDS, isCliId, type HistoryCli } from '../clis';

/*
 * How a CLI's own stored session is named across CLIs: `<cli>:<the CLI's session id>`
 * (`claude:3f2a…`). The prefix names the CLI the session belongs to and needs no lookup; a CLI's
 * ids have no use for the prefix's `:` before them. The ACP agent's `session/list`, `history` and
 * `chat --resume` take the same form.
 */

/** The cross-CLI name of a CLI's stored session. */
export function cliSessionKey(provider: HistoryCli, id: string): string {
  return `${provider}:${id}`;
}

/** The CLI and its session id of a cross-CLI name; null when the text is not one (no known CLI before a `:`). */
export function parseCliSessionKey(key: string): { provider: HistoryCli; id: string } | null {
  const colon = key.indexOf(':');
  if (colon <= 0 || colon === key.length - 1) return null;
  const provider = key.slice(0, colon);
  return isCliId<HistoryCli>(provider, HISTORY_CLI_IDS) ? { provider, id: key.slice(colon + 1) } : null;
}
