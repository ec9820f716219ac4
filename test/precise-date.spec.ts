import fc from 'fast-check';
import { PreciseDate } from '../src';
import { parseIsoMs, toPreciseDate } from '../src/schema/precise-date';

describe('ISO 8601 reading', () => {
  it('agrees with Date.parse on every valid instant, in every accepted layout', () => {
    const instant = fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });
    fc.assert(
      fc.property(
        instant,
        fc.integer({ min: 0, max: 9 }),
        fc.constantFrom('Z', 'z', '+00:00', '-05:30', '+1400', '-0000'),
        fc.constantFrom('T', 't', ' '),
        (date, digits, zone, sep) => {
          const [day, time] = date.toISOString().slice(0, 23).split('T');
          const fraction = digits ? `.${time.slice(9, 12).padEnd(digits, '7').slice(0, digits)}` : '';
          const text = `${day}${sep}${time.slice(0, 8)}${fraction}${zone}`;
          expect(parseIsoMs(text)).toBe(Date.parse(text.replace(' ', 'T')));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['2026-03-19T00:00:00.123456Z', Date.UTC(2026, 2, 19, 0, 0, 0, 123)],
    ['2026-03-19T00:00Z', Date.UTC(2026, 2, 19)],
    ['2024-02-29T12:00:00-08:00', Date.UTC(2024, 1, 29, 20)],
    ['0001-01-01T00:00:00Z', -62135596800000],
  ])('reads %s', (text, ms) => {
    expect(parseIsoMs(text)).toBe(ms);
  });

  it.each([
    '2026-02-29T00:00:00Z', // not a leap year (Date.parse rolls it over to March 1st)
    '2026-04-31T00:00:00Z',
    '2026-03-19T24:00:00Z',
    '2026-03-19T00:60:00Z',
    '2026-03-19T00:00:60Z',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-03-19', // no time
    '2026-03-19T00:00:00', // no offset: which instant is ambiguous
    '2026-03-19T00:00:00.Z',
    '2026-03-19T00:00:00.1234567891Z', // more than nanoseconds
    '2026-03-19T00:00:00+02', // offset without minutes
    '2026-03-19T00:00:00+24:00',
    '2026-03-19T00:00:00ZZ',
    ' 2026-03-19T00:00:00Z',
    '+002026-03-19T00:00:00Z',
    '２０２６-03-19T00:00:00Z',
    '',
  ])('refuses %p', (text) => {
    expect(parseIsoMs(text)).toBeNaN();
    expect(toPreciseDate(text)).toBeUndefined();
  });

  it('keeps the text it read and writes it back', () => {
    const date = toPreciseDate('2026-03-19T00:00:00.123456789+02:00')!;
    expect(date).toBeInstanceOf(PreciseDate);
    expect(date).toBeInstanceOf(Date);
    expect(date.toISOString()).toBe('2026-03-18T22:00:00.123Z');
    expect(JSON.stringify({ t: date })).toBe('{"t":"2026-03-19T00:00:00.123456789+02:00"}');
  });
});
