import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { drainedOrGone } from '../../src/http/drained-or-gone';

/* The wait for a slow HTTP client that both the runs API's SSE and the UI message stream use. */

const response = () => new ServerResponse(new IncomingMessage(new Socket()));

it('a response already gone resolves at once (its close has fired; waiting for it would hang)', async () => {
  const gone = response();
  gone.destroy();
  await expect(drainedOrGone(gone)).resolves.toBeUndefined();
});

it("a live response resolves on 'drain', or on 'close', and leaves no listener behind", async () => {
  for (const event of ['drain', 'close'] as const) {
    const live = response();
    let resolved = false;
    const waiting = drainedOrGone(live).then(() => (resolved = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(resolved).toBe(false);
    live.emit(event);
    await waiting;
    expect([live.listenerCount('drain'), live.listenerCount('close')]).toEqual([0, 0]);
  }
});
