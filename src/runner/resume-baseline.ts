import { CLIS, type RunFlags } from '../clis';
import type { UsageFigures } from '../providers/usage';
import type { RunProvider } from './types';

/**
 * A resumed session's usage before the run, from the CLI's own session store (its registry file's
 * `run.resumeBaseline`): a CLI that carries a session's running total over into a resumed process
 * reports totals that include the earlier runs. Best effort: none when the CLI has no reader, or
 * its store is missing or unreadable.
 */
export function resumeBaseline(provider: RunProvider, sessionId: string, env: NodeJS.ProcessEnv): UsageFigures | null {
  const run: RunFlags = CLIS[provider].run;
  try {
    return run.resumeBaseline?.(sessionId, env) ?? null;
  } catch {
    return null;
  }
}
