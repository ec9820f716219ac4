/*
 * A tiny PNG reader for checking screenshots: Chromium writes 8-bit RGB or RGBA, not interlaced,
 * and that is all this reads (anything else is an error, so a check cannot pass on what it did not read).
 */
import { crc32, inflateSync } from 'node:zlib';

/** A decoded image: `channels` bytes per pixel, rows top to bottom. */
export interface Png {
  readonly width: number;
  readonly height: number;
  readonly channels: 3 | 4;
  readonly pixels: Buffer;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Decodes `file`; throws on a bad signature or checksum, or a format this reader does not take. */
export function readPng(file: Buffer): Png {
  if (!file.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG: bad signature');
  let width = 0;
  let height = 0;
  let channels: 3 | 4 = 3;
  const data: Buffer[] = [];
  for (let at = 8; at < file.length;) {
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    const body = file.subarray(at + 8, at + 8 + length);
    if (crc32(file.subarray(at + 4, at + 8 + length)) !== file.readUInt32BE(at + 8 + length)) throw new Error(`PNG chunk ${type}: bad CRC`);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colorType, , , interlace] = body.subarray(8);
      if (depth !== 8 || (colorType !== 2 && colorType !== 6) || interlace !== 0)
        throw new Error(`PNG: unsupported format (depth ${depth}, color type ${colorType}, interlace ${interlace})`);
      channels = colorType === 2 ? 3 : 4;
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  return { width, height, channels, pixels: unfilter(inflateSync(Buffer.concat(data)), width, height, channels) };
}

/** Undoes the per-row filters (PNG spec, section 9). */
function unfilter(raw: Buffer, width: number, height: number, bpp: number): Buffer {
  const stride = width * bpp;
  if (raw.length !== height * (stride + 1)) throw new Error('PNG: image data of the wrong size');
  const out = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const row = y * stride;
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x];
      const a = x >= bpp ? out[row + x - bpp] : 0;
      const b = y > 0 ? out[row - stride + x] : 0;
      const c = x >= bpp && y > 0 ? out[row - stride + x - bpp] : 0;
      const predicted = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      if (predicted === undefined) throw new Error(`PNG: unknown filter ${filter}`);
      out[row + x] = (value + predicted) & 0xff;
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The `[r, g, b]` of the pixel at `x`, `y`. */
export function pixelAt(png: Png, x: number, y: number): [number, number, number] {
  const at = (Math.floor(y) * png.width + Math.floor(x)) * png.channels;
  return [png.pixels[at], png.pixels[at + 1], png.pixels[at + 2]];
}

/** How many different colours the image holds (1 for a blank page). */
export function distinctColors(png: Png): number {
  const seen = new Set<number>();
  for (let at = 0; at < png.pixels.length; at += png.channels)
    seen.add((png.pixels[at] << 16) | (png.pixels[at + 1] << 8) | png.pixels[at + 2]);
  return seen.size;
}

/** How many pixels differ between two images of the same size. */
export function differingPixels(a: Png, b: Png): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error('images of different sizes');
  let count = 0;
  for (let i = 0, j = 0; i < a.pixels.length; i += a.channels, j += b.channels) {
    if (a.pixels[i] !== b.pixels[j] || a.pixels[i + 1] !== b.pixels[j + 1] || a.pixels[i + 2] !== b.pixels[j + 2]) count++;
  }
  return count;
}
