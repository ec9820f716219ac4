import fc from 'fast-check';
import { PassThrough, Readable } from 'node:stream';
import { splitLines } from '../../src/providers/lines';
import { numRuns } from '../hardening/arbitraries';

async function collect(source: AsyncIterable<string | Uint8Array> | Readable): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of splitLines(source)) lines.push(line);
  return lines;
}

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<string | Uint8Array> {
  yield* parts;
}

/** `text` as UTF-8 bytes cut at the given byte offsets. */
function cut(text: string, offsets: number[]): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const points = [...new Set(offsets.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    parts.push(bytes.subarray(start, point));
    start = point;
  }
  return parts;
}

describe('splitLines', () => {
  it('splits LF and CRLF lines and keeps a last line without a newline', async () => {
    expect(await collect(chunks('a\nb\r\nc'))).toEqual(['a', 'b', 'c']);
    expect(await collect(chunks('a\r\n\r\nb\n'))).toEqual(['a', '', 'b']);
  });

  it('gives nothing for an empty stream, and one empty line for a lone newline', async () => {
    expect(await collect(chunks())).toEqual([]);
    expect(await collect(chunks('', ''))).toEqual([]);
    expect(await collect(chunks('\n'))).toEqual(['']);
  });

  it('joins a line split across chunks, including a CRLF split between two chunks', async () => {
    expect(await collect(chunks('{"ty', 'pe":', '"x"}\r', '\nnext'))).toEqual(['{"type":"x"}', 'next']);
  });

  it('keeps a carriage return that does not end a line', async () => {
    expect(await collect(chunks('a\rb\n'))).toEqual(['a\rb']);
  });

  it('joins a multi-byte UTF-8 character split across chunks, at every byte', async () => {
    const text = 'é😀中\n';
    const bytes = Buffer.from(text, 'utf8');
    for (let i = 1; i < bytes.length; i++) {
      expect(await collect(chunks(bytes.subarray(0, i), bytes.subarray(i)))).toEqual(['é😀中']);
    }
    // One byte per chunk.
    expect(await collect(chunks(...[...bytes].map((b) => Uint8Array.of(b))))).toEqual(['é😀中']);
  });

  it('reads a Node Readable of Buffers and one of strings', async () => {
    expect(await collect(Readable.from([Buffer.from('x\ny'), Buffer.from('z\n')]))).toEqual(['x', 'yz']);
    expect(await collect(Readable.from(['x\n', 'y'], { objectMode: true }))).toEqual(['x', 'y']);
  });

  it('drops a byte order mark at the start only, even when its bytes are split', async () => {
    const bom = Buffer.from('\ufeff', 'utf8');
    expect(await collect(chunks(bom.subarray(0, 1), bom.subarray(1), '{}\n\ufeffx'))).toEqual(['{}', '\ufeffx']);
    expect(await collect(chunks('\ufeffa\n'))).toEqual(['a']);
  });

  it('replaces invalid UTF-8 and an unfinished character at the end with U+FFFD', async () => {
    expect(await collect(chunks(Uint8Array.of(0x61, 0xff, 0x0a)))).toEqual(['a\ufffd']);
    expect(await collect(chunks(Buffer.from('ok\n'), Uint8Array.of(0xe4, 0xb8)))).toEqual(['ok', '\ufffd']);
  });

  it('accepts bytes and strings mixed in one stream', async () => {
    expect(await collect(chunks(Buffer.from('a'), 'b\n', Buffer.from('c')))).toEqual(['ab', 'c']);
  });

  it('yields each line as soon as its newline arrives, before the stream ends', async () => {
    const stream = new PassThrough();
    const lines = splitLines(stream);
    stream.write('first\nsec');
    expect(await lines.next()).toEqual({ value: 'first', done: false });
    stream.write('ond\n');
    expect(await lines.next()).toEqual({ value: 'second', done: false });
    stream.end('third');
    expect(await lines.next()).toEqual({ value: 'third', done: false });
    expect(await lines.next()).toEqual({ value: undefined, done: true });
  });

  it('gives the lines of any text however its bytes are cut into chunks', async () => {
    const piece = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r', '😀', 'é'));
    const text = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('').replace(/^\ufeff/, ''));
    await fc.assert(
      fc.asyncProperty(text, fc.array(fc.nat(), { maxLength: 8 }), async (input, offsets) => {
        const expected =
          input === ''
            ? []
            : input
                .replace(/\n$/, '')
                .split('\n')
                .map((line) => line.replace(/\r$/, ''));
        expect(await collect(chunks(...cut(input, offsets)))).toEqual(expected);
      }),
      { numRuns: numRuns(300) },
    );
  });
});
