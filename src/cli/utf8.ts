import * as buffer from 'node:buffer';

/**
 * Whether `bytes` are well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
 * Node's native `isUtf8` where there is one (Node ≥ 18.14), else the scan below.
 */
export const isValidUtf8: (bytes: Uint8Array) => boolean =
  typeof (buffer as { isUtf8?: unknown }).isUtf8 === 'function'
    ? (buffer as unknown as { isUtf8: (bytes: Uint8Array) => boolean }).isUtf8
    : (bytes) => firstInvalidUtf8Byte(bytes, 0, bytes.length) === -1;

/** Offset (from `start`) of the first byte that does not begin or continue a well-formed UTF-8 character; -1 when there is none. */
export function firstInvalidUtf8Byte(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    // The allowed range of the second byte excludes overlong forms, surrogates and code points past U+10FFFF.
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      else if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      else if (b === 0xf4) high = 0x8f;
    } else return i - start;
    if (i + 1 >= end || bytes[i + 1] < low || bytes[i + 1] > high) return i - start;
    for (let k = 2; k < length; k++) if (i + k >= end || (bytes[i + k] & 0xc0) !== 0x80) return i - start;
    i += length;
  }
  return -1;
}
