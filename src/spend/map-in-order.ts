/**
 * `each` applied to every item, at most `atOnce` running at a time, the answers in the items' order.
 * A rejection rejects the whole (the items already started still finish).
 */
export async function mapInOrder<T, R>(items: readonly T[], atOnce: number, each: (item: T) => Promise<R>): Promise<R[]> {
  const answers = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const at = next++;
      answers[at] = await each(items[at]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return answers;
}
