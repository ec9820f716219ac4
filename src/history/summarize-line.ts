import { obj } from '../providers/drafts';
import type { JsonValue } from '../schema/json';
import type { StoredFormat, StoredSummary } from '../stores/stored-format';

/** Folds one parsed line into the summary, if it is a JSON object; a line the fold cannot read is skipped (the others still count). */
export function summarizeLine(format: StoredFormat, value: JsonValue | undefined, into: StoredSummary): void {
  const line = obj(value);
  if (line === null) return;
  try {
    format.summarize(line, into);
  } catch {
    // a line the fold could not read
  }
}
