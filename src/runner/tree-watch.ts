import { processSource } from './process-table';
import type { ProcessTree } from './process-tree';

/** How often watched trees are refreshed. */
const WATCH_MS = 250;
const watched = new Set<ProcessTree>();
let watchTimer: NodeJS.Timeout | null = null;
let scanning = false;

/**
 * Refreshes `tree` every 250 ms until the answered function is called. One scan per tick serves
 * every watched tree: a scan reads every process's stat (several ms on a busy host), so twenty
 * concurrent runs must not scan twenty times. `ps` runs asynchronously, and a tick whose scan is
 * still under way is skipped.
 */
export function watchTree(tree: ProcessTree): () => void {
  watched.add(tree);
  if (!watchTimer) {
    watchTimer = setInterval(() => {
      const source = processSource();
      if (!source || scanning) return;
      scanning = true;
      source.listAsync().then(
        (processes) => {
          scanning = false;
          for (const each of watched) each.refresh(processes);
        },
        () => (scanning = false),
      );
    }, WATCH_MS);
    // The runs' child processes keep the event loop alive; this timer alone must not.
    watchTimer.unref();
  }
  return () => {
    watched.delete(tree);
    if (watched.size === 0 && watchTimer) {
      clearInterval(watchTimer);
      watchTimer = null;
    }
  };
}
