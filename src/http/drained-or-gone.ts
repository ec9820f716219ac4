import type { ServerResponse } from 'node:http';

/**
 * Resolves when `response` can take more, or is gone; its listeners removed either way. A response
 * already destroyed resolves at once: its 'close' has fired, and 'drain' never will (the runs
 * bench's SSE handlers hung on a client that left mid-batch).
 */
export function drainedOrGone(response: ServerResponse): Promise<void> {
  if (response.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}
