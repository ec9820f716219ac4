import 'reflect-metadata';
import { Event } from '../src';

/* Bad JSON keeps its position and an excerpt in the library's own issue (issue #12: it was cut to 40 characters). */
describe('a json issue names where the line broke', () => {
  it.each([
    [
      'an unterminated string',
      '{"kind":"raw","payload":{"content":"abc',
      /^invalid JSON: Unterminated string at position 39, near …".*abc"$/,
    ],
    ['a bad token', '{"kind":"raw","x": tru}', /^invalid JSON: Unexpected token '}' at position 22, near .*tru}"$/],
    ['a cut line', '{"kind":', /^invalid JSON: unexpected end of input at position 8, near "\{\\"kind\\":"$/],
  ])('%s', (_name, line, expected) => {
    const result = Event.safeFromJSON(line);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error.issues[0]).toMatchObject({ code: 'json', path: [], message: expect.stringMatching(expected) });
  });

  it('stays short on a line of escapes', () => {
    const result = Event.safeFromJSON(`{"kind":"${'\\u0000'.repeat(5000)}`);
    expect(!result.success && result.error.issues[0].message.length).toBeLessThanOrEqual(160);
  });
});
