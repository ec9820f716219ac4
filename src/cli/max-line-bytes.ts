import { DEFAULT_MAX_LINE_BYTES } from './line-splitter';
import { UsageError } from './usage-error';

/** V8's longest string on 64-bit (Node 20): a longer line could never be made into text, whatever the limit said. */
const LONGEST_STRING = 2 ** 29 - 24;

/** The `--max-line-bytes` value (default 64 MB): a whole number of bytes from 1 to V8's string limit. */
export function maxLineBytesOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_LINE_BYTES;
  const bytes = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(bytes >= 1 && bytes <= LONGEST_STRING))
    throw new UsageError(`--max-line-bytes must be a whole number of bytes from 1 to ${LONGEST_STRING}; got ${JSON.stringify(value)}`);
  return bytes;
}
