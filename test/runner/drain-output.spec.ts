import { drainOutput, type OutputPumps } from '../../src/runner/drain-output';

/*
 * How a run's output is read to its end after the CLI exited: cut off only when nothing more is
 * read (a process outside the tree holding the pipes), never while it is still being read (a busy
 * host that had not yet read what the CLI wrote before exiting: the twenty-runs flake).
 */

function pumps(bytesRead: () => number, finishAfterReads = Infinity): OutputPumps & { cutOffs: number } {
  let reads = 0;
  let finish: () => void = () => undefined;
  const state = {
    cutOffs: 0,
    drained: new Promise<void>((resolve) => (finish = resolve)),
    bytesRead: () => {
      reads += 1;
      if (reads > finishAfterReads) finish();
      return bytesRead();
    },
    cutOff: () => {
      state.cutOffs += 1;
      finish();
    },
  };
  return state;
}

describe('drainOutput', () => {
  it('returns at once when the pumps have read everything', async () => {
    const drained = pumps(() => 0);
    const finished = { ...drained, drained: Promise.resolve() };
    await drainOutput(finished, 60_000);
    expect(drained.cutOffs).toBe(0);
  });

  it('cuts off output nothing was read from for a grace period (a process outside the tree holds the pipes)', async () => {
    const idle = pumps(() => 42);
    await drainOutput(idle, 1);
    expect(idle.cutOffs).toBe(1);
  });

  it('keeps reading while bytes keep coming, however many grace periods pass', async () => {
    let bytes = 0;
    // Bytes arrive between every two checks; the pumps end after the fifth check.
    const busy = pumps(() => (bytes += 100), 5);
    await drainOutput(busy, 1);
    expect(busy.cutOffs).toBe(0);
  });

  it('a writer that never stops is cut off at the limit all the same', async () => {
    let bytes = 0;
    const endless = pumps(() => (bytes += 1));
    await drainOutput(endless, 1, 5);
    expect(endless.cutOffs).toBe(1);
  });
});
