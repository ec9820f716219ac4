/**
 * Stream entry ids as Redis writes them, `<milliseconds>-<sequence>`: the in-process store makes the
 * same, so that a cursor reads alike from either store.
 */

/** Whether entry id `a` comes after `b`. */
export function isAfter(a: string, b: string): boolean {
  const [aMs, aSeq] = parse(a);
  const [bMs, bSeq] = parse(b);
  return aMs > bMs || (aMs === bMs && aSeq > bSeq);
}

/** The id after `last` at time `now` (the next sequence within the same millisecond). */
export function nextId(last: string | null, now: number): string {
  if (last === null) return `${now}-0`;
  const [ms, seq] = parse(last);
  return now > ms ? `${now}-0` : `${ms}-${seq + 1}`;
}

/** Whether `value` reads as an entry id (a cursor given by a client: a Last-Event-ID header). */
export function isEntryId(value: string): boolean {
  return /^\d{1,16}-\d{1,16}$/.test(value);
}

function parse(id: string): [number, number] {
  const at = id.indexOf('-');
  return at < 0 ? [Number(id), 0] : [Number(id.slice(0, at)), Number(id.slice(at + 1))];
}
