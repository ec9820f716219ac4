import { StderrLines } from '../../src/runner/stderr-lines';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('StderrLines', () => {
  it('splits lines across chunks, drops \\n and \\r\\n, keeps the unfinished last line for end()', () => {
    const lines = new StderrLines();
    expect(lines.push(bytes('first\r\nsec'))).toEqual(['first']);
    expect(lines.push(bytes('ond\n\nthi'))).toEqual(['second', '']);
    expect(lines.push(bytes('rd'))).toEqual([]);
    expect(lines.end()).toEqual(['third']);
    expect(lines.end()).toEqual([]);
  });

  it('cuts a runaway line into pieces of at most maxBytes', () => {
    const lines = new StderrLines(8);
    expect(lines.push(bytes('abcdefghijklmnopqrst'))).toEqual(['abcdefgh', 'ijklmnop']);
    expect(lines.push(bytes('uv\n'))).toEqual(['qrstuv']);
  });

  it('never cuts inside a UTF-8 character, even one split across chunks', () => {
    const lines = new StderrLines(8);
    const text = bytes('ab€€€cd\n'); // € is three bytes
    const out = [...lines.push(text.subarray(0, 4)), ...lines.push(text.subarray(4))];
    expect(out).toEqual(['ab€€', '€cd']);
    expect(out.every((line) => Buffer.byteLength(line) <= 8)).toBe(true);
  });

  it('refuses a bound too small for one character', () => {
    expect(() => new StderrLines(2)).toThrow('maxBytes');
  });
});
