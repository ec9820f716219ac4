import { mapInOrder } from '../../src/spend/map-in-order';

describe('mapInOrder', () => {
  it('answers in the items’ order, with at most `atOnce` running, whatever order they finish in', async () => {
    let running = 0;
    let most = 0;
    const finish: (() => void)[] = [];
    const answers = mapInOrder([1, 2, 3, 4, 5], 2, async (item) => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => finish.push(resolve));
      running--;
      return item * 10;
    });
    // Finish the newest waiting one first, every time: the answers must still come in order.
    while (finish.length > 0 || running > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      finish.pop()?.();
    }
    await expect(answers).resolves.toEqual([10, 20, 30, 40, 50]);
    expect(most).toBe(2);
  });

  it('answers [] for no items, and rejects with the first rejection', async () => {
    await expect(mapInOrder([], 4, async () => 1)).resolves.toEqual([]);
    await expect(
      mapInOrder([1, 2, 3], 2, async (item) => {
        if (item === 2) throw new Error('unreadable 2');
        return item;
      }),
    ).rejects.toThrow('unreadable 2');
  });
});
