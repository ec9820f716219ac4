let lastId = 0;

/** The next process-local event id: positive, unique and increasing within this process. */
export function nextEventId(): number {
  return ++lastId;
}
