import { PROVIDERS } from '../../src/decode/provider-id';
import { decodeFixture, fixtures, readGolden } from './fixtures';

const all = fixtures();

it('every provider has fixture transcripts', () => {
  expect(PROVIDERS.filter((provider) => !all.some((fixture) => fixture.provider === provider))).toEqual([]);
});

// Each provider fixture decodes to exactly its golden events (written by scripts/write-goldens.ts, read by a person).
describe.each(all.map((fixture) => [`${fixture.provider}/${fixture.name}`, fixture] as const))('%s', (_label, fixture) => {
  it('decodes to its golden events', () => {
    const golden = readGolden(fixture);
    expect(golden).not.toBeNull();
    expect(decodeFixture(fixture)).toEqual(golden);
  });
});
