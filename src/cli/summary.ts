import { KINDS } from '../index';

/** The row of invalid lines whose kind is not known (bad JSON, a missing or unknown kind, envelope errors). */
export const NO_KIND = '(no kind)';

/** Counts of one `validate` run. */
export class Tally {
  /** Non-blank lines checked. */
  lines = 0;
  blank = 0;
  valid = 0;
  invalid = 0;
  /** Per kind: valid and invalid lines. */
  readonly byKind = new Map<string, { valid: number; invalid: number }>();

  /** Counts one checked line; `kind` is undefined when the line's kind is not known. */
  count(ok: boolean, kind: string | undefined): void {
    this.lines++;
    if (ok) this.valid++;
    else this.invalid++;
    const key = kind ?? NO_KIND;
    const row = this.byKind.get(key) ?? { valid: 0, invalid: 0 };
    if (ok) row.valid++;
    else row.invalid++;
    this.byKind.set(key, row);
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The summary printed after the per-line errors:
 *
 *     examples/mixed.jsonl: 8 lines checked, 6 valid, 2 invalid; 1 blank line skipped
 *     kind             valid  invalid
 *     run_started          1        0
 *     …
 */
export function formatSummary(source: string, tally: Tally): string {
  const head = `${source}: ${plural(tally.lines, 'line')} checked, ${tally.valid} valid, ${tally.invalid} invalid; ${plural(tally.blank, 'blank line')} skipped\n`;
  if (tally.byKind.size === 0) return head;
  const order = [...KINDS, NO_KIND].filter((kind) => tally.byKind.has(kind));
  const width = Math.max(4, ...order.map((kind) => kind.length));
  const row = (kind: string, valid: string | number, invalid: string | number) =>
    `${kind.padEnd(width)}  ${String(valid).padStart(5)}  ${String(invalid).padStart(7)}\n`;
  return head + row('kind', 'valid', 'invalid') + order.map((kind) => row(kind, tally.byKind.get(kind)!.valid, tally.byKind.get(kind)!.invalid)).join('');
}
