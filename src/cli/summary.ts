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
 * Counts per kind as a table: one row per kind present (in `KINDS` order, then `NO_KIND`),
 * numbers right-aligned under their column names.
 */
function kindTable(columns: readonly string[], rows: ReadonlyMap<string, readonly number[]>): string {
  const order = [...KINDS, NO_KIND].filter((kind) => rows.has(kind));
  const width = Math.max(4, ...order.map((kind) => kind.length));
  const widths = columns.map((column, i) => Math.max(column.length, ...order.map((kind) => String(rows.get(kind)![i]).length)));
  const row = (kind: string, cells: readonly (string | number)[]) =>
    `${kind.padEnd(width)}${cells.map((cell, i) => `  ${String(cell).padStart(widths[i])}`).join('')}\n`;
  return row('kind', columns) + order.map((kind) => row(kind, rows.get(kind)!)).join('');
}

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
  const rows = new Map([...tally.byKind].map(([kind, { valid, invalid }]) => [kind, [valid, invalid]]));
  return head + kindTable(['valid', 'invalid'], rows);
}

/** Counts of one `decode` run. */
export class DecodeTally {
  /** Lines read, blank ones included. */
  lines = 0;
  blank = 0;
  events = 0;
  readonly byKind = new Map<string, number>();

  count(kind: string): void {
    this.events++;
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
  }
}

/**
 * The summary `decode` prints on standard error:
 *
 *     run.jsonl: 12 lines read (0 blank), 19 events; provider claude, session 9c2e…
 *     kind               events
 *     run_started             1
 *     …
 */
export function formatDecodeSummary(source: string, tally: DecodeTally, provider: string | null, sessionId: string | null): string {
  const head = `${source}: ${plural(tally.lines, 'line')} read (${tally.blank} blank), ${plural(tally.events, 'event')}; provider ${provider ?? '(none recognised)'}, session ${sessionId ?? '(none)'}\n`;
  const rows = new Map([...tally.byKind].map(([kind, count]) => [kind, [count]]));
  return head + kindTable(['events'], rows);
}
