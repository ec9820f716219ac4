import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import type { Palette } from './style';

/** One column of a table: its heading, where its text sits, and how much it matters when the width runs short. */
export interface Column {
  readonly heading: string;
  readonly align: 'left' | 'right';
  /** Columns of the highest `drop` go first when the table is wider than the terminal (0: never dropped). */
  readonly drop: number;
  /** Never cut (an id a person copies). */
  readonly whole?: boolean;
}

/** Width when the output is no terminal, or a terminal that does not say. */
export const TABLE_WIDTH = 80;

/** The width of `stream`: its columns when it is a terminal that says, else 80. */
export function widthOf(stream: { readonly isTTY?: boolean; readonly columns?: number }): number {
  return stream.isTTY === true && stream.columns !== undefined && stream.columns > 0 ? stream.columns : TABLE_WIDTH;
}

/**
 * A table as text: a bold heading, the rows (each with its `details` line under it, dimmed and
 * indented, where given), and `footer` rows under a rule; columns two spaces apart, numbers
 * right-aligned. When it is wider than `width`, columns are dropped (highest `drop` first), then the
 * widest left-aligned cell that may be cut is cut with `…`.
 */
export function renderTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  footer: readonly (readonly string[])[],
  width: number,
  colors: Palette,
  details?: readonly string[],
): string {
  let shown = columns.map((_, index) => index);
  const all = [...rows, ...footer];
  const widths = () =>
    shown.map((index) => Math.max(stringWidth(columns[index].heading), ...all.map((row) => stringWidth(row[index] ?? ''))));
  const total = () => widths().reduce((sum, each) => sum + each, 0) + 2 * (shown.length - 1);
  while (total() > width) {
    const droppable = shown.filter((index) => columns[index].drop > 0);
    if (droppable.length === 0) break;
    const worst = droppable.reduce((a, b) => (columns[b].drop >= columns[a].drop ? b : a));
    shown = shown.filter((index) => index !== worst);
  }
  const sizes = widths();
  const excess = total() - width;
  if (excess > 0) {
    // Still too wide: the widest text column gives up what is missing.
    let widest = -1;
    shown.forEach((index, at) => {
      if (columns[index].align === 'left' && !columns[index].whole && (widest < 0 || sizes[at] > sizes[widest])) widest = at;
    });
    if (widest >= 0) sizes[widest] = Math.max(4, sizes[widest] - excess);
  }
  const line = (cells: readonly string[], style: (text: string) => string = (text) => text) =>
    shown
      .map((index, at) => {
        const text = fit(cells[index] ?? '', sizes[at]);
        const pad = ' '.repeat(Math.max(0, sizes[at] - stringWidth(text)));
        // An empty cell gets no style: its codes would keep the line's trailing spaces.
        const styled = text === '' ? '' : style(text);
        return columns[index].align === 'right' ? pad + styled : styled + (at === shown.length - 1 ? '' : pad);
      })
      .join('  ')
      .trimEnd();
  const rule = colors.dim('─'.repeat(Math.min(width, sizes.reduce((sum, each) => sum + each, 0) + 2 * (shown.length - 1))));
  const detail = (index: number) => {
    const text = details?.[index] ?? '';
    return text === '' ? [] : [colors.dim(fit(`  ${text}`, width))];
  };
  const out = [
    line(
      columns.map((column) => column.heading),
      colors.bold,
    ),
    ...rows.flatMap((row, index) => [line(row), ...detail(index)]),
  ];
  if (footer.length > 0) out.push(rule, ...footer.map((row) => line(row, colors.bold)));
  return `${out.join('\n')}\n`;
}

/** `text` cut to `size` columns, ending in `…` when cut. */
function fit(text: string, size: number): string {
  if (stringWidth(text) <= size) return text;
  return `${wrapAnsi(text, size - 1, { hard: true, trim: false, wordWrap: false }).split('\n')[0]}…`;
}

/** `text` wrapped to `width` columns, each line ending in a new line. */
export function wrapLines(text: string, width: number): string {
  return `${wrapAnsi(text, width, { hard: true })}\n`;
}

/** `text` from a stored file without its control characters (an escape sequence in a prompt must not drive the terminal). */
export function plain(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}
