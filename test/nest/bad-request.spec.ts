import 'reflect-metadata';
import { Event } from '../../src';
import { toBadRequest, type SchemaErrorBody } from '../../src/nest';

const bodyOf = (text: string): SchemaErrorBody => {
  const result = Event.safeFromJSON(text);
  if (result.success) throw new Error('expected an invalid event');
  return toBadRequest(result.error).getResponse() as SchemaErrorBody;
};

describe('the Nest 400 body is bounded (a 95 KB body got a 594 KB answer)', () => {
  it('a 95 KB body of 9,000 non-finite numbers: 100 issues listed, the rest counted, the full count in the message', () => {
    const text = `{"kind":"raw",${Array.from({ length: 9000 }, (_, i) => `"k${i}":1e400`).join(',')}}`;
    expect(text.length).toBeGreaterThan(95_000);
    const body = bodyOf(text);
    expect(body.issues).toHaveLength(100);
    expect(body.issues.every((issue) => issue.code === 'serializable')).toBe(true);
    expect(body.more_issues).toBe(8900);
    expect(body.message).toBe('invalid_event: 9000 issues');
    expect(JSON.stringify(body).length).toBeLessThan(20_000);
  });

  it('a 100,000-character key and a 500-key path are cut: keys to 40 characters, paths to 10 keys', () => {
    const long = 'k'.repeat(100_000);
    const deep = `${'{"a":'.repeat(500)}1e400${'}'.repeat(500)}`;
    const body = bodyOf(`{"kind":"raw","payload":{"stream":"stdout","content":"x","metadata":{"${long}":1e400}},"deep":${deep}}`);
    const paths = body.issues.map((issue) => issue.path);
    expect(paths).toContainEqual(['payload', 'metadata', `${'k'.repeat(40)}…`]);
    expect(paths).toContainEqual(['deep', 'a', 'a', 'a', 'a', '…', 'a', 'a', 'a', 'a', 'a']);
    expect(JSON.stringify(body).length).toBeLessThan(2_000);
  });

  it('a short error is listed whole, with no more_issues', () => {
    const body = bodyOf('{"kind":"assistant_delta","payload":{"content":"x","index":-1}}');
    expect(body.issues).toEqual([{ code: 'too_small', message: 'too small: must be at least 0', path: ['payload', 'index'] }]);
    expect('more_issues' in body).toBe(false);
  });
});
