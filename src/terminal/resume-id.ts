import { CLIS, isCliId, SESSION_CLI_IDS } from '../clis';
import { parseCliSessionKey } from '../history/session-key';
import type { SessionProvider } from '../sessions/types';

/** A CLI's session to continue: its CLI and the CLI's own session id. */
export interface ResumeTarget {
  readonly provider: SessionProvider;
  readonly id: string;
}

/**
 * The session `chat --resume` names: `<cli>:<session id>` (`cliSessionKey`: the id `history` prints
 * and the ACP agent's `session/list` gives a CLI's own session), or a bare session id of the CLI `provider`
 * (`--provider`) names. A TypeError says what is wrong: no CLI named, two CLIs named, a CLI whose
 * sessions cannot be resumed.
 */
export function parseResumeId(text: string, provider: SessionProvider | undefined): ResumeTarget {
  const trimmed = text.trim();
  const named = parseCliSessionKey(trimmed);
  let target: ResumeTarget;
  if (named !== null && isCliId<SessionProvider>(named.provider, SESSION_CLI_IDS)) {
    if (provider !== undefined && provider !== named.provider)
      throw new TypeError(`--resume ${trimmed} is a session of ${named.provider}, not of --provider ${provider}`);
    target = { provider: named.provider, id: named.id };
  } else {
    if (provider === undefined)
      throw new TypeError(`--resume takes <cli>:<session id> (${SESSION_CLI_IDS.join(', ')}), or a bare session id with --provider`);
    target = { provider, id: trimmed };
  }
  if (target.id === '') throw new TypeError('--resume needs a session id');
  if (CLIS[target.provider].session.resume === null) throw new TypeError(`${CLIS[target.provider].name} sessions cannot be resumed`);
  return target;
}
